"""`graph:NAME`: a game played on an uploaded directed graph (cycles allowed, so draws too).

A position is a vertex (by its name); a move follows an edge. At a vertex with no move the game is over,
with the result its terminal label gives the player to move there (`win`, `loss` or `draw`; `loss`
where none is given: normal play). Values come from the retrograde kernel (engine.kernels.retrograde):
"N" (win for the player to move), "P" (loss), "D" (draw) with Rivier's remoteness, and, when every
terminal is a loss (an impartial game under normal play), the generalised Sprague-Grundy value gamma
of loopy games: `grundy` is gamma where it is finite; an infinite value infinity(K) is absent from
`grundy` and named by the answer's `note` ("∞(0,2)", `gamma_text`; `gamma` gives it), and sums of
positions of such graphs classify by `sum_outcome`.

The kind does no I/O: it is built from the service's checked upload (`from_upload`), and answers from
a `GraphSolution` it is given (`with_solution`: a worker's, `source` "table"), else solves the graph
itself when the graph is small enough (`LIVE_EDGES`, "live").
`GraphSolution.to_bytes` / `from_bytes` are what a worker stores: about one byte per vertex for outcome
and remoteness, plus gamma in the narrowest integer type it fits.

Served (`parse_graph_kind`: a `NeedsGraph` the service binds to `StoredGraphGame`), the kind reads the
solution a worker stored as the family "solution" (`plan_job`, `SolutionKernel`, through
engine.stored_bytes and `ctx.tables`), else solves graphs of up to `GraphSettings.live_edges` edges for the
request, else refuses with FAILED_PRECONDITION: the solve is pending (naming the job queued for it).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from engine.errors import InvalidArgument, InvalidGameId, InvalidPosition, LimitExceeded
from engine.families import Family
from engine.graphs import check_graph_name
from engine.kernels.retrograde import (
    INFINITE,
    LOSS,
    WIN,
    Gamma,
    Packed,
    csr_from_edges,
    infinity_set,
    loopy_grundy_from,
    pack,
    reverse_csr,
    solve_reverse,
    topological_order,
)
from engine.kind import Context, GameKind, SequenceKernel
from engine.kind_settings import KeeperSpec, PositiveInt, SettingsDeclaration
from engine.moves import MoveTo, check_limit, list_moves
from engine.needs_graph import NeedsGraph
from engine.positions import quote_position, quote_token
from engine.precompute import JobPlan
from engine.stored_bytes import BytesKernel, read_stored
from engine.values import BestMoveResult, GameInfo, MoveValue, Outcome, Source, Value
from kinds.graphs.records import GraphValue

I8 = NDArray[np.int8]
I32 = NDArray[np.int32]
I64 = NDArray[np.int64]

#: Graphs with at most this many edges are solved within a request (about 0.1 s); larger ones need the
#: worker's stored solution (LimitExceeded until then; served, `GraphSettings.live_edges` and
#: FAILED_PRECONDITION).
LIVE_EDGES = 1_000_000
#: Graphs with at most this many edges are solved where their request arrives (well under a millisecond,
#: less than a hop to a live process costs) and kept there, so the next answers come from memory; larger
#: ones, up to `GraphSettings.live_edges`, are solved in a live process.
SOLVED_HERE_EDGES = 1_000
FAMILY = "graph"
#: The stored family holding a graph's solution (`GraphSolution.to_bytes`, as words).
SOLUTION = "solution"


@dataclass(frozen=True, slots=True)
class GraphSettings:
    """graph:NAME's own settings (`SETTINGS`: NIMBASE_LIMITS_GRAPH_<FIELD>, NIMBASE_CACHE_GRAPH_<FIELD>)."""

    live_edges: PositiveInt = LIVE_EDGES
    """Most edges of an uploaded game graph solved within a request while no worker has stored its
    solution (about a tenth of a second a million edges); a larger graph is answered once its solve job
    is done (FAILED_PRECONDITION, naming the job, until then)."""
    solution_bytes: PositiveInt = 64 << 20
    """Bytes of solved game graphs kept whole in the process (`SOLUTIONS`), each counted as its packed
    outcomes, remoteness and gamma (about 5 bytes a vertex): the solution of the largest graph an upload
    takes (5 MB) fits."""


