"""Lights Out shapes: grids glued by a topology, and uploaded graphs; the flip set of every press."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.errors import (
    InvalidArgument,
    LimitExceeded,
)
from engine.positions import quote_token
from kinds.lights_out.kernels.gf2 import (
    U64,
    pack_bits,
)

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
    the kept elimination."""

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
                across = _glued(c + dc, r + dr, cols, rows, lr)
                if across is None:
                    continue
                cc, rr = across
                cell = _glued(rr, cc, rows, cols, tb)
                if cell is not None:
                    cells.add(cell)
            out.append(cells)
    return out


def _glued(i: int, j: int, size_i: int, size_j: int, gluing: str | None) -> tuple[int, int] | None:
    """(i, j) with i brought back across its edge by the gluing of that pair of edges (None: there is
    no neighbour past it; "reverse": the other coordinate is mirrored too); i within 0..size_i-1 as is."""
    if 0 <= i < size_i:
        return i, j
    if gluing is None:
        return None
    return i % size_i, (size_j - 1 - j if gluing == "reverse" else j)


def closed_neighbourhoods(indptr: I64, indices: I64) -> tuple[I64, I64]:
    """Open neighbourhoods (CSR, sorted) with each vertex added to its own, kept sorted."""
    n = indptr.shape[0] - 1
    sources = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    keys = np.concatenate([sources * n + indices, np.arange(n, dtype=np.int64) * (n + 1)])
    keys.sort()
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.diff(indptr) + 1, out=out_ptr[1:])
    return out_ptr, keys % n
