"""The Lights Out GameKind: boards valued (solvable, a solution, the fewest presses), presses ranked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from engine.errors import (
    InvalidArgument,
    LimitExceeded,
    NotApplicable,
)
from engine.families import Family
from engine.graphs import UploadedGraph
from engine.kind import Context, GameKind, SequenceKernel
from engine.moves import check_limit
from engine.needs_graph import NeedsGraph
from engine.positions import parse_decimal, quote_position, quote_token
from engine.precompute import JobPlan
from engine.values import BestMoveResult, GameInfo, MoveValue, Source, Value
from kinds.lights_out.boards import Board, GraphRef, format_board, parse_board, parse_lights_out_id
from kinds.lights_out.kernels.gf2 import (
    U8,
    CosetSearch,
    int_to_bits,
    pack_bits,
    reduce_greedily,
    unpack_bits,
)
from kinds.lights_out.records import LightsOutPress, LightsOutValue
from kinds.lights_out.settings import SETTINGS
from kinds.lights_out.shape import (
    MAX_BOARD_SIDE,
    MAX_GRAPH_EDGES,
    MAX_GRAPH_VERTICES,
    MAX_SIDE,
    Shape,
    graph_of_edges,
    grid_neighbourhoods_reference,
)
from kinds.lights_out.solver import ShapeSolver, chase_plan
from kinds.lights_out.stats import (
    STATS_JOB_CELLS,
    EliminationStatsKernel,
    ShapeStatistics,
    StatsKernel,
)
from kinds.lights_out.stored import (
    ELIMINATION,
    STATS,
    elimination_words_bound,
    solver_of,
    stats_words_bound,
)

I64 = NDArray[np.int64]


#: The fewest-presses walk: at most 2^SEARCH_NULLITY combinations and SEARCH_WORK word operations.
SEARCH_NULLITY = 24
SEARCH_WORK = 2**27

# -- answers ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PuzzleAnswer:
    """What is known of one board: whether it is solvable, a solution (the presses), and the fewest
    presses (`remoteness`) when the search for them ran (`searched`). An unsolvable board has no
    solution and no remoteness, and counts as searched (the answer is complete)."""

    solvable: bool
    solution: tuple[str, ...] | None
    remoteness: int | None
    searched: bool
    #: Why `remoteness` is absent from a solvable board's answer, when it is.
    note: str | None = None

    def value(self, game_id: str, position: str, source: Source = "live") -> Value:
        """The answer as the service gives it: no outcome, `solvable`, `solution` and `remoteness` (the
        fewest presses, where searched), `note` where it is not."""
        return Value(
            game_id,
            position,
            None,
            None,
            self.remoteness,
            source,
            LightsOutValue(self.solvable, self.solution, self.note),
        )


@dataclass(frozen=True, slots=True)
class PressValue:
    """One press from a board, and the answer for the board it leads to (`LightsOut.press` gives that
    board). The answer carries no `solution` (a move lists its remoteness only)."""

    press: str
    index: int
    answer: PuzzleAnswer


@dataclass(frozen=True, slots=True)
class _Solved:
    """One board searched (`LightsOut._search`): the shape's solver and a solution `x` (None: the board
    is unsolvable), with the walk over x's coset (`found`) where it ran, or where the walk is past the
    search limits x lightened greedily (`light`); neither where the nullity is 0 (x is the only one)."""

    solver: ShapeSolver
    x: U8 | None
    found: CosetSearch | None = None
    light: U8 | None = None


def _not_searched_note(nullity: int) -> str:
    return (
        f"the null space has dimension {nullity}: too large to search for the fewest presses within the "
        "live limits, so the solution given is not necessarily the shortest"
    )


class LightsOut(GameKind[Board]):
    """One Lights Out shape as the service sees it."""

    def __init__(self, shape: Shape) -> None:
        self.shape = shape
        self.game_id = shape.game_id

    @classmethod
    def for_uploaded(cls, graph: UploadedGraph) -> LightsOut:
        """The kind of `lights-out:graph:NAME` once the service has loaded the uploaded graph: its edges
        read as undirected (InvalidArgument for a self-loop; RESOURCE_EXHAUSTED past 100,000 vertices or
        2,000,000 edges)."""
        if graph.vertex_count > MAX_GRAPH_VERTICES or graph.edge_count > MAX_GRAPH_EDGES:
            raise LimitExceeded(
                f"graph {graph.name!r} ({graph.vertex_count} vertices, {graph.edge_count} edges) is beyond "
                f"what Lights Out is played on: at most {MAX_GRAPH_VERTICES} vertices and "
                f"{MAX_GRAPH_EDGES} edges"
            )
        return cls(Shape.of_graph(graph_of_edges(graph.name, graph.vertices, graph.sources, graph.targets)))

    def info(self) -> GameInfo:
        s = self.shape
        if s.graph is not None:
            what = f"the graph {s.graph.name!r} ({s.cells} vertices, {s.graph.edge_count} edges)"
            syntax = "one 0 (white) or 1 (black) per vertex, in the graph's vertex order"
            examples: tuple[str, ...] = ("0" * min(s.cells, 64),) if s.cells <= 64 else ()
        else:
            what = f"a {s.rows} x {s.cols} board" + ("" if s.topology == "plane" else f" on the {s.topology}")
            syntax = "rows of 0 (white) and 1 (black) joined by '/', top row first, e.g. '000/011/011'"
            examples = _board_examples(s)
        return GameInfo(
            id=self.game_id,
            name="Lights Out" + ("" if s.topology in ("plane", "graph") else f" ({s.topology})"),
            description=(
                f"One-player puzzle on {what}: a press flips a cell and its neighbours; solve the board "
                f"to all white with the fewest presses. {FAMILY_DESCRIPTION}"
            ),
            position_syntax=syntax,
            examples=examples,
        )

    # -- text ---------------------------------------------------------------------------------------

    def parse(self, text: str) -> Board:
        return parse_board(self.shape, text)

    def format(self, board: Board) -> str:
        return format_board(self.shape, board)

    def press_name(self, index: int) -> str:
        s = self.shape
        if s.graph is not None:
            return s.graph.vertices[index]
        r, c = divmod(index, s.cols)
        if s.rows <= 9 and s.cols <= 9:
            return f"{r + 1}{c + 1}"
        return f"{r + 1},{c + 1}"

    def parse_press(self, text: str) -> int:
        """The cell a press names (`RC` on boards of at most 9 x 9, `r,c` on any; a vertex name on
        graphs); InvalidArgument quoting it otherwise."""
        s = self.shape
        if s.graph is not None:
            try:
                return s.graph.vertices.index(text)
            except ValueError:
                raise InvalidArgument(
                    f"press {quote_token(text)} names no vertex of {self.game_id}"
                ) from None
        small = s.rows <= 9 and s.cols <= 9
        if "," in text:
            row_text, _, col_text = text.partition(",")
        elif small and len(text) == 2:
            row_text, col_text = text[0], text[1]
        else:
            raise InvalidArgument(
                f"press {quote_token(text)} is not 'r,c'"
                + (" or 'RC'" if small else "")
                + f" on {self.game_id}"
            )
        where = f" in press {quote_token(text)}"
        r = parse_decimal(row_text, what="row", where=where, limit=MAX_SIDE, error=InvalidArgument)
        c = parse_decimal(col_text, what="column", where=where, limit=MAX_SIDE, error=InvalidArgument)
        if not (1 <= r <= s.rows and 1 <= c <= s.cols):
            raise InvalidArgument(f"press {quote_token(text)} is off the {s.rows} x {s.cols} board")
        return (r - 1) * s.cols + (c - 1)

    def flip_set(self, index: int) -> Board:
        """The cells press `index` flips, as a board (from the shape's flip sets, built for the call)."""
        return _flip_board(*self.shape.neighbourhoods(), index)

    def press(self, board: Board, index: int) -> Board:
        """The board after press `index`."""
        return board ^ self.flip_set(index)

    # -- values -------------------------------------------------------------------------------------

    def _search(self, board: Board, solver: ShapeSolver, max_nullity: int, max_work: int) -> _Solved:
        """One chase and at most one walk: what both the board's answer (`_answer_of`) and every
        press's (`_press_values_of`) are made of."""
        x = solver.elimination.solve(int_to_bits(board, self.shape.cells))
        if x is None or solver.nullity == 0:
            return _Solved(solver, x)
        if not solver.searchable(max_nullity, max_work):
            light = reduce_greedily(pack_bits(x), solver.elimination.null_basis)
            return _Solved(solver, x, light=unpack_bits(light, self.shape.cells))
        return _Solved(solver, x, found=solver.search(x))

    def solve(
        self, board: Board, ctx: Context, *, max_nullity: int = SEARCH_NULLITY, max_work: int = SEARCH_WORK
    ) -> PuzzleAnswer:
        """Whether the board is solvable, the fewest presses that solve it and which (or, past the search
        limits, a solution with `remoteness` absent)."""
        return self._answer_of(self._search(board, solver_of(self.shape, ctx).value, max_nullity, max_work))

    def _answer_of(self, solved: _Solved) -> PuzzleAnswer:
        """The board's answer from its search (`solve`)."""
        x = solved.x
        if x is None:
            return PuzzleAnswer(False, None, None, True)
        if solved.light is not None:
            answer = self._answer(solved.light, searched=False)
            return PuzzleAnswer(True, answer.solution, None, False, _not_searched_note(solved.solver.nullity))
        if solved.found is None:
            return self._answer(x, searched=True)
        cells, _ = solved.solver.support()
        best = x.copy()
        best[cells] = unpack_bits(solved.found.best, int(cells.size))
        return self._answer(best, searched=True)

    def _answer(self, x: U8, *, searched: bool) -> PuzzleAnswer:
        presses = tuple(self.press_name(int(i)) for i in np.flatnonzero(x))
        return PuzzleAnswer(True, presses, len(presses) if searched else None, searched)

    def press_values(
        self,
        board: Board,
        ctx: Context,
        limit: int | None = None,
        *,
        max_nullity: int = SEARCH_NULLITY,
        max_work: int = SEARCH_WORK,
    ) -> list[PressValue]:
        """Every press (or the first `limit`) with the answer for the board it leads to, best first:
        fewest presses left, then cell order. Where the search does not run, the presses of the
        solution given come first (each undoes one of them), remoteness absent."""
        solver = solver_of(self.shape, ctx).value
        return self._press_values_of(self._search(board, solver, max_nullity, max_work), limit)

    def _press_values_of(self, solved: _Solved, limit: int | None) -> list[PressValue]:
        """Every press's answer from the board's search (`press_values`)."""
        n = self.shape.cells
        if solved.x is None:
            unsolvable = PuzzleAnswer(False, None, None, True)
            count = n if limit is None else min(limit, n)
            return [PressValue(self.press_name(i), i, unsolvable) for i in range(count)]
        if solved.light is None:
            weights = self._flip_weights(solved)
            order = np.lexsort((np.arange(n), weights))
            if limit is not None:
                order = order[:limit]
            return [
                PressValue(self.press_name(int(i)), int(i), PuzzleAnswer(True, None, int(weights[i]), True))
                for i in order
            ]
        order = np.lexsort((np.arange(n), 1 - solved.light.astype(np.int64)))
        if limit is not None:
            order = order[:limit]
        unknown = PuzzleAnswer(True, None, None, False, _not_searched_note(solved.solver.nullity))
        return [PressValue(self.press_name(int(i)), int(i), unknown) for i in order]

    def _flip_weights(self, solved: _Solved) -> I64:
        """Fewest presses of the board each press leads to (the coset of x + e_j), from the walk over
        the coset of the solution x (or x alone where the nullity is 0)."""
        x = solved.x
        assert x is not None
        found = solved.found
        if found is None:
            weight = int(x.sum())
            return np.where(x.astype(bool), weight - 1, weight + 1).astype(np.int64)
        cells, _ = solved.solver.support()
        off = np.ones(self.shape.cells, dtype=bool)
        off[cells] = False
        # found.weight counts the support only: every vector of the coset also has x's bits off it
        off_weight = int(x[off].sum())
        lightest = found.weight + off_weight
        out = np.where(x.astype(bool), lightest - 1, lightest + 1).astype(np.int64)
        out[cells] = found.flip_weights(int(cells.size)) + off_weight
        return out

    # -- the service's questions (GameKind) ---------------------------------------------------------

    def _solved(self, position: Board, ctx: Context) -> tuple[str, _Solved, Source]:
        """The position's text, its search and where the elimination came from, within the request's
        context."""
        kept = solver_of(self.shape, ctx)
        text = self.format(position)
        ctx.deadline.check(lambda: f"solving {quote_position(text)} of {self.game_id}")
        return text, self._search(position, kept.value, SEARCH_NULLITY, SEARCH_WORK), kept.source

    def value(self, position: Board, ctx: Context) -> Value:
        """GetValue: solvable, a solution, and the fewest presses where the search runs (else `note`)."""
        text, solved, source = self._solved(position, ctx)
        return self._answer_of(solved).value(self.game_id, text, source)

    def best_moves(self, position: Board, limit: int | None, ctx: Context) -> BestMoveResult:
        """BestMove: every press (or the first `limit`), each with the answer for the board it leads
        to, best first (fewest presses left, then cell order; boards left unsolvable last). The board
        is solved once: its answer and every press's come from the same chase and walk."""
        check_limit(limit, ctx.limits)
        text, solved, source = self._solved(position, ctx)
        value = self._answer_of(solved).value(self.game_id, text, source)
        n = self.shape.cells
        if limit is None and n > ctx.limits.ranked_moves:
            raise LimitExceeded(
                f"position {quote_position(value.position)} has {n} presses, more than the "
                f"{ctx.limits.ranked_moves} listed without a limit; pass limit (at most "
                f"{ctx.limits.listed_moves})"
            )
        wanted = n if limit is None else min(n, limit)
        if wanted * len(value.position) > ctx.limits.answer_chars:
            fits = max(1, ctx.limits.answer_chars // max(1, len(value.position)))
            raise LimitExceeded(
                f"{wanted} moves of the {len(value.position)}-character board "
                f"{quote_position(value.position)} would hold more than {ctx.limits.answer_chars} characters "
                f"of positions, the most one answer may; ask for at most {fits} moves (limit)"
            )
        indptr, indices = solved.solver.flip_sets
        moves: list[MoveValue] = []
        for press in self._press_values_of(solved, wanted):
            if len(moves) % 256 == 0:
                ctx.deadline.check(
                    lambda: (
                        f"listing the presses of {quote_position(value.position)} ({len(moves)} of {wanted})"
                    )
                )
            answer = press.answer
            after = self.format(position ^ _flip_board(indptr, indices, press.index))
            reached = Value(self.game_id, after, None, None, answer.remoteness, source)
            moves.append(MoveValue(press.press, reached, LightsOutPress(answer.solvable)))
        return BestMoveResult(value, moves)

    def stats(self, ctx: Context) -> dict[str, object]:
        """GetStats (`ShapeStatistics.stats`)."""
        return ShapeStatistics(self.shape).stats(ctx)

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
        """The job storing the shape's elimination (family "elimination", the default), so every server
        reads it instead of eliminating again, or its statistics (family "stats": rank, nullity,
        diameter and distance counts past the live limits, within STATS_JOB_WORK). `upto` and `fill`
        do not apply: the whole object is stored (the worker stores exactly its words).

        Planning eliminates nothing: the plan counts at most the words the object takes, from the
        shape's size and its chase (`elimination_words_bound`, `stats_words_bound`), and refuses what
        that tells (an unknown family, a shape too wide to eliminate, plane boards past 256 x 256 where
        they have no elimination). A stats walk past STATS_JOB_WORK shows only once the job has the
        null space: the job then fails, its error saying so (`ShapeStatistics.job_stats`)."""
        if family not in (None, ELIMINATION, STATS):
            raise InvalidArgument(
                f"{self.game_id} stores the families {ELIMINATION!r} and {STATS!r}, not "
                f"{quote_token(family or '')}"
            )
        s = self.shape
        if family == STATS:
            statistics = ShapeStatistics(s)
            statistics.refuse_polynomial()
            statistics.check_stats_elimination()
            counts_listed = s.cells <= STATS_JOB_CELLS
            return JobPlan(self.game_id, STATS, stats_words_bound(s.cells, s.cells, counts_listed), True)
        if s.graph is None and max(s.rows, s.cols) > MAX_BOARD_SIDE:
            raise NotApplicable(
                f"{self.game_id}: only shapes whose boards are valued (sides up to {MAX_BOARD_SIDE}) keep an "
                "elimination to store"
            )
        _, indices, _, k = chase_plan(s)
        return JobPlan(self.game_id, ELIMINATION, elimination_words_bound(s.cells, len(indices), k), True)

    def kernel_for(self, family: str) -> SequenceKernel | None:
        if family == ELIMINATION:
            return EliminationStatsKernel(self.shape)
        if family == STATS:
            return StatsKernel(self.shape)
        return None

    def p_position(self, board: Board, ctx: object = None) -> NoReturn:
        """IsPPosition: a puzzle has no P-positions (FAILED_PRECONDITION)."""
        raise NotApplicable(
            f"{self.game_id!r} is a one-player puzzle: it has no P-positions (ask GetValue whether a board "
            "is solvable)"
        )

    def memory_bytes(self) -> int:
        """A graph's shape: its names (characters and 64 bytes each: the str and its tuple slot) and
        CSR arrays, and the flip sets a call may build (8 bytes an entry). A grid's holds its sides
        only. The elimination is not the kind's: the service's keeper (`settings.ELIMINATIONS`) keeps
        it, shared by equal shapes, and counting it here would not free it."""
        graph = self.shape.graph
        if graph is None:
            return super().memory_bytes()
        n = len(graph.vertices)
        names = sum(map(len, graph.vertices)) + 64 * n
        flips = 8 * (n + 1) + 8 * (int(graph.indices.shape[0]) + n)
        return int(names + graph.indptr.nbytes + graph.indices.nbytes + flips)


def _flip_board(indptr: I64, indices: I64, index: int) -> Board:
    """The cells press `index` flips (flip sets as CSR arrays), as a board."""
    return sum(1 << int(v) for v in indices[indptr[index] : indptr[index + 1]])


def _board_examples(shape: Shape) -> tuple[str, ...]:
    """Example boards of a small grid: the seed's 3 x 3 example's corner where it fits, the flip set of
    the middle press, all black."""
    if shape.cells > 64:
        return ()
    middle = (shape.rows // 2) * shape.cols + shape.cols // 2
    flips = grid_neighbourhoods_reference(shape.rows, shape.cols, shape.topology)[middle]
    cross = sum(1 << (r * shape.cols + c) for r, c in flips)
    examples = [format_board(shape, cross), format_board(shape, (1 << shape.cells) - 1)]
    if shape.rows >= 3 and shape.cols >= 3:
        corner = sum(1 << (r * shape.cols + c) for r in (1, 2) for c in (1, 2))
        examples.insert(0, format_board(shape, corner))
    return tuple(examples)


#: What every shape's ListGames entry says of the family.
FAMILY_DESCRIPTION = (
    "lights-out:RxC[:TOPOLOGY] (TOPOLOGY plane, torus, klein, projective, cylinder or moebius; boards up to "
    "256 x 256, statistics up to 100000 x 100000) or lights-out:graph:NAME on an uploaded graph "
    "(POST /v1/graphs). Presses are named RC (row, column from 1) up to 9 x 9, else r,c."
)


def parse_lights_out_kind(params: str | None, text: str) -> GameKind[Any]:
    """The kind a `lights-out:...` game id names: a shape's, or for `lights-out:graph:NAME` one that the
    service binds to the uploaded graph NAME once it has loaded it (`NeedsGraph`)."""
    shape = parse_lights_out_id(params, text)
    if isinstance(shape, GraphRef):
        return NeedsGraph(shape.game_id, shape.name, LightsOut.for_uploaded)
    return LightsOut(shape)


def family_info() -> GameInfo:
    """How ListGames describes the family (its first listed shape)."""
    return LightsOut(Shape.grid(5, 5)).info()


def family_classics() -> list[GameInfo]:
    """The shapes ListGames shows for the family: the classic 5 x 5 board, and on the torus."""
    return [LightsOut(Shape.grid(5, 5)).info(), LightsOut(Shape.grid(5, 5, "torus")).info()]


#: The family's registry entry (pyproject.toml's entry point `lights-out`): ListGames lists two shapes.
ENTRY = Family(
    parse=parse_lights_out_kind,
    info=family_info,
    classics=family_classics,
    settings=SETTINGS,
    misere=False,
    order=70,
)
