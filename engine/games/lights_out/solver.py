"""A shape's elimination (engine.kernels.gf2.chase_eliminate) and what solving boards needs of it, kept."""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np
from numpy.typing import NDArray

from engine.errors import (
    LimitExceeded,
)
from engine.games.lights_out.shape import Shape
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
    pack_bits,
    unpack_bits,
    words_for,
)
from engine.stored_bytes import StoredLook

I64 = NDArray[np.int64]


#: Free unknowns the chase of a graph may need (a k x k elimination, about k^3 / 32 word operations),
#: and cells x unknowns of its working matrix (bits).
MAX_UNKNOWNS = 4096
MAX_CHASE_BITS = 2**30
#: Bytes of eliminations the process keeps (`solver_bytes` each), least recently used dropped first. The
#: newest is kept whatever its size, so that a shape's elimination, once made, serves the shape's next
#: request: the most kept is this or the one largest elimination (bounded through MAX_CHASE_BITS).
CACHED_SHAPE_BYTES = 128 << 20
#: What a kept shape weighs besides its arrays (its Python objects).
SHAPE_ENTRY_BYTES = 4096

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
    """The elimination of a shape's press matrix (not cached: `solver_for` keeps it)."""
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