#: The keeper of solved graphs; its budget is `GraphSettings.solution_bytes`.
SOLUTIONS = KeeperSpec(GraphSettings, "solution_bytes")
#: What the registry entry declares (NIMBASE_LIMITS_GRAPH_LIVE_EDGES, NIMBASE_CACHE_GRAPH_SOLUTION_BYTES).
SETTINGS = SettingsDeclaration("graph", GraphSettings, keepers=(SOLUTIONS,))

#: Bytes a vertex name costs in memory beyond its characters (`GraphGame.memory_bytes`): the str's
#: header (49 bytes when ASCII), its slot in the vertex tuple, its entry and int in the index dict.
NAME_BYTES = 128

#: Terminal labels as the upload names them, and as the kernel codes them.
TERMINAL_CODES: dict[str, int] = {"win": WIN, "loss": LOSS, "draw": 0}
#: The upload's stored label codes (engine.graphs.LABELS: loss, win, draw) as kernel codes.
_UPLOAD_LABELS = np.array([LOSS, WIN, 0], dtype=np.int8)

_OUTCOMES: dict[int, Outcome] = {WIN: "N", LOSS: "P", 0: "D"}


class GraphUpload(Protocol):
    """What `from_upload` reads of a checked upload (engine.graphs.UploadedGraph)."""

    @property
    def name(self) -> str: ...
    @property
    def vertices(self) -> tuple[str, ...]: ...
    @property
    def sources(self) -> I32: ...
    @property
    def targets(self) -> I32: ...
    @property
    def terminal_vertices(self) -> I32: ...
    @property
    def terminal_labels(self) -> NDArray[np.uint8]: ...


@dataclass(frozen=True, slots=True)
class GraphSolution:
    """Everything solved about one graph: outcome and remoteness packed, and gamma (normal play only)."""

    packed: Packed
    #: gamma per vertex (>= 0 finite, INFINITE), or None when some terminal is not a loss.
    gamma: I32 | None
    acyclic: bool

    _HEADER = struct.Struct("<4sBBQ")

    def to_bytes(self) -> bytes:
        """What a worker stores: the packed table (its codes deflated), then gamma in the narrowest type it
        fits, deflated (`GRS2`; `GRS1`, gamma as it is, reads too)."""
        packed = self.packed.to_bytes()
        gamma = b""
        width = 0
        if self.gamma is not None:
            top = int(self.gamma.max(initial=0))
            dtype = "<i1" if top < 127 else "<i2" if top < 32767 else "<i4"
            width = np.dtype(dtype).itemsize
            gamma = zlib.compress(self.gamma.astype(dtype).tobytes(), 6)
        return self._HEADER.pack(b"GRS2", int(self.acyclic), width, len(packed)) + packed + gamma

    @classmethod
    def from_bytes(cls, data: bytes) -> GraphSolution:
        magic, acyclic, width, size = cls._HEADER.unpack_from(data, 0)
        if magic not in (b"GRS1", b"GRS2"):
            raise ValueError("not a stored graph solution")
        at = cls._HEADER.size
        packed = Packed.from_bytes(data[at : at + size])
        gamma = None
        if width:
            dtype = {1: "<i1", 2: "<i2", 4: "<i4"}[width]
            raw = data[at + size :]
            if magic == b"GRS2":
                raw = zlib.decompress(raw)
            gamma = np.frombuffer(raw, dtype=dtype).astype(np.int32)
            if gamma.shape[0] != len(packed):
                raise ValueError(
                    f"a stored graph solution has {len(packed)} vertices but {gamma.shape[0]} gammas"
                )
        return cls(packed, gamma, bool(acyclic))


def solve(
    indptr: I64, indices: I32, terminal: I8, progress: Callable[[int, int], None] | None = None
) -> GraphSolution:
    """Solve a CSR graph: what a worker job runs (progress(done, total) between chunks). The reverse
    graph and the topological order are found once and serve the solve, gamma and acyclicity."""
    reverse = reverse_csr(indptr, indices)
    degree = np.diff(indptr).astype(np.int32)
    outcome, remoteness = solve_reverse(*reverse, degree, terminal, progress=progress)
    order = topological_order(indptr, indices, reverse)
    normal_play = not np.any((degree == 0) & (terminal != LOSS))
    gamma = loopy_grundy_from(indptr, indices, reverse, order) if normal_play else None
    return GraphSolution(pack(outcome, remoteness), gamma, order is not None)


