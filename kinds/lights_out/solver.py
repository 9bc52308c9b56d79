"""A shape's elimination (kinds.lights_out.kernels.gf2.chase_eliminate) and what solving boards needs of it.

The service keeps one per shape (`settings.ELIMINATIONS`, engine.keep; `solver_bytes` each): see
kinds.lights_out.stored.solver_of, which reads a stored one first."""

from __future__ import annotations

import threading

import numpy as np
from numpy.typing import NDArray

from engine.errors import (
    LimitExceeded,
)
from kinds.lights_out.kernels.gf2 import (
    U8,
    U64,
    ChaseElimination,
    CosetSearch,
    TooWide,
    bfs_order,
    chase_eliminate,
    chase_unknowns,
    coset_search,
    pack_bits,
    unpack_bits,
    words_for,
)
from kinds.lights_out.shape import Shape

I64 = NDArray[np.int64]


#: Free unknowns the chase of a graph may need (a k x k elimination, about k^3 / 32 word operations),
#: and cells x unknowns of its working matrix (bits).
MAX_UNKNOWNS = 4096
MAX_CHASE_BITS = 2**30
#: What a kept shape weighs besides its arrays (its Python objects).
SHAPE_ENTRY_BYTES = 4096

# -- the elimination of a shape ---------------------------------------------------------------------


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


def chase_plan(shape: Shape, *, max_unknowns: int = MAX_UNKNOWNS) -> tuple[I64, I64, I64, int]:
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
    """The elimination of a shape's press matrix (not kept: `stored.solver_of` keeps it)."""
    indptr, indices, order, _ = chase_plan(shape, max_unknowns=max_unknowns)
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
