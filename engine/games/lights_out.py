"""Lights Out (seed 002, "le jeu reversi"): pressing a cell flips it and its neighbours; the goal is the
all-white board.

Boards and presses are vectors of F2^n (n cells; 1 = black); press j adds its flip set N[j] (the cell
and its neighbours, each once however many sides they share), so a board b is solved by the presses x
with A x = b, A the press matrix (column j = N[j]; A is symmetric). Solutions form a coset x0 + N of
the null space N; the fewest presses (`remoteness`) is the least weight in it.

Shapes:
- `lights-out:RxC[:TOPOLOGY]`, R rows and C columns, 1 to 100,000 each (positions: up to 256 x 256).
  Sides are glued as in seed 002 section 4.1, (left-right, top-bottom): plane (free, free), cylinder
  (kept, free), moebius (reversed, free), torus (kept, kept), klein (kept, reversed), projective
  (reversed, reversed). Kept: (r, 1) is next to (r, C), and (1, c) to (R, c); reversed: (r, 1) is
  next to (R + 1 - r, C), and (1, c) to (R, C + 1 - c). The 3 x 3 flip sets are the seed's T, K, P.
- `lights-out:graph:NAME`, an uploaded undirected graph (up to 100,000 vertices; edges naming unknown
  vertices, self-loops and duplicate vertex names are refused, an edge given twice counts once).

Positions: rows of 0/1 joined by `/` (`000/011/011`), top row first; for graphs one 0/1 per vertex in
the graph's vertex order. That text is also the canonical form.

Presses are named by their cell, rows and columns numbered from 1 as in the seed: `RC` (two digits,
e.g. `12` for row 1, column 2) on boards of at most 9 rows and 9 columns, `r,c` (e.g. `12,3`) on
larger ones; `parse_press` also reads `r,c` on small boards. On graphs a press is its vertex's name.

The elimination of a shape (engine.kernels.gf2.chase_eliminate) is done once per shape and kept (a
bounded LRU, which storage can fill: `remember`): its cells are chased in the order that needs the
fewest free unknowns (row or column order for the plane, rows or columns folded in pairs (1, R),
(2, R - 1), ... where the gluing joins far rows or columns, breadth-first for graphs), which leaves a
k x k system, k <= 2 min(R, C). Solving a board is then two O(cells) chases and a k x k product.
The fewest presses is a Gray-code walk over the null space (2^nullity steps, on the cells some null
vector presses) where it fits `SEARCH_NULLITY` and `SEARCH_WORK`; past them the answer is a solution
lightened greedily, `remoteness` absent and `searched` false, with a `note` saying so. The same walk
gives every press's remoteness for BestMove (`press_values`).

Shape statistics (GetStats) come from the elimination (rank, nullity, and the distance counts by
engine.kernels.lights_out_stats), made for the purpose and not kept for grids past 256 x 256 while
cells x 2 min(R, C) fits `MAX_CHASE_BITS`; plane boards past 256 x 256 use the polynomial method
(engine.games.chebyshev_f2): rank and nullity for any side up to 100,000. Live, the distance counts
are listed for shapes of at most `STATS_DISTANCE_CELLS` cells and, with the diameter, within
`STATS_WORK`; past that a `note` says so. A worker job of the family "stats" (`StatsKernel`,
`LightsOut.job_stats`) goes much further: the walk within `STATS_JOB_WORK` (about half an hour of
work; the counts listed up to `STATS_JOB_CELLS` cells), stored as JSON (`stats_bytes`), which GetStats
reads first (`source: "table"`). Plane boards past 256 x 256 have no null space to walk: refused.

`LightsOut` is the shapes' GameKind: answers carry no outcome but `solvable`, `solution` (press names)
and `remoteness` (the fewest presses, or absent with a `note`); BestMove lists presses; IsPPosition does
not apply (FAILED_PRECONDITION). `lights-out:graph:NAME` parses to a `NeedsGraph` that the service binds
to the uploaded graph (`LightsOut.for_uploaded`, edges read as undirected). A worker job stores a
shape's elimination as the family "elimination" (the default; `plan_job`, `EliminationKernel`: numpy's
.npz bytes of `ChaseElimination.to_arrays` as uint32 words, engine.stored_bytes), which the kind reads
through `ctx.tables` before eliminating live, and again every `STORED_RECHECK_SECONDS` (`StoredLook`)
while the one it keeps was made live (a job may have stored one since); answers from a stored one say
`source: "table"`, others `"live"`. The family "stats" stores the shape's statistics (above).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypedDict

import numpy as np
from numpy.typing import NDArray

from engine.errors import (
    InvalidArgument,
    InvalidGameId,
    InvalidPosition,
    LimitExceeded,
    NotApplicable,
)
from engine.games.chebyshev_f2 import plane_nullity
from engine.games.lights_out_records import LightsOutPress, LightsOutValue
from engine.graphs import NeedsGraph, UploadedGraph
from engine.kernels.gf2 import (
    U8,
    U64,
    ChaseElimination,
    CosetSearch,
    TooWide,
    bfs_order,
    chase_eliminate,
    chase_unknowns,
    coset_search,
    int_to_bits,
    pack_bits,
    reduce_greedily,
    unpack_bits,
    words_for,
)
from engine.kernels.lights_out_stats import (
    MAX_TYPE_NULLITY,
    coset_leader_counts,
    type_walk_work,
)
from engine.kind import Context, GameKind, SequenceKernel
from engine.moves import check_limit
from engine.positions import check_length, parse_decimal, quote_position, quote_token
from engine.precompute import JobPlan
from engine.stored_bytes import BytesKernel, StoredLook, decode_words, encode_words, read_stored
from engine.stored_bytes import words_for as stored_words_for
from engine.values import BestMoveResult, GameInfo, MoveValue, Source, Value

I64 = NDArray[np.int64]

FAMILY = "lights-out"
#: The topologies, and their gluing of (left and right sides, top and bottom sides).
GLUING: dict[str, tuple[str | None, str | None]] = {
    "plane": (None, None),
    "torus": ("keep", "keep"),
    "klein": ("keep", "reverse"),
    "projective": ("reverse", "reverse"),
    "cylinder": ("keep", None),
    "moebius": ("reverse", None),
}
TOPOLOGIES = tuple(GLUING)
#: Largest side of a shape in a game id (statistics), and of a board one may value (positions).
MAX_SIDE = 100_000
MAX_BOARD_SIDE = 256
#: Largest uploaded graph.
MAX_GRAPH_VERTICES = 100_000
MAX_GRAPH_EDGES = 2_000_000
#: Longest graph name in a game id.
MAX_GRAPH_NAME = 200

#: Free unknowns the chase of a graph may need (a k x k elimination, about k^3 / 32 word operations),
#: and cells x unknowns of its working matrix (bits).
MAX_UNKNOWNS = 4096
MAX_CHASE_BITS = 2**30
#: The fewest-presses walk: at most 2^SEARCH_NULLITY combinations and SEARCH_WORK word operations.
SEARCH_NULLITY = 24
SEARCH_WORK = 2**27
#: Shape statistics: distance counts listed for shapes of at most this many cells (the list has one
#: entry per distance, each up to 2^cells), and at most this much work for them (`type_walk_work`
#: operations: about 0.4 s at the walk rate bench.bench_lights_out prints).
STATS_DISTANCE_CELLS = 1024
STATS_WORK = 2**27
#: Bytes of eliminations the process keeps (`solver_bytes` each), least recently used dropped first. The
#: newest is kept whatever its size, so that a shape's elimination, once made, serves the shape's next
#: request: the most kept is this or the one largest elimination (bounded through MAX_CHASE_BITS).
CACHED_SHAPE_BYTES = 128 << 20
#: What a kept shape weighs besides its arrays (its Python objects).
SHAPE_ENTRY_BYTES = 4096
#: The stored family holding a shape's elimination (a worker's job), as uint32 words.
ELIMINATION = "elimination"
#: The stored family holding a shape's statistics (a worker's job): JSON (`stats_bytes`) as uint32 words.
STATS = "stats"
#: The most a stats job's walk may do, in `type_walk_work`'s operations (2^k per step, and the counts'
#: modular products and sums; steps x 2^k alone varied 30-fold in speed between shapes, these 3-fold).
#: Measured on a 2-core machine: 1.6e8 to 4.4e8 operations a second for k = 2 to 8 (lights-out:5x11,
#: 39x49:torus and 4x14 the slowest), 0.9e8 with the cores shared by about eight busy processes. 2^37
#: (1.4e11) then takes at most 26 minutes (14 at 1.6e8): a job stays well within the hour, with room
#: for the elimination and the counts' reconstruction.
STATS_JOB_WORK = 2**37
#: A stats job lists the distance counts of shapes of at most this many cells (their text is about
#: 0.2 cells^2 bytes, 3.5 MB here, and each count has fewer than the 4,300 digits Python turns into
#: text by default); past it, it stores rank, nullity and the diameter.
STATS_JOB_CELLS = 4096
#: Layout of the stored statistics (read back only when it matches).
STATS_VERSION = 1
#: Whole numbers JSON and gRPC's Struct (doubles) hold exactly: GetStats gives larger ones as text.
EXACT_JSON_BITS = 53

_SIZE = re.compile(r"([0-9]+)x([0-9]+)")
_GRAPH_NAME = re.compile(r"[A-Za-z0-9._~-]+")  # engine.graphs.check_graph_name
_BOARD_CHARS = re.compile(r"[^01/]")


# -- shapes --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Graph:
    """An undirected graph: vertex names and the open neighbourhoods (CSR, sorted, no repeats)."""

    name: str
    vertices: tuple[str, ...]
    indptr: I64 = field(repr=False)
    indices: I64 = field(repr=False)
    #: A digest of the vertices and edges: two uploads of the same name with different content differ.
    digest: str

    @property
    def edge_count(self) -> int:
        return int(self.indices.shape[0]) // 2


def make_graph(name: str, vertices: Sequence[str], edges: Sequence[Sequence[str]]) -> Graph:
    """A graph from its upload: InvalidArgument for a bad name, no or too many vertices, duplicate vertex
    names, edges that are not pairs, name unknown vertices or are self-loops. Repeated edges count once."""
    if not isinstance(name, str) or not _GRAPH_NAME.fullmatch(name) or len(name) > MAX_GRAPH_NAME:
        raise InvalidArgument(
            f"graph name {quote_token(str(name))} must be 1 to {MAX_GRAPH_NAME} characters, each a letter, "
            "a digit, '.', '_', '~' or '-'"
        )
    if not 1 <= len(vertices) <= MAX_GRAPH_VERTICES:
        raise InvalidArgument(
            f"graph {name!r} has {len(vertices)} vertices: a Lights Out graph has 1 to {MAX_GRAPH_VERTICES}"
        )
    if len(edges) > MAX_GRAPH_EDGES:
        raise InvalidArgument(
            f"graph {name!r} has {len(edges)} edges, more than the limit of {MAX_GRAPH_EDGES}"
        )
    index: dict[str, int] = {}
    for i, vertex in enumerate(vertices):
        if not isinstance(vertex, str):
            raise InvalidArgument(f"vertex {quote_token(repr(vertex))} of graph {name!r} is not a string")
        if vertex in index:
            raise InvalidArgument(f"duplicate vertex name {quote_token(vertex)} in graph {name!r}")
        index[vertex] = i
    pairs = np.empty((len(edges), 2), dtype=np.int64)
    for e, edge in enumerate(edges):
        if not isinstance(edge, list | tuple) or len(edge) != 2:
            raise InvalidArgument(
                f"edge {quote_token(repr(edge))} of graph {name!r} is not a pair of vertex names"
            )
        a, b = edge
        for end in (a, b):
            if not isinstance(end, str) or end not in index:
                raise InvalidArgument(
                    f"edge {quote_token(repr(list(edge)))} of graph {name!r} names an unknown vertex "
                    f"{quote_token(str(end))}"
                )
        pairs[e, 0] = index[a]
        pairs[e, 1] = index[b]
    return graph_of_edges(name, tuple(vertices), pairs[:, 0], pairs[:, 1])


def graph_of_edges(
    name: str, vertices: tuple[str, ...], sources: NDArray[np.integer[Any]], targets: NDArray[np.integer[Any]]
) -> Graph:
    """The undirected graph of edges sources[i] -- targets[i] (vertex indices, checked by the caller):
    InvalidArgument quoting the first self-loop; repeated edges (either way round) count once."""
    n = len(vertices)
    a = np.asarray(sources, dtype=np.int64)
    b = np.asarray(targets, dtype=np.int64)
    loops = np.flatnonzero(a == b)
    if loops.size:
        vertex = vertices[int(a[loops[0]])]
        raise InvalidArgument(
            f"edge {quote_token(repr([vertex, vertex]))} of graph {name!r} is a self-loop: a Lights Out "
            "graph has none"
        )
    both = np.concatenate([a * n + b, b * n + a])
    keys = np.unique(both)
    rows, cols = keys // n, keys % n
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    digest = hashlib.sha256()
    digest.update("\x00".join(vertices).encode())
    digest.update(keys.astype("<i8").tobytes())
    return Graph(name, vertices, indptr, cols.astype(np.int64), digest.hexdigest())


@dataclass(frozen=True, eq=False)
class Shape:
    """A Lights Out board: rows x cols cells glued by `topology`, or the vertices of `graph`.

    Equal shapes (same sides and topology, or same graph content) compare and hash equal: the key of
    the elimination cache."""

    rows: int
    cols: int
    topology: str
    graph: Graph | None = None

    @classmethod
    def grid(cls, rows: int, cols: int, topology: str = "plane") -> Shape:
        if topology not in GLUING:
            raise ValueError(f"unknown topology {topology!r}")
        if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
            raise ValueError(f"sides must be 1 to {MAX_SIDE}, got {rows} x {cols}")
        return cls(rows, cols, topology)

    @classmethod
    def of_graph(cls, graph: Graph) -> Shape:
        return cls(1, len(graph.vertices), "graph", graph)

    @property
    def key(self) -> tuple[object, ...]:
        if self.graph is not None:
            return ("graph", self.graph.name, self.graph.digest)
        return (self.rows, self.cols, self.topology)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Shape) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    @property
    def game_id(self) -> str:
        if self.graph is not None:
            return f"{FAMILY}:graph:{self.graph.name}"
        suffix = "" if self.topology == "plane" else f":{self.topology}"
        return f"{FAMILY}:{self.rows}x{self.cols}{suffix}"

    @property
    def is_graph(self) -> bool:
        return self.graph is not None

    def neighbourhoods(self) -> tuple[I64, I64]:
        """The flip set of every press (the cell and its neighbours, each once), as CSR arrays."""
        if self.graph is not None:
            return closed_neighbourhoods(self.graph.indptr, self.graph.indices)
        return grid_neighbourhoods(self.rows, self.cols, self.topology)

    def press_matrix(self) -> U64:
        """The press matrix, row j the flip set of press j, packed (for shapes of up to 16,384 cells)."""
        n = self.cells
        if n > 16_384:
            raise LimitExceeded(f"the dense press matrix of {self.game_id} ({n} cells) is not built")
        indptr, indices = self.neighbourhoods()
        dense = np.zeros((n, n), dtype=np.uint8)
        rows = np.repeat(np.arange(n), np.diff(indptr))
        dense[rows, indices] = 1
        return pack_bits(dense)


def grid_neighbourhoods(rows: int, cols: int, topology: str) -> tuple[I64, I64]:
    """CSR flip sets of an R x C board glued by `topology` (see the module's docstring)."""
    lr, tb = GLUING[topology]
    n = rows * cols
    idx = np.arange(n, dtype=np.int64)
    r, c = idx // cols, idx % cols
    last_r, last_c = rows - 1, cols - 1

    def across(glue: str | None, kept: I64, reversed_: I64) -> I64:
        if glue == "keep":
            return kept
        if glue == "reverse":
            return reversed_
        return np.full(n, -1, dtype=np.int64)

    left = np.where(c > 0, idx - 1, across(lr, r * cols + last_c, (last_r - r) * cols + last_c))
    right = np.where(c < last_c, idx + 1, across(lr, r * cols, (last_r - r) * cols))
    up = np.where(r > 0, idx - cols, across(tb, last_r * cols + c, last_r * cols + (last_c - c)))
    down = np.where(r < last_r, idx + cols, across(tb, c, last_c - c))
    candidates = np.sort(np.stack([idx, left, right, up, down], axis=1), axis=1)
    keep = candidates >= 0
    keep[:, 1:] &= candidates[:, 1:] != candidates[:, :-1]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(keep.sum(axis=1), out=indptr[1:])
    return indptr, np.ascontiguousarray(candidates[keep], dtype=np.int64)


def grid_neighbourhoods_reference(rows: int, cols: int, topology: str) -> list[set[tuple[int, int]]]:
    """Plain-Python flip sets, cell by cell (0-based (row, column)), straight from the gluing rules."""
    lr, tb = GLUING[topology]
    out = []
    for r in range(rows):
        for c in range(cols):
            cells = {(r, c)}
            for dr, dc in ((0, -1), (0, 1), (-1, 0), (1, 0)):
                rr, cc = r + dr, c + dc
                if not 0 <= cc < cols:
                    if lr is None:
                        continue
                    cc %= cols
                    if lr == "reverse":
                        rr = rows - 1 - rr
                if not 0 <= rr < rows:
                    if tb is None:
                        continue
                    rr %= rows
                    if tb == "reverse":
                        cc = cols - 1 - cc
                cells.add((rr, cc))
            out.append(cells)
    return out


def closed_neighbourhoods(indptr: I64, indices: I64) -> tuple[I64, I64]:
    """Open neighbourhoods (CSR, sorted) with each vertex added to its own, kept sorted."""
    n = indptr.shape[0] - 1
    sources = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    keys = np.concatenate([sources * n + indices, np.arange(n, dtype=np.int64) * (n + 1)])
    keys.sort()
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.diff(indptr) + 1, out=out_ptr[1:])
    return out_ptr, keys % n