def gamma_text(value: Gamma) -> str:
    """ "3", or "∞(0,2)" for infinity({0, 2}) ("∞()" for infinity of the empty set)."""
    g, k = value
    return str(g) if g is not None else "∞(" + ",".join(map(str, sorted(k))) + ")"


class GraphGame(GameKind[int]):
    """`graph:NAME` on one graph; positions are vertex indices, written as the vertex names."""

    def __init__(
        self,
        name: str,
        vertices: Sequence[str],
        indptr: I64,
        indices: I32,
        terminal: I8,
        *,
        solution: GraphSolution | None = None,
        source: Source = "live",
        live_edges: int = LIVE_EDGES,
    ) -> None:
        self.name = name
        self.game_id = f"graph:{name}"
        self.vertices = tuple(vertices)
        self.index = {v: i for i, v in enumerate(self.vertices)}
        self.indptr = indptr
        self.indices = indices
        self.terminal = terminal
        self._solution = solution
        self.source: Source = source if solution is not None else "live"
        self.live_edges = live_edges

    # -- building ---------------------------------------------------------------------------------

    @classmethod
    def from_upload(
        cls, graph: GraphUpload, solution: GraphSolution | None = None, source: Source = "table"
    ) -> GraphGame:
        """From the service's checked upload (engine.graphs.UploadedGraph) and, where a worker stored
        one, its solution."""
        n = len(graph.vertices)
        indptr, indices = csr_from_edges(n, graph.sources, graph.targets)
        terminal = np.full(n, LOSS, dtype=np.int8)
        terminal[graph.terminal_vertices] = _UPLOAD_LABELS[graph.terminal_labels]
        return cls(graph.name, graph.vertices, indptr, indices, terminal, solution=solution, source=source)

    @property
    def edge_count(self) -> int:
        return int(self.indices.shape[0])

    @property
    def solved(self) -> bool:
        return self._solution is not None

    def solve(self, progress: Callable[[int, int], None] | None = None) -> GraphSolution:
        """Solve now (whatever the size: the worker's way); the solution is the caller's to keep."""
        return solve(self.indptr, self.indices, self.terminal, progress)

    def with_solution(self, solution: GraphSolution, source: Source) -> GraphGame:
        """This graph's game answering from `solution` (its arrays shared, nothing copied)."""
        game = GraphGame.__new__(GraphGame)
        game.__dict__.update(self.__dict__)
        game._solution = solution
        game.source = source
        return game

    @property
    def solution(self) -> GraphSolution:
        """The solution the game was made with, else one solved now (not kept) when the graph is small
        enough."""
        if self._solution is not None:
            return self._solution
        if self.edge_count > self.live_edges:
            raise LimitExceeded(
                f"graph {self.name!r} has {self.edge_count} edges, more than the {self.live_edges} "
                "solved live: its values are answered once a worker job has solved it"
            )
        return self.solve()

    # -- values without a request context ------------------------------------------------------------

    def gamma(self, vertex: int) -> Gamma | None:
        """gamma of the vertex (None when the graph is not played to normal play)."""
        gamma = self.solution.gamma
        if gamma is None:
            return None
        g = int(gamma[vertex])
        if g == INFINITE:
            return None, infinity_set(self.indptr, self.indices, gamma, vertex)
        return g, frozenset()

    def value_of(self, vertex: int, *, note: bool = False) -> Value:
        """The vertex's value; with `note`, an infinite generalised Sprague-Grundy value is named in the
        value's `note` (it has no `grundy`)."""
        solution = self.solution
        found = solution.packed.lookup(vertex)
        assert found is not None
        outcome, remoteness = found
        grundy = None
        text = None
        if solution.gamma is not None and solution.gamma[vertex] >= 0:
            grundy = int(solution.gamma[vertex])
        elif solution.gamma is not None and note:
            gamma = self.gamma(vertex)
            assert gamma is not None
            text = (
                f"the generalised Sprague-Grundy value of this loopy position is {gamma_text(gamma)}: "
                "infinite, so no grundy"
            )
        return Value(
            self.game_id,
            self.vertices[vertex],
            _OUTCOMES[outcome],
            grundy,
            remoteness if remoteness >= 0 else None,
            self.source,
            None if text is None else GraphValue(text),
        )

    def successors(self, vertex: int) -> I64:
        """The distinct vertices one move leads to (by index)."""
        return np.unique(self.indices[self.indptr[vertex] : self.indptr[vertex + 1]]).astype(np.int64)

    def ranked(self, targets: I64, wanted: int) -> I64:
        """The best `wanted` of the moves to `targets`, best first in `move_rank`'s order (the fastest
        win, then draws, then the slowest loss; ties by name).

        Ranked on the packed solution's arrays: a vertex may have millions of moves, and only those
        returned become names and Values. Names are compared only among the moves up to the last one
        returned and those tied with it."""
        if wanted <= 0:
            return targets[:0]
        outcome, remoteness, _ = self.solution.packed.lookup_many(targets)
        group = np.where(outcome == LOSS, 0, np.where(outcome == WIN, 2, 1)).astype(np.int64)
        within = np.where(group == 0, remoteness, np.where(group == 2, -remoteness.astype(np.int64), 0))
        key = (group << 40) + within  # remoteness < 2^31: the groups never overlap
        order = np.argsort(key, kind="stable")
        if wanted < len(order):
            order = order[: int(np.searchsorted(key[order], key[order[wanted - 1]], side="right"))]
        names = np.array([self.vertices[v] for v in targets[order].tolist()])
        return targets[order[np.lexsort((names, key[order]))][:wanted]]

    def stats_of(self, kernel_limit: int | None = None) -> dict[str, object]:
        """wins, losses, draws, longest_win (and longest_loss) in plies; kernel for acyclic graphs
        played to normal play (the names, or their count past `kernel_limit`)."""
        solution = self.solution
        outcome, remoteness, _ = solution.packed.unpack()
        wins = outcome == WIN
        losses = outcome == LOSS
        out: dict[str, object] = {
            "game": self.game_id,
            "vertices": len(self.vertices),
            "edges": self.edge_count,
            "wins": int(wins.sum()),
            "losses": int(losses.sum()),
            "draws": int((outcome == 0).sum()),
            "longest_win": int(remoteness[wins].max(initial=0)),
            "longest_loss": int(remoteness[losses].max(initial=0)),
            "acyclic": solution.acyclic,
            "source": self.source,
        }
        if solution.gamma is not None:
            finite = solution.gamma[solution.gamma >= 0]
            out["max_grundy"] = int(finite.max(initial=0))
            out["infinite_grundy"] = int((solution.gamma == INFINITE).sum())
            if solution.acyclic:
                kernel = np.flatnonzero(solution.gamma == 0)
                if kernel_limit is None or kernel.size <= kernel_limit:
                    out["kernel"] = [self.vertices[int(v)] for v in kernel]
                else:
                    out["kernel"] = int(kernel.size)
        return out

    # -- GameKind --------------------------------------------------------------------------------------

    def info(self) -> GameInfo:
        return GameInfo(
            id=self.game_id,
            name=f"Game graph {self.name}",
            description=(
                f"Moves along the edges of the uploaded graph {self.name!r} ({len(self.vertices)} vertices, "
                f"{self.edge_count} edges); a vertex with no move ends the game as labelled (loss by "
                "default). Cycles allowed: draws possible."
            ),
            position_syntax="a vertex name of the graph",
            examples=tuple(self.vertices[:3]),
        )

    def parse(self, text: str) -> int:
        vertex = self.index.get(text)
        if vertex is None:
            raise InvalidPosition(f"vertex {quote_position(text)} is not in graph {self.name!r}")
        return vertex

    def format(self, position: int) -> str:
        return self.vertices[position]

    def value(self, position: int, ctx: Context) -> Value:
        return self.value_of(position, note=True)

    def best_moves(self, position: int, limit: int | None, ctx: Context) -> BestMoveResult:
        """The moves ranked in `ranked_successors`, only as many as the answer lists valued (all when
        they are at most `ranked_moves`, else the first `limit`; none when too many are asked for)."""
        check_limit(limit, ctx.limits)
        targets = self.successors(position)
        count = len(targets)
        # Every move when there are few; else the first `limit` (none without one: list_moves refuses it).
        wanted = count if count <= ctx.limits.ranked_moves else min(limit or 0, count)
        ranked = [
            MoveValue(self.vertices[w], self.value_of(w)) for w in self.ranked(targets, wanted).tolist()
        ]
        by_name = {move.move: move.value for move in ranked}

        def every() -> Iterator[MoveTo[str]]:
            return ((move.move, None, move.move) for move in ranked)

        def winning() -> Iterator[MoveTo[str]]:
            return ((move.move, None, move.move) for move in ranked if move.value.outcome == "P")

        return list_moves(
            self.value_of(position, note=True),
            count,
            every,
            winning,
            lambda name, _ranked: by_name[name],
            limit,
            ctx.limits,
            ctx.deadline,
        )

    def stats(self, ctx: Context) -> dict[str, object]:
        return self.stats_of(ctx.limits.stats_p_positions)

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
        """The job storing the graph's solution (family "solution"; `upto` and `fill` do not apply: the
        whole solution is stored; the plan counts the vertices)."""
        if family not in (None, SOLUTION):
            raise InvalidArgument(
                f"{self.game_id} stores only the family {SOLUTION!r}, not {quote_token(family or '')}"
            )
        return JobPlan(self.game_id, SOLUTION, len(self.vertices), True)

    def kernel_for(self, family: str) -> SequenceKernel | None:
        return SolutionKernel(self) if family == SOLUTION else None

    def memory_bytes(self) -> int:
        """The names (characters and `NAME_BYTES` each) and the CSR arrays, and the solution it was made
        with, if any. A served game's solution is not the kind's: the keeper (`Context.kept`) counts it."""
        n = len(self.vertices)
        names = sum(map(len, self.vertices)) + NAME_BYTES * n
        arrays = self.indptr.nbytes + self.indices.nbytes + self.terminal.nbytes
        solved = 0 if self._solution is None else solution_bytes(self._solution)
        return int(names + arrays + solved)


def solution_bytes(solution: GraphSolution) -> int:
    """What a solution weighs: its packed outcomes and remoteness, and gamma."""
    gamma = 0 if solution.gamma is None else solution.gamma.nbytes
    return int(solution.packed.nbytes + gamma)


#: The names of an acyclic graph's kernel its stored statistics list (past them, its count).
STORED_KERNEL_NAMES = 10_000


class SolutionKernel(BytesKernel):
    """What a worker runs for the family "solution" of a graph: the graph solved (`solve`, with its
    progress), as `GraphSolution.to_bytes`."""

    family = SOLUTION
    stores_stats = True

    def __init__(self, game: GraphGame) -> None:
        super().__init__()
        self.game = game
        self._stats: dict[str, Any] | None = None

    def make(self, progress: Callable[[int, int], None] | None = None) -> bytes:
        game = self.game
        solution = solve(game.indptr, game.indices, game.terminal, progress)
        # Its statistics, stored beside it (GetStats reads them, not the solution), the kernel's names
        # listed up to STORED_KERNEL_NAMES (past them, its count).
        self._stats = game.with_solution(solution, "table").stats_of(STORED_KERNEL_NAMES)
        return solution.to_bytes()

    def object_stats(self) -> dict[str, Any] | None:
        return self._stats