# -- game ids and boards --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GraphRef:
    """`lights-out:graph:NAME`: the shape is the uploaded graph NAME, which the caller loads
    (`LightsOut.for_graph`)."""

    name: str

    @property
    def game_id(self) -> str:
        return f"{FAMILY}:graph:{self.name}"


def parse_lights_out_id(params: str | None, text: str) -> Shape | GraphRef:
    """The shape a `lights-out:...` game id names (params: what follows `lights-out:`).

    InvalidGameId, quoting the id, for a missing or malformed size, sizes of 0 or above 100,000, or an
    unknown topology."""
    if not params:
        raise InvalidGameId(
            f"game id {quote_token(text)} needs a shape: 'lights-out:RxC', 'lights-out:RxC:TOPOLOGY' "
            f"(TOPOLOGY one of {', '.join(TOPOLOGIES)}) or 'lights-out:graph:NAME'"
        )
    if params.startswith("graph:"):
        name = params[len("graph:") :]
        if not _GRAPH_NAME.fullmatch(name) or len(name) > MAX_GRAPH_NAME:
            raise InvalidGameId(
                f"game id {quote_token(text)}: graph name {quote_token(name)} must be 1 to "
                f"{MAX_GRAPH_NAME} characters, each a letter, a digit, '.', '_', '~' or '-'"
            )
        return GraphRef(name)
    size, glued, topology = params.partition(":")
    match = _SIZE.fullmatch(size)
    if match is None:
        raise InvalidGameId(
            f"game id {quote_token(text)}: shape {quote_token(size)} is not 'RxC' (rows x columns, "
            "e.g. 'lights-out:5x5')"
        )
    where = f" in game id {quote_token(text)}"
    rows, cols = (
        parse_decimal(part, what=what, where=where, limit=MAX_SIDE, error=InvalidGameId)
        for part, what in ((match.group(1), "row count"), (match.group(2), "column count"))
    )
    if rows == 0 or cols == 0:
        raise InvalidGameId(f"game id {quote_token(text)}: a board needs at least one row and one column")
    if not glued:
        topology = "plane"
    if topology not in GLUING:
        raise InvalidGameId(
            f"game id {quote_token(text)}: unknown topology {quote_token(topology)} "
            f"(known: {', '.join(TOPOLOGIES)})"
        )
    return Shape.grid(rows, cols, topology)