class StoredGraphGame(GraphGame):
    """`graph:NAME` as served (what `NeedsGraph` binds to): values from the solution a worker stored
    (read once through `ctx.tables`, `source` "table"), else from one solved for the request when the
    graph has at most `GraphSettings.live_edges` edges (`source` "live", kept until a stored one
    replaces it; in the process the request arrived at up to `SOLVED_HERE_EDGES` edges, else in a live
    process), else FAILED_PRECONDITION saying the solve is pending, naming the job queued (or open)
    to solve it. The solution is kept by the service's keeper (`SOLUTIONS`), not by
    the kind."""

    def solved_game(self, ctx: Context) -> GraphGame:
        """The game answering from its solution (`SOLUTIONS`): kept, else the stored
        one, else one solved live, else the refusal naming the job queued to solve it."""

        def read() -> GraphSolution | None:
            stored = read_stored(
                self.game_id, SOLUTION, ctx, "a stored graph solution", GraphSolution.from_bytes
            )
            return stored if stored is not None and len(stored.packed) == len(self.vertices) else None

        def refuse() -> None:
            most = ctx.settings_for(GraphSettings).live_edges
            if self.edge_count > most:
                raise ctx.tables.refusal(
                    self.game_id,
                    SOLUTION,
                    f"the solve of graph {self.name!r} is pending: it has {self.edge_count} edges, more than "
                    f"the {most} solved for a request ({SETTINGS.variable('live_edges')}), so its values are "
                    "answered once a worker job has solved it",
                    precondition=True,
                )

        kept = ctx.kept.keeper(SOLUTIONS).get(
            (FAMILY, self.game_id, len(self.vertices), self.edge_count),
            ctx.deadline,
            what=f"solving graph {self.name!r}",
            read=read,
            make=self.solve,
            weigh=solution_bytes,
            refuse=refuse,
            before_make=None if self.edge_count <= SOLVED_HERE_EDGES else ctx.tables.may_compute,
        )
        return self.with_solution(kept.value, kept.source)

    def value(self, position: int, ctx: Context) -> Value:
        return self.solved_game(ctx).value(position, ctx)

    def best_moves(self, position: int, limit: int | None, ctx: Context) -> BestMoveResult:
        return self.solved_game(ctx).best_moves(position, limit, ctx)

    def stats(self, ctx: Context) -> dict[str, object]:
        """From the statistics its solve job stored beside the solution, where they say all that is asked
        (the kernel's names up to the request's limit), else from the solution."""
        stored = ctx.tables.stored_stats(self.game_id, SOLUTION)
        if stored is not None and (stored.get("vertices"), stored.get("edges")) == (
            len(self.vertices),
            self.edge_count,
        ):
            answer = dict(stored)
            kernel = answer.get("kernel")
            listed = ctx.limits.stats_p_positions
            if isinstance(kernel, list) and len(kernel) > listed:
                answer["kernel"] = len(kernel)
            if not (isinstance(kernel, int) and kernel <= listed):  # else names it did not keep
                return answer
        return self.solved_game(ctx).stats(ctx)