#: A board: bit i is cell i (row-major; the vertex order for graphs), 1 = black.
Board = int


def parse_board(shape: Shape, text: str) -> Board:
    """The board `text` names on `shape`; InvalidPosition quoting it when malformed or of another size,
    LimitExceeded on shapes past 256 x 256 (their boards are not valued live)."""
    check_length(text)
    if shape.graph is not None:
        n = shape.cells
        bad = _BOARD_CHARS.search(text)
        if bad is not None or "/" in text:
            char = text[bad.start()] if bad is not None else "/"
            raise InvalidPosition(
                f"character {char!r} in {quote_position(text)}: a board of {shape.game_id} is one 0 or 1 "
                "per vertex"
            )
        if len(text) != n:
            raise InvalidPosition(
                f"board {quote_position(text)} has {len(text)} cells, but graph {shape.graph.name!r} has "
                f"{n} vertices"
            )
        return int(text[::-1], 2)
    if shape.rows > MAX_BOARD_SIDE or shape.cols > MAX_BOARD_SIDE:
        raise LimitExceeded(
            f"boards of {shape.game_id} are beyond the live limit: positions are valued on boards of up to "
            f"{MAX_BOARD_SIDE} x {MAX_BOARD_SIDE} (GetStats answers for the shape)"
        )
    bad = _BOARD_CHARS.search(text)
    if bad is not None:
        raise InvalidPosition(
            f"character {text[bad.start()]!r} in board {quote_position(text)}: rows are 0 (white) and 1 "
            "(black) joined by '/'"
        )
    rows = text.split("/")
    if len(rows) != shape.rows:
        raise InvalidPosition(
            f"board {quote_position(text)} has {len(rows)} rows, but {shape.game_id} has {shape.rows}"
        )
    for i, row in enumerate(rows):
        if len(row) != shape.cols:
            raise InvalidPosition(
                f"row {i + 1} {quote_token(row)} of board {quote_position(text)} has {len(row)} cells, "
                f"but {shape.game_id} has {shape.cols} columns"
            )
    return int("".join(rows)[::-1], 2)