def parse_graph_kind(params: str | None, text: str) -> GameKind[Any]:
    """The kind `graph:NAME` names: one the service binds to the uploaded graph NAME once it has loaded
    it (`NeedsGraph`, bound to a `StoredGraphGame`)."""
    if params is None:
        raise InvalidGameId(f"game id {text!r} needs a graph name, e.g. 'graph:path4' (POST /v1/graphs)")
    name = check_graph_name(params, error=InvalidGameId)
    return UnboundGraphGame(f"{FAMILY}:{name}", name, StoredGraphGame.from_upload)


class UnboundGraphGame(NeedsGraph):
    """`graph:NAME` before the service has bound it to its graph. Its warm-up plays on a graph with a
    cycle (`NeedsGraph.warm_up_graph`), whose gamma the loopy kernel finds; a graph without cycles takes
    another kernel (gamma as the mex in topological order), loaded here: else the first graph without
    cycles asked for loaded it under its request (211 ms on a fresh machine)."""

    def load_kernels(self) -> None:
        indptr, indices = csr_from_edges(2, np.array([0], np.int32), np.array([1], np.int32))
        solve(indptr, indices, np.full(2, LOSS, dtype=np.int8))  # a -> b: no cycle


def family_info() -> GameInfo:
    """How ListGames describes the family (the id names no graph: NAME is an uploaded graph's name)."""
    return GameInfo(
        id=f"{FAMILY}:NAME",
        name="Game graphs",
        description=(
            "graph:NAME plays on the directed graph uploaded as NAME (POST /v1/graphs, or UploadGraph): a "
            "move follows an edge, a vertex with no move ends the game as its terminal label says (win, loss "
            "or draw for the player to move; loss by default). Cycles allowed: draws possible. Values with "
            "remoteness, the generalised Sprague-Grundy value of loopy graphs played to normal play, and "
            "GetStats' kernel of acyclic ones; a worker job stores the solution."
        ),
        position_syntax="a vertex name of the graph",
        examples=("a", "b"),
    )


#: The family's registry entry (pyproject.toml's entry point `graph`).
ENTRY = Family(parse=parse_graph_kind, info=family_info, settings=SETTINGS, misere=False, order=80)