def format_board(shape: Shape, board: Board) -> str:
    """The canonical text of a board."""
    n = shape.cells
    if board < 0 or board >> n:
        raise ValueError(f"board {board} has bits past the {n} cells of {shape.game_id}")
    flat = format(board, f"0{n}b")[::-1]
    if shape.graph is not None:
        return flat
    c = shape.cols
    return "/".join(flat[i : i + c] for i in range(0, n, c))


# -- the elimination of a shape, kept ---------------------------------------------------------------


def _grid_orders(rows: int, cols: int) -> list[I64]:
    grid = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)

    def folded(m: int) -> list[int]:
        out = []
        for s in range((m + 1) // 2):
            out.append(s)
            if m - 1 - s != s:
                out.append(m - 1 - s)
        return out

    return [
        grid.ravel(),
        grid.T.ravel(),
        grid[folded(rows)].ravel(),
        grid[:, folded(cols)].T.ravel(),
    ]


def _best_order(shape: Shape, indptr: I64, indices: I64) -> tuple[I64, int]:
    """The chase order with the fewest free unknowns among the shape's candidates."""
    if shape.graph is None:
        candidates = _grid_orders(shape.rows, shape.cols)
    else:
        bfs = bfs_order(indptr, indices)
        candidates = [np.arange(shape.cells, dtype=np.int64), bfs, bfs[::-1].copy()]
    scored = [(chase_unknowns(indptr, indices, order), i) for i, order in enumerate(candidates)]
    k, best = min(scored)
    return candidates[best], k


def _chase_plan(shape: Shape, *, max_unknowns: int = MAX_UNKNOWNS) -> tuple[I64, I64, I64, int]:
    """The shape's flip sets (CSR), the order its elimination chases them in and the free unknowns k
    that leaves; LimitExceeded, quoting the shape, where k is too wide to eliminate live. Cheap: no
    elimination (what a job's plan checks before queueing one)."""
    indptr, indices = shape.neighbourhoods()
    order, k = _best_order(shape, indptr, indices)
    if k > max_unknowns or shape.cells * k > MAX_CHASE_BITS:
        raise LimitExceeded(
            f"{shape.game_id} is too wide to eliminate live: its chase needs {k} free unknowns (at most "
            f"{max_unknowns}, and cells x unknowns at most {MAX_CHASE_BITS})"
        )
    return indptr, indices, order, k


def eliminate_shape(shape: Shape, *, max_unknowns: int = MAX_UNKNOWNS) -> ChaseElimination:
    """The elimination of a shape's press matrix (not cached: `solver_for` keeps it)."""
    indptr, indices, order, _ = _chase_plan(shape, max_unknowns=max_unknowns)
    try:
        return chase_eliminate(indptr, indices, order, max_unknowns=max_unknowns)
    except TooWide as error:  # pragma: no cover - the order was checked above
        raise LimitExceeded(f"{shape.game_id}: {error}") from None


class ShapeSolver:
    """A shape's elimination and what answering boards needs from it, built once per shape."""

    def __init__(self, shape: Shape, elimination: ChaseElimination) -> None:
        if elimination.n != shape.cells:
            raise ValueError(f"an elimination of {elimination.n} cells is not one of {shape.game_id}")
        self.shape = shape
        self.elimination = elimination
        self.flip_sets = (elimination.indptr, elimination.indices)
        self._support: tuple[I64, U64] | None = None
        self._lock = threading.Lock()

    def support(self) -> tuple[I64, U64]:
        """The cells some null vector presses (off them every solution agrees), and the null basis
        restricted to them, packed: the fewest-presses walk runs on these words only. Built on first
        use (only shapes whose null space is small enough to walk need it)."""
        with self._lock:
            if self._support is None:
                n = self.shape.cells
                basis = self.elimination.null_basis
                if basis.shape[0] == 0:
                    self._support = (np.zeros(0, np.int64), np.zeros((0, 1), np.uint64))
                else:
                    union = np.bitwise_or.reduce(basis, axis=0)
                    cells = np.flatnonzero(unpack_bits(union, n)).astype(np.int64)
                    rows = [
                        pack_bits(unpack_bits(basis[i : i + 64], n)[:, cells])
                        for i in range(0, basis.shape[0], 64)
                    ]
                    self._support = (cells, np.concatenate(rows))
            return self._support

    @property
    def nullity(self) -> int:
        return self.elimination.nullity

    @property
    def rank(self) -> int:
        return self.elimination.rank

    def searchable(self, max_nullity: int, max_work: int) -> bool:
        """Whether the fewest-presses walk (2^nullity steps of the support's words) is within limits."""
        if self.nullity > min(max_nullity, 62) or (1 << self.nullity) > max_work:
            return False
        cells, _ = self.support()
        return (1 << self.nullity) * words_for(int(cells.size)) <= max_work

    def search(self, x: U8) -> CosetSearch:
        """The walk over the coset of the solution `x`, on the support (x's other bits are in every
        vector of the coset)."""
        cells, basis = self.support()
        return coset_search(pack_bits(x[cells]), basis)


def solver_bytes(solver: ShapeSolver) -> int:
    """What a kept shape weighs: its elimination's arrays, and what its fewest-presses walk may add
    (`ShapeSolver.support`: the null basis on its cells, and the cells)."""
    elimination = solver.elimination
    arrays = sum(int(array.nbytes) for array in elimination.to_arrays().values())
    return SHAPE_ENTRY_BYTES + arrays + int(elimination.null_basis.nbytes) + 8 * solver.shape.cells


_CACHE: OrderedDict[Shape, ShapeSolver] = OrderedDict()
#: Each kept shape's `solver_bytes`, and their sum.
_WEIGHTS: dict[Shape, int] = {}
_kept_bytes = 0
#: The kept shapes whose elimination was read from storage (`remember`), not made in this process.
_STORED: set[Shape] = set()
#: When storage was last looked at for each kept shape whose elimination was made live (time.monotonic()).
_LOOKED: dict[Shape, StoredLook] = {}
_CACHE_LOCK = threading.Lock()


def solver_for(shape: Shape) -> ShapeSolver:
    """The shape's solver: from the process's cache, else eliminated now (and kept)."""
    with _CACHE_LOCK:
        solver = _CACHE.get(shape)
        if solver is not None:
            _CACHE.move_to_end(shape)
            return solver
    solver = ShapeSolver(shape, eliminate_shape(shape))
    _keep(shape, solver, stored=False)
    return solver


def remember(shape: Shape, arrays: dict[str, NDArray[np.generic]]) -> ShapeSolver:
    """Keep a stored elimination (`ChaseElimination.to_arrays`, e.g. from a worker's job) for `shape`."""
    solver = ShapeSolver(shape, ChaseElimination.from_arrays(arrays))
    _keep(shape, solver, stored=True)
    return solver


def cached(shape: Shape) -> bool:
    """Whether the shape's elimination is kept in the process."""
    with _CACHE_LOCK:
        return shape in _CACHE


def stored(shape: Shape) -> bool:
    """Whether the shape's kept elimination was read from storage (answers then say `source: table`)."""
    with _CACHE_LOCK:
        return shape in _STORED


def storage_look_due(shape: Shape) -> bool:
    """Whether to look in storage for the shape's elimination: when none is kept, or when the kept one
    was made live and storage was last looked at STORED_RECHECK_SECONDS ago or more (a job may have
    stored one since; it then replaces the live one). Counts the look as done."""
    with _CACHE_LOCK:
        if shape not in _CACHE:
            return True
        look = _LOOKED.get(shape)
    return look is not None and look.due()


def forget_all() -> None:
    """Empty the cache (tests and benchmarks measuring cold starts)."""
    global _kept_bytes
    with _CACHE_LOCK:
        _CACHE.clear()
        _WEIGHTS.clear()
        _STORED.clear()
        _LOOKED.clear()
        _kept_bytes = 0


def kept_bytes() -> int:
    """The `solver_bytes` of every kept shape together."""
    with _CACHE_LOCK:
        return _kept_bytes


def _keep(shape: Shape, solver: ShapeSolver, *, stored: bool) -> None:
    global _kept_bytes
    weight = solver_bytes(solver)
    with _CACHE_LOCK:
        _kept_bytes += weight - _WEIGHTS.get(shape, 0)
        _WEIGHTS[shape] = weight
        _CACHE[shape] = solver
        _CACHE.move_to_end(shape)
        if stored:
            _STORED.add(shape)
            _LOOKED.pop(shape, None)
        else:
            _STORED.discard(shape)
            _LOOKED[shape] = StoredLook()  # made just after storage was looked at (`_prepare`)
        while _kept_bytes > CACHED_SHAPE_BYTES and len(_CACHE) > 1:
            gone, _ = _CACHE.popitem(last=False)
            _kept_bytes -= _WEIGHTS.pop(gone)
            _STORED.discard(gone)
            _LOOKED.pop(gone, None)


# -- the stored elimination (a worker's job) ---------------------------------------------------------


def elimination_bytes(elimination: ChaseElimination) -> bytes:
    """The elimination's arrays in numpy's .npz form (no pickles)."""
    buffer = io.BytesIO()
    np.savez(buffer, **elimination.to_arrays())  # type: ignore[arg-type]
    return buffer.getvalue()


def encode_elimination(elimination: ChaseElimination) -> NDArray[np.uint32]:
    """The elimination as uint32 words for the sequence storage (engine.stored_bytes: its byte count,
    then its .npz bytes)."""
    return encode_words(elimination_bytes(elimination))


#: Bytes `elimination_words_bound` allows for the .npz's headers: 1 KiB for each of (at most) 16 arrays
#: (`ChaseElimination.to_arrays` has 10; each takes a .npy header of about 128 bytes and zip entries of
#: about 200).
_NPZ_HEADER_BYTES = 16 * 1024


def elimination_words_bound(cells: int, entries: int, k: int) -> int:
    """At most how many words `encode_elimination` takes for a shape of `cells` cells whose flip sets
    hold `entries` cells in all and whose chase leaves `k` free unknowns (`_chase_plan`; the nullity is
    at most k): the arrays of `ChaseElimination.to_arrays` (int64 or packed uint64: the flip sets, the
    order, definitions and unknowns, the k x k residual elimination, the null basis) and their headers.
    What a job's plan counts, without eliminating."""
    int64s = (cells + 1) + entries + 2 * cells + k + 2 + k
    packed = 2 * k * words_for(k) + k * words_for(cells)
    return stored_words_for(8 * (int64s + packed) + _NPZ_HEADER_BYTES)


def decode_elimination(words: NDArray[np.uint32]) -> dict[str, NDArray[np.generic]]:
    """The arrays `encode_elimination` stored (ValueError when they are not there whole)."""
    return _elimination_arrays(decode_words(words, "a stored elimination"))


def _elimination_arrays(data: bytes) -> dict[str, NDArray[np.generic]]:
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as stored_arrays:
            return {name: stored_arrays[name] for name in stored_arrays.files}
    except (OSError, KeyError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(f"a stored elimination does not read: {error}") from error


class EliminationKernel(BytesKernel):
    """What a worker runs for the family "elimination" of a shape: the shape's elimination, encoded
    (`encode_elimination`); the whole of it is made at the first step and kept for the next ones."""

    family = ELIMINATION

    def __init__(self, shape: Shape) -> None:
        super().__init__()
        self.shape = shape

    def make(self, progress: Callable[[int, int], None] | None = None) -> bytes:
        return elimination_bytes(eliminate_shape(self.shape))


def load_stored(shape: Shape, ctx: Context) -> bool:
    """Keep the shape's stored elimination (`remember`), if the tables hold one that reads; whether they
    did. One that does not read (damaged, another version's) is left aside: the shape is eliminated live."""
    kept = read_stored(
        shape.game_id,
        ELIMINATION,
        ctx,
        "a stored elimination",
        lambda data: remember(shape, _elimination_arrays(data)),  # kept once it reads whole
    )
    return kept is not None


# -- the stored statistics (a worker's job) ----------------------------------------------------------


def stats_bytes(shape: Shape, stats: ShapeStats) -> bytes:
    """What a stats job stores: JSON naming the shape (and a graph's digest: an upload of another graph
    under the name does not read it), with the distance counts as decimal text (they pass 2^64)."""
    counts = stats["distance_counts"]
    body = {
        "version": STATS_VERSION,
        "game": shape.game_id,
        "digest": None if shape.graph is None else shape.graph.digest,
        "rank": stats["rank"],
        "nullity": stats["nullity"],
        "diameter": stats["diameter"],
        "distance_counts": None if counts is None else [str(c) for c in counts],
    }
    return json.dumps(body, separators=(",", ":")).encode()


def stats_from_bytes(shape: Shape, data: bytes) -> ShapeStats:
    """The statistics `stats_bytes` stored for `shape`; ValueError when they are another layout's or
    shape's, or do not add up (rank + nullity = cells, the counts summing to 2^rank)."""
    body = json.loads(data)
    if not isinstance(body, dict) or body.get("version") != STATS_VERSION:
        raise ValueError("stored statistics of another layout")
    digest = None if shape.graph is None else shape.graph.digest
    if body.get("game") != shape.game_id or body.get("digest") != digest:
        raise ValueError(f"stored statistics of another shape than {shape.game_id}")
    rank, nullity, diameter = body.get("rank"), body.get("nullity"), body.get("diameter")
    texts = body.get("distance_counts")
    if type(rank) is not int or type(nullity) is not int or rank < 0 or nullity < 0:
        raise ValueError("stored statistics without a rank and a nullity")
    if rank + nullity != shape.cells:
        raise ValueError(f"stored rank {rank} and nullity {nullity} do not add up to {shape.cells} cells")
    if diameter is not None and type(diameter) is not int:
        raise ValueError("stored statistics with a diameter that is not a whole number")
    counts: list[int] | None = None
    if texts is not None:
        if not isinstance(texts, list) or not all(isinstance(t, str) and t.isdigit() for t in texts):
            raise ValueError("stored distance counts are not decimal text")
        counts = [int(t) for t in texts]
        if sum(counts) != 1 << rank or diameter != len(counts) - 1:
            raise ValueError("stored distance counts do not add up to the solvable boards and diameter")
    return _stats_record(rank, nullity, counts, diameter, "elimination")


def load_stored_stats(shape: Shape, ctx: Context) -> ShapeStats | None:
    """The statistics a stats job stored for the shape, if the tables hold them whole and they read
    (others, damaged or another version's, are left aside: the statistics are made live)."""
    return read_stored(
        shape.game_id, STATS, ctx, "stored statistics", lambda data: stats_from_bytes(shape, data)
    )


class StatsKernel(BytesKernel):
    """What a worker runs for the family "stats" of a shape: rank, nullity, diameter and distance counts
    within the job's limits (`LightsOut.job_stats`, with the walk's progress), as `stats_bytes`."""

    family = STATS

    def __init__(self, shape: Shape) -> None:
        super().__init__()
        self.shape = shape

    def make(self, progress: Callable[[int, int], None] | None = None) -> bytes:
        return stats_bytes(self.shape, LightsOut(self.shape).job_stats(progress=progress))


def _stats_record(
    rank: int, nullity: int, counts: list[int] | None, diameter: int | None, method: str
) -> ShapeStats:
    return {
        "rank": rank,
        "nullity": nullity,
        "distance_counts": counts,
        "diameter": diameter,
        "method": method,
    }


def _stats_words_bound(cells: int, rank: int, counts_listed: bool) -> int:
    """At most how many words a shape's stored statistics take (what a stats job's plan counts): each
    count has at most the digits of 2^rank."""
    size = 512
    if counts_listed:
        size += (cells + 1) * (rank * 30103 // 100_000 + 4)
    return stored_words_for(size)


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


class ShapeStats(TypedDict):
    """GetStats of a shape (None: not known, left out of the answer; `solvable_boards`, 2^rank, is
    derived where the answer is made: `LightsOut._stats_answer`)."""

    rank: int
    nullity: int
    #: Boards at each fewest-press distance from 0 (exact, possibly past 2^64), or None.
    distance_counts: list[int] | None
    #: The largest distance (seed 002, exercise 3.1), or None.
    diameter: int | None
    #: "elimination" or "polynomial".
    method: str


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
        self._neighbourhoods: tuple[I64, I64] | None = None

    @classmethod
    def for_graph(cls, name: str, vertices: Sequence[str], edges: Sequence[Sequence[str]]) -> LightsOut:
        """The kind of `lights-out:graph:NAME` for a graph given by vertex names."""
        return cls(Shape.of_graph(make_graph(name, vertices, edges)))

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
        """The cells press `index` flips, as a board."""
        return _flip_board(*self._flip_sets(), index)

    def press(self, board: Board, index: int) -> Board:
        """The board after press `index`."""
        return board ^ self.flip_set(index)

    def _flip_sets(self) -> tuple[I64, I64]:
        """The flip sets (CSR): the kept elimination's, else the shape's own (too wide to eliminate)."""
        if self._neighbourhoods is None:
            try:
                return solver_for(self.shape).flip_sets
            except LimitExceeded:
                self._neighbourhoods = self.shape.neighbourhoods()
        return self._neighbourhoods

    # -- values -------------------------------------------------------------------------------------

    def _search(self, board: Board, max_nullity: int, max_work: int) -> _Solved:
        """One chase and at most one walk: what both the board's answer (`_answer_of`) and every
        press's (`_press_values_of`) are made of."""
        solver = solver_for(self.shape)
        x = solver.elimination.solve(int_to_bits(board, self.shape.cells))
        if x is None or solver.nullity == 0:
            return _Solved(solver, x)
        if not solver.searchable(max_nullity, max_work):
            light = reduce_greedily(pack_bits(x), solver.elimination.null_basis)
            return _Solved(solver, x, light=unpack_bits(light, self.shape.cells))
        return _Solved(solver, x, found=solver.search(x))

    def solve(
        self, board: Board, *, max_nullity: int = SEARCH_NULLITY, max_work: int = SEARCH_WORK
    ) -> PuzzleAnswer:
        """Whether the board is solvable, the fewest presses that solve it and which (or, past the search
        limits, a solution with `remoteness` absent)."""
        return self._answer_of(self._search(board, max_nullity, max_work))

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
        limit: int | None = None,
        *,
        max_nullity: int = SEARCH_NULLITY,
        max_work: int = SEARCH_WORK,
    ) -> list[PressValue]:
        """Every press (or the first `limit`) with the answer for the board it leads to, best first:
        fewest presses left, then cell order. Where the search does not run, the presses of the
        solution given come first (each undoes one of them), remoteness absent."""
        return self._press_values_of(self._search(board, max_nullity, max_work), limit)

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

    def _solved(self, position: Board, ctx: Context) -> tuple[str, _Solved]:
        """The position's text and its search, within the request's context."""
        self._prepare(ctx)
        text = self.format(position)
        ctx.deadline.check(lambda: f"solving {quote_position(text)} of {self.game_id}")
        return text, self._search(position, SEARCH_NULLITY, SEARCH_WORK)

    def value(self, position: Board, ctx: Context) -> Value:
        """GetValue: solvable, a solution, and the fewest presses where the search runs (else `note`)."""
        text, solved = self._solved(position, ctx)
        return self._answer_of(solved).value(self.game_id, text, self._source)

    def best_moves(self, position: Board, limit: int | None, ctx: Context) -> BestMoveResult:
        """BestMove: every press (or the first `limit`), each with the answer for the board it leads
        to, best first (fewest presses left, then cell order; boards left unsolvable last). The board
        is solved once: its answer and every press's come from the same chase and walk."""
        check_limit(limit, ctx.limits)
        text, solved = self._solved(position, ctx)
        source = self._source
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
        indptr, indices = self._flip_sets()
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
        """GetStats: rank, nullity, solvable_boards, distance_counts, diameter, and `method` (how rank
        and nullity were found: "elimination" or "polynomial") with its `source`. Numbers past 2^53 (what
        JSON numbers and gRPC's Struct hold exactly) are given as text: `solvable_boards` as "2^rank",
        each distance count in decimal.

        The statistics a stats job stored come first (`source` "table", with whatever counts and
        diameter it stored, past the live limits); else they are made now, the counts and diameter
        within the live limits, and where the counts are absent a `note` says why and whether a stats
        job would store them."""
        ctx.tables.may_block()
        if self._by_polynomial():
            return self._stats_answer(self.shape_stats(), "formula")
        kept = load_stored_stats(self.shape, ctx)
        if kept is not None:
            return self._stats_answer(kept, "table")
        s = self.shape
        if s.graph is not None or max(s.rows, s.cols) <= MAX_BOARD_SIDE:
            self._prepare(ctx)  # the shape keeps its elimination: the stored one, if there is one
        elimination = self._stats_elimination()
        stats = self._elimination_stats(elimination, STATS_DISTANCE_CELLS, STATS_WORK)
        answer = self._stats_answer(stats, self._source)
        if stats["distance_counts"] is None:
            answer["note"] = self._counts_note(elimination, stats["diameter"] is not None)
        return answer

    def _stats_answer(self, stats: ShapeStats, source: Source) -> dict[str, object]:
        """The GetStats answer of `stats` (large numbers as text), a stored job's or made now."""
        rank = stats["rank"]
        counts = stats["distance_counts"]
        answer: dict[str, object] = {
            "game": self.game_id,
            "rank": rank,
            "nullity": stats["nullity"],
            "solvable_boards": (1 << rank) if rank <= EXACT_JSON_BITS else f"2^{rank}",
            "distance_counts": None
            if counts is None
            else [c if c <= 1 << EXACT_JSON_BITS else str(c) for c in counts],
            "diameter": stats["diameter"],
            "method": stats["method"],
            "source": source,
        }
        if counts is None and source == "table":
            answer["note"] = f"distance counts are listed for shapes of at most {STATS_JOB_CELLS} cells"
        return answer

    def _counts_note(self, elimination: ChaseElimination, diameter_known: bool) -> str:
        """Why a live answer lists no distance counts, and what a stats job would store instead."""
        try:
            counts_listed = self._stats_job_work(elimination)
        except LimitExceeded as refusal:
            return f"distance counts are beyond the live limits, and {refusal}"
        job = f'a worker job of the family "{STATS}" computes and stores'
        if counts_listed:
            return (
                f"distance counts are listed live for shapes of at most {STATS_DISTANCE_CELLS} cells whose "
                f"walk is within {STATS_WORK:,} operations; {job} them"
            )
        diameter = "" if diameter_known else f"; {job} the diameter"
        return f"distance counts are listed for shapes of at most {STATS_JOB_CELLS} cells{diameter}"

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
        """The job storing the shape's elimination (family "elimination", the default), so every server
        reads it instead of eliminating again, or its statistics (family "stats": rank, nullity,
        diameter and distance counts past the live limits, within STATS_JOB_WORK). `upto` and `fill`
        do not apply: the whole object is stored (the worker stores exactly its words).

        Planning eliminates nothing: the plan counts at most the words the object takes, from the
        shape's size and its chase (`elimination_words_bound`, `_stats_words_bound`), and refuses what
        that tells (an unknown family, a shape too wide to eliminate, plane boards past 256 x 256 where
        they have no elimination). A stats walk past STATS_JOB_WORK shows only once the job has the
        null space: the job then fails, its error saying so (`job_stats`)."""
        if family not in (None, ELIMINATION, STATS):
            raise InvalidArgument(
                f"{self.game_id} stores the families {ELIMINATION!r} and {STATS!r}, not "
                f"{quote_token(family or '')}"
            )
        s = self.shape
        if family == STATS:
            self._refuse_polynomial()
            self._check_stats_elimination()
            counts_listed = s.cells <= STATS_JOB_CELLS
            return JobPlan(self.game_id, STATS, _stats_words_bound(s.cells, s.cells, counts_listed), True)
        if s.graph is None and max(s.rows, s.cols) > MAX_BOARD_SIDE:
            raise NotApplicable(
                f"{self.game_id}: only shapes whose boards are valued (sides up to {MAX_BOARD_SIDE}) keep an "
                "elimination to store"
            )
        _, indices, _, k = _chase_plan(s)
        return JobPlan(self.game_id, ELIMINATION, elimination_words_bound(s.cells, len(indices), k), True)

    def kernel_for(self, family: str) -> SequenceKernel | None:
        if family == ELIMINATION:
            return EliminationKernel(self.shape)
        if family == STATS:
            return StatsKernel(self.shape)
        return None

    @property
    def _source(self) -> Source:
        """Where the elimination answering for this shape comes from: storage ("table") or this process."""
        return "table" if stored(self.shape) else "live"

    def _prepare(self, ctx: Context) -> None:
        """Before solving: the work leaves the event loop (the elimination, the walk); the stored
        elimination is used when the tables hold one (`ctx.tables`), looked for again every
        STORED_RECHECK_SECONDS while the kept one was made live (`storage_look_due`)."""
        ctx.tables.may_block()
        if storage_look_due(self.shape):
            load_stored(self.shape, ctx)
            ctx.deadline.check(lambda: f"eliminating {self.game_id}")

    def p_position(self, board: Board, ctx: object = None) -> NoReturn:
        """IsPPosition: a puzzle has no P-positions (FAILED_PRECONDITION)."""
        raise NotApplicable(
            f"{self.game_id!r} is a one-player puzzle: it has no P-positions (ask GetValue whether a board "
            "is solvable)"
        )

    # -- the shape as a whole -------------------------------------------------------------------------

    def shape_stats(
        self, *, distance_cells: int = STATS_DISTANCE_CELLS, max_work: int = STATS_WORK
    ) -> ShapeStats:
        """GetStats' statistics: rank, nullity (the solvable boards are 2^rank), distance_counts (boards
        at each fewest-press distance from 0, or None where not computed) and diameter (the largest
        distance, or None), plus `method` ('elimination' or 'polynomial')."""
        s = self.shape
        if self._by_polynomial():
            nullity = plane_nullity(s.rows, s.cols)
            # every board has one solution when the nullity is 0: pressing every cell is the farthest
            return _stats_record(
                s.cells - nullity, nullity, None, s.cells if nullity == 0 else None, "polynomial"
            )
        return self._elimination_stats(self._stats_elimination(), distance_cells, max_work)

    def _elimination_stats(
        self, elimination: ChaseElimination, distance_cells: int, max_work: int
    ) -> ShapeStats:
        """The statistics from the elimination: the walk for the counts (shapes of at most
        `distance_cells` cells) and the diameter where the walk is within `max_work` operations
        (`type_walk_work`: the live walk cannot be stopped, so its bound must hold for its true cost)."""
        n = self.shape.cells
        counts: list[int] | None = None
        diameter: int | None = None
        basis = elimination.null_basis
        counts_wanted = n <= distance_cells
        if type_walk_work(basis, n, counts_wanted=counts_wanted) <= max_work:
            counts, diameter = coset_leader_counts(basis, n, counts_wanted=counts_wanted)
        return _stats_record(n - elimination.nullity, elimination.nullity, counts, diameter, "elimination")

    def job_stats(
        self,
        *,
        max_work: int = STATS_JOB_WORK,
        count_cells: int = STATS_JOB_CELLS,
        progress: Callable[[int, int], None] | None = None,
    ) -> ShapeStats:
        """What a stats job stores: rank, nullity, the diameter and (shapes of at most `count_cells`
        cells) the distance counts, whatever the live limits, with the walk's progress. NotApplicable
        for plane boards past 256 x 256 (rank and nullity by the polynomial method only), LimitExceeded
        where the walk would exceed `max_work` (`type_walk_work`) or the elimination the live one's
        limits. A kept elimination is used; one made for the job is not kept."""
        self._refuse_polynomial()
        elimination = self._stats_elimination(keep=False)
        counts_listed = self._stats_job_work(elimination, max_work, count_cells)
        n = self.shape.cells
        counts, diameter = coset_leader_counts(
            elimination.null_basis, n, counts_wanted=counts_listed, progress=progress
        )
        return _stats_record(n - elimination.nullity, elimination.nullity, counts, diameter, "elimination")

    def _stats_job_work(
        self,
        elimination: ChaseElimination,
        max_work: int = STATS_JOB_WORK,
        count_cells: int = STATS_JOB_CELLS,
    ) -> bool:
        """Whether a stats job lists the distance counts (the shape has at most `count_cells` cells);
        LimitExceeded, quoting the shape, where its walk exceeds `max_work`."""
        n = self.shape.cells
        k = elimination.nullity
        if k > MAX_TYPE_NULLITY:
            raise LimitExceeded(
                f"the walk for the statistics of {self.game_id} is beyond a stats job: its null space has "
                f"dimension {k}, past the {MAX_TYPE_NULLITY} the walk handles"
            )
        counts_listed = n <= count_cells
        work = type_walk_work(elimination.null_basis, n, counts_wanted=counts_listed)
        if work > max_work:
            raise LimitExceeded(
                f"the walk for the statistics of {self.game_id} (nullity {k}) is beyond a stats job: about "
                f"2^{work.bit_length() - 1} operations, more than the {max_work:,} a stats job does"
            )
        return counts_listed

    def _by_polynomial(self) -> bool:
        """Whether rank and nullity come from the polynomial method (plane boards past 256 x 256)."""
        s = self.shape
        return s.graph is None and s.topology == "plane" and max(s.rows, s.cols) > MAX_BOARD_SIDE

    def _refuse_polynomial(self) -> None:
        if self._by_polynomial():
            raise NotApplicable(
                f"{self.game_id}: rank and nullity of plane boards past {MAX_BOARD_SIDE} x {MAX_BOARD_SIDE} "
                "come from the polynomial method only; it gives no null space for a stats job to walk"
            )

    def _stats_elimination(self, *, keep: bool = True) -> ChaseElimination:
        """The kept elimination (made and kept now if `keep`, else made for the caller only); for grids
        past the boards valued live, one made now and not kept (where cells x 2 min(R, C), what its
        chase may need, is within MAX_CHASE_BITS)."""
        s = self.shape
        if self._valued():
            if keep or cached(s):
                return solver_for(s).elimination
            return eliminate_shape(s)
        self._check_stats_elimination()
        return eliminate_shape(s)

    def _valued(self) -> bool:
        """Whether the shape's boards are valued (graphs, grids up to 256 x 256): it keeps its elimination."""
        s = self.shape
        return s.graph is not None or max(s.rows, s.cols) <= MAX_BOARD_SIDE

    def _check_stats_elimination(self) -> None:
        """LimitExceeded, quoting the shape, where the elimination `_stats_elimination` makes would be
        refused, found without eliminating: a chase too wide (`_chase_plan`), or for grids past the
        boards valued live, cells x 2 min(R, C) past MAX_CHASE_BITS. Nothing is checked of a shape
        whose elimination is kept already."""
        s = self.shape
        if self._valued():
            if not cached(s):
                _chase_plan(s)
            return
        if s.cells * 2 * min(s.rows, s.cols) > MAX_CHASE_BITS:
            raise LimitExceeded(
                f"the rank of {s.game_id} needs an elimination too large to run live (cells x "
                f"2 min(R, C) at most {MAX_CHASE_BITS}); plane boards of any size have it by the "
                "polynomial method"
            )

    def memory_bytes(self) -> int:
        """A graph's shape: its names (characters and 64 bytes each: the str and its tuple slot) and
        CSR arrays, and the flip sets the kind may build (8 bytes an entry). A grid's holds its sides
        only. The elimination is not the kind's: the shape cache (`CACHED_SHAPE_BYTES`) keeps it, shared by
        equal shapes, and counting it here would not free it."""
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


def nullity_by_polynomial(n: int, cols: int | None = None) -> int:
    """Nullity of the n x n (or n x cols) plane board by the polynomial method (engine.games.chebyshev_f2)."""
    return plane_nullity(n, cols)


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
