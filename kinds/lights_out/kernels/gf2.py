"""Linear algebra over F2 on packed bit rows: elimination, sparse systems by chasing, and the lightest
vector of a coset.

Bit rows are little-endian uint64 words: bit j of a row is bit j % 64 of word j // 64. Python ints are
the same rows in the plain references (bit j of the int), which the tests compare every kernel with.

- `eliminate` (Gauss-Jordan): the reduced row echelon form E of a matrix A, its pivot columns and the
  transform T with T A = E, all packed. A x = b is then solvable iff (T b) is zero past the rank, a
  solution puts (T b)[i] at pivot column i, and the free columns give a basis of the null space.
- `chase_eliminate`: a sparse square system (each equation a short list of variables, as in Lights
  Out, where a cell's equation names the presses that flip it) reduced to a small dense one. Equations
  are taken in a given order; each defines one variable it names that is still undetermined (its
  latest in the order) from the others, the others still undetermined becoming free unknowns, and an
  equation with nothing left to define is a residual. With k unknowns there are k residuals, and
  A x = b iff the k x k residual system M y = r(b) holds, x following from y by the same chase: for an
  R x C grid in row order k = C (press the first row freely, chase each row's lights with the row
  below: the classic "light chasing"), for a graph in breadth-first order k is about the width of its
  levels. So a 256 x 256 board costs a 256 x 256 elimination and two O(cells) passes per board, where
  a dense one would cost 65,536^3 / 64 word operations and 1 GB. Rank, null space and every solution
  follow from the small system (the null space of A is the chase of the null space of M).
- `coset_search`: the lightest vector of x0 + span(basis), by a Gray-code walk over the 2^k
  combinations (one row XOR and popcount per step), with the union of the lightest ones and of the
  ones one heavier: enough to tell, for every single bit flipped, the weight of the lightest vector of
  the coset it leads to (Lights Out's best moves).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numpy.typing import NDArray

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]
U8 = NDArray[np.uint8]

_ONE = np.uint64(1)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


class TooWide(ValueError):
    """A sparse system whose chase needs more free unknowns than the caller allows."""


def words_for(nbits: int) -> int:
    """uint64 words in a row of `nbits` bits (at least one)."""
    return max(1, (nbits + 63) // 64)


# -- packing -----------------------------------------------------------------------------------------


def pack_bits(bits: NDArray[np.uint8] | NDArray[np.bool_]) -> U64:
    """Rows of 0/1 (last axis the bits) as packed rows of uint64 words."""
    arr = np.asarray(bits, dtype=np.uint8)
    nbits = arr.shape[-1]
    nwords = words_for(nbits)
    padded = np.zeros((*arr.shape[:-1], nwords * 64), dtype=np.uint8)
    padded[..., :nbits] = arr
    packed = np.packbits(padded, axis=-1, bitorder="little")
    return np.ascontiguousarray(packed).view("<u8").astype(np.uint64, copy=False)


def unpack_bits(words: U64, nbits: int) -> U8:
    """Packed rows back to rows of 0/1 bytes, `nbits` per row."""
    arr = np.ascontiguousarray(words, dtype=np.uint64)
    as_bytes = arr.view(np.uint8)
    return np.unpackbits(as_bytes, axis=-1, bitorder="little", count=nbits)


def int_to_words(value: int, nbits: int) -> U64:
    """A Python int (bit j = bit j of the row) as one packed row of `nbits` bits."""
    nwords = words_for(nbits)
    return np.frombuffer(value.to_bytes(nwords * 8, "little"), dtype="<u8").astype(np.uint64)


def words_to_int(words: U64) -> int:
    """One packed row as a Python int."""
    return int.from_bytes(np.ascontiguousarray(words, dtype="<u8").tobytes(), "little")


def int_to_bits(value: int, nbits: int) -> U8:
    """A Python int as `nbits` 0/1 bytes (bit j first)."""
    return unpack_bits(int_to_words(value, nbits), nbits)


def bits_to_int(bits: U8) -> int:
    """0/1 bytes (bit j first) as a Python int."""
    return words_to_int(pack_bits(bits))


# -- small kernels -----------------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True, inline="always")
def _popcount(x: np.uint64) -> int:
    x = x - ((x >> _ONE) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return int((x * _H01) >> np.uint64(56))


@numba.njit(cache=True, nogil=True)
def popcount_rows(rows: U64) -> I64:
    """The weight of each packed row of a 2-D array."""
    out = np.zeros(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        w = 0
        for j in range(rows.shape[1]):
            w += _popcount(rows[i, j])
        out[i] = w
    return out


@numba.njit(cache=True, nogil=True)
def _matvec(matrix: U64, vector: U64) -> U8:
    """(matrix . vector) over F2, one 0/1 byte per row."""
    out = np.zeros(matrix.shape[0], dtype=np.uint8)
    for i in range(matrix.shape[0]):
        acc = np.uint64(0)
        for j in range(matrix.shape[1]):
            acc ^= matrix[i, j] & vector[j]
        out[i] = _popcount(acc) & 1
    return out


# -- dense elimination -------------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def _eliminate(a: U64, ncols: int, t: U64, pivots: I64) -> int:
    """Gauss-Jordan in place: `a` becomes its reduced row echelon form, `t` (identity on entry) the
    transform, `pivots[:rank]` the pivot columns. Returns the rank."""
    m = a.shape[0]
    w = a.shape[1]
    tw = t.shape[1]
    rank = 0
    for col in range(ncols):
        if rank == m:
            break
        wi = col >> 6
        bit = _ONE << np.uint64(col & 63)
        p = -1
        for r in range(rank, m):
            if a[r, wi] & bit:
                p = r
                break
        if p < 0:
            continue
        if p != rank:
            for j in range(wi, w):
                tmp = a[p, j]
                a[p, j] = a[rank, j]
                a[rank, j] = tmp
            for j in range(tw):
                tmp = t[p, j]
                t[p, j] = t[rank, j]
                t[rank, j] = tmp
        for r in range(m):
            if r != rank and (a[r, wi] & bit):
                for j in range(wi, w):
                    a[r, j] ^= a[rank, j]
                for j in range(tw):
                    t[r, j] ^= t[rank, j]
        pivots[rank] = col
        rank += 1
    return rank


@dataclass(frozen=True, slots=True)
class Elimination:
    """T A = E for an m x ncols matrix A: E reduced row echelon (packed), T packed (m x m)."""

    ncols: int
    rank: int
    #: Pivot column of each of the first `rank` rows of E.
    pivots: I64
    rref: U64
    transform: U64

    @property
    def nullity(self) -> int:
        return self.ncols - self.rank

    def solve(self, rhs: U64) -> U64 | None:
        """A solution x of A x = rhs (packed, free columns 0), or None when there is none."""
        tb = _matvec(self.transform, np.ascontiguousarray(rhs, dtype=np.uint64))
        if tb[self.rank :].any():
            return None
        x = np.zeros(self.ncols, dtype=np.uint8)
        x[self.pivots] = tb[: self.rank]
        return pack_bits(x)

    def null_basis(self) -> U64:
        """A basis of {x : A x = 0}, one packed row per free column (that column's bit set)."""
        pivot_set = np.zeros(self.ncols, dtype=bool)
        pivot_set[self.pivots] = True
        free = np.flatnonzero(~pivot_set)
        e = unpack_bits(self.rref[: self.rank], self.ncols) if self.rank else None
        out = np.zeros((free.size, self.ncols), dtype=np.uint8)
        for row, f in enumerate(free):
            out[row, f] = 1
            if e is not None:
                out[row, self.pivots] = e[:, f]
        return pack_bits(out) if free.size else np.zeros((0, words_for(self.ncols)), dtype=np.uint64)


def eliminate(rows: U64, ncols: int) -> Elimination:
    """Eliminate the packed m x ncols matrix `rows` (not modified)."""
    a = np.array(rows, dtype=np.uint64, copy=True, order="C")
    m = a.shape[0]
    t = pack_bits(np.eye(m, dtype=np.uint8)) if m else np.zeros((0, 1), dtype=np.uint64)
    pivots = np.zeros(max(1, min(m, ncols)), dtype=np.int64)
    rank = int(_eliminate(a, ncols, t, pivots)) if m and ncols else 0
    return Elimination(ncols, rank, pivots[:rank].copy(), a, t)


def eliminate_reference(rows: list[int], ncols: int) -> tuple[int, list[int], list[int], list[int]]:
    """Plain-Python `eliminate` on int rows: (rank, pivots, reduced rows, transform rows)."""
    a = list(rows)
    t = [1 << i for i in range(len(a))]
    pivots: list[int] = []
    rank = 0
    for col in range(ncols):
        p = next((r for r in range(rank, len(a)) if a[r] >> col & 1), None)
        if p is None:
            continue
        a[p], a[rank] = a[rank], a[p]
        t[p], t[rank] = t[rank], t[p]
        for r in range(len(a)):
            if r != rank and a[r] >> col & 1:
                a[r] ^= a[rank]
                t[r] ^= t[rank]
        pivots.append(col)
        rank += 1
    return rank, pivots, a, t


def solve_reference(rows: list[int], ncols: int, rhs: int) -> tuple[int | None, list[int]]:
    """Plain-Python: (a solution of A x = rhs or None, a basis of the null space), A's rows as ints
    (bit j of row i = A[i][j], rhs bit i = b[i])."""
    rank, pivots, e, t = eliminate_reference(rows, ncols)
    tb = [(t[i] & rhs).bit_count() & 1 for i in range(len(rows))]
    x: int | None = None
    if not any(tb[rank:]):
        x = sum(tb[i] << pivots[i] for i in range(rank))
    basis = []
    for f in sorted(set(range(ncols)) - set(pivots)):
        v = 1 << f
        for i in range(rank):
            if e[i] >> f & 1:
                v |= 1 << pivots[i]
        basis.append(v)
    return x, basis


# -- sparse square systems by chasing ---------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def _chase_plan(indptr: I64, indices: I64, order: I64, rank: I64, define: I64, unknowns: I64) -> int:
    """The greedy chase of the equations in `order` (see the module's docstring).

    define[t] is the variable equation order[t] defines, -1 when it is a residual; unknowns[:k] the
    free variables in the order they were declared. `rank[v]` orders variables (the latest undetermined
    one an equation names is the one it defines). Returns k.
    """
    n = order.shape[0]
    nvars = rank.shape[0]
    determined = np.zeros(nvars, dtype=np.bool_)
    k = 0
    for t in range(n):
        i = order[t]
        best = -1
        for q in range(indptr[i], indptr[i + 1]):
            v = indices[q]
            if not determined[v] and (best < 0 or rank[v] > rank[best]):
                best = v
        if best < 0:
            define[t] = -1
            continue
        for q in range(indptr[i], indptr[i + 1]):
            v = indices[q]
            if not determined[v] and v != best:
                determined[v] = True
                unknowns[k] = v
                k += 1
        determined[best] = True
        define[t] = best
    for v in range(nvars):
        if not determined[v]:
            unknowns[k] = v
            k += 1
    return k


@numba.njit(cache=True, nogil=True)
def _chase_vectors(indptr: I64, indices: I64, order: I64, define: I64, unknowns: I64, x: U64, m: U64) -> None:
    """Each variable (rows of `x`) and each residual (rows of `m`) as a packed combination of the
    unknowns, for a zero right-hand side."""
    for j in range(unknowns.shape[0]):
        x[unknowns[j], j >> 6] |= _ONE << np.uint64(j & 63)
    kw = x.shape[1]
    res = 0
    for t in range(order.shape[0]):
        i = order[t]
        d = define[t]
        if d >= 0:
            for q in range(indptr[i], indptr[i + 1]):
                v = indices[q]
                if v != d:
                    for w in range(kw):
                        x[d, w] ^= x[v, w]
        else:
            for q in range(indptr[i], indptr[i + 1]):
                v = indices[q]
                for w in range(kw):
                    m[res, w] ^= x[v, w]
            res += 1


@numba.njit(cache=True, nogil=True)
def _chase_values(
    indptr: I64, indices: I64, order: I64, define: I64, unknowns: I64, b: U8, y: U8, x: U8, r: U8
) -> None:
    """The chase for right-hand side `b` (one byte per equation) and unknowns `y`: the variables `x`
    and the residuals `r` (all zero iff A x = b)."""
    x[:] = 0
    for j in range(unknowns.shape[0]):
        x[unknowns[j]] = y[j]
    res = 0
    for t in range(order.shape[0]):
        i = order[t]
        d = define[t]
        acc = b[i]
        for q in range(indptr[i], indptr[i + 1]):
            v = indices[q]
            if v != d:
                acc ^= x[v]
        if d >= 0:
            x[d] = acc
        else:
            r[res] = acc
            res += 1


@numba.njit(cache=True, nogil=True)
def _chase_basis(indptr: I64, indices: I64, order: I64, define: I64, unknowns: I64, ys: U8, out: U64) -> None:
    """The chase of each row of `ys` (a null vector of the residual system) with b = 0, packed into the
    rows of `out` (zero on entry)."""
    n = order.shape[0]
    b = np.zeros(n, dtype=np.uint8)
    x = np.zeros(n, dtype=np.uint8)
    r = np.zeros(max(1, unknowns.shape[0]), dtype=np.uint8)
    for row in range(ys.shape[0]):
        _chase_values(indptr, indices, order, define, unknowns, b, ys[row], x, r)
        for j in range(n):
            if x[j]:
                out[row, j >> 6] |= _ONE << np.uint64(j & 63)


def chase_unknowns(indptr: I64, indices: I64, order: I64, rank: I64 | None = None) -> int:
    """How many free unknowns the chase in `order` needs (cheap: to pick the best of several orders).

    `rank` orders the variables; by default a variable ranks as its own equation in `order` (square
    systems whose equation i and variable i belong together, such as Lights Out's cells and presses).
    """
    n = order.shape[0]
    rank = _rank_of(order) if rank is None else rank
    define = np.empty(n, dtype=np.int64)
    unknowns = np.empty(rank.shape[0], dtype=np.int64)
    return int(_chase_plan(indptr, indices, order, rank, define, unknowns))


def _rank_of(order: I64) -> I64:
    rank = np.empty(order.shape[0], dtype=np.int64)
    rank[order] = np.arange(order.shape[0], dtype=np.int64)
    return rank


@dataclass(frozen=True, slots=True)
class ChaseElimination:
    """A square sparse system A x = b over F2 (equation i names variables indices[indptr[i]:indptr[i+1]])
    reduced by chasing to its k x k residual system, eliminated.

    Everything is arrays: `to_arrays` and `from_arrays` store and restore it (a worker's job).
    """

    indptr: I64
    indices: I64
    order: I64
    define: I64
    unknowns: I64
    residual: Elimination
    #: Packed basis of the null space of A (nullity rows of n bits).
    null_basis: U64

    @property
    def n(self) -> int:
        return int(self.order.shape[0])

    @property
    def k(self) -> int:
        return int(self.unknowns.shape[0])

    @property
    def nullity(self) -> int:
        return int(self.null_basis.shape[0])

    @property
    def rank(self) -> int:
        return self.n - self.nullity

    def chase(self, b: U8, y: U8) -> tuple[U8, U8]:
        """(x, residuals) of the chase for right-hand side `b` and unknowns `y` (0/1 bytes)."""
        x = np.zeros(self.n, dtype=np.uint8)
        r = np.zeros(max(1, self.k), dtype=np.uint8)
        _chase_values(self.indptr, self.indices, self.order, self.define, self.unknowns, b, y, x, r)
        return x, r[: self.k]

    def solve(self, b: U8) -> U8 | None:
        """A solution x of A x = b (0/1 bytes per variable), or None when there is none.

        Two chases and a k x k product: the first finds the residuals r(b) with the unknowns at 0, the
        product solves M y = r(b), the second chase gives x from y.
        """
        b = np.ascontiguousarray(b, dtype=np.uint8)
        zero = np.zeros(max(1, self.k), dtype=np.uint8)
        x, r = self.chase(b, zero)
        if self.k == 0:
            return x
        y_words = self.residual.solve(pack_bits(r))
        if y_words is None:
            return None
        y = unpack_bits(y_words, self.k)
        x, r = self.chase(b, y)
        assert not r.any(), "the chase left a residual: the elimination is inconsistent"
        return x

    def to_arrays(self) -> dict[str, NDArray[np.generic]]:
        """Everything needed to rebuild it without eliminating again (for storage)."""
        return {
            "indptr": self.indptr,
            "indices": self.indices,
            "order": self.order,
            "define": self.define,
            "unknowns": self.unknowns,
            "residual_rank": np.array([self.residual.rank, self.residual.ncols], dtype=np.int64),
            "residual_pivots": self.residual.pivots,
            "residual_rref": self.residual.rref,
            "residual_transform": self.residual.transform,
            "null_basis": self.null_basis,
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, NDArray[np.generic]]) -> ChaseElimination:
        """The inverse of `to_arrays`."""
        rank, ncols = (int(v) for v in arrays["residual_rank"])

        def i64(name: str) -> I64:
            return np.ascontiguousarray(arrays[name], dtype=np.int64)

        def u64(name: str) -> U64:
            return np.ascontiguousarray(arrays[name], dtype=np.uint64)

        residual = Elimination(
            ncols, rank, i64("residual_pivots"), u64("residual_rref"), u64("residual_transform")
        )
        return cls(
            i64("indptr"),
            i64("indices"),
            i64("order"),
            i64("define"),
            i64("unknowns"),
            residual,
            u64("null_basis"),
        )


def chase_eliminate(
    indptr: I64, indices: I64, order: I64, *, max_unknowns: int | None = None
) -> ChaseElimination:
    """Reduce the square sparse system by chasing its equations in `order`, and eliminate the rest.

    Variables rank as their equations in `order` (see `chase_unknowns`). Raises TooWide, before the
    costly part, when the chase needs more than `max_unknowns` unknowns.
    """
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    indices = np.ascontiguousarray(indices, dtype=np.int64)
    order = np.ascontiguousarray(order, dtype=np.int64)
    n = order.shape[0]
    define = np.empty(n, dtype=np.int64)
    unknowns = np.empty(n, dtype=np.int64)
    k = int(_chase_plan(indptr, indices, order, _rank_of(order), define, unknowns))
    if max_unknowns is not None and k > max_unknowns:
        raise TooWide(f"the chase needs {k} free unknowns, more than the limit of {max_unknowns}")
    unknowns = unknowns[:k].copy()
    kw = words_for(k)
    x = np.zeros((n, kw), dtype=np.uint64)
    m = np.zeros((k, kw), dtype=np.uint64)
    _chase_vectors(indptr, indices, order, define, unknowns, x, m)
    del x
    residual = eliminate(m, k)
    ys = unpack_bits(residual.null_basis(), k) if k else np.zeros((0, 1), dtype=np.uint8)
    ys = np.ascontiguousarray(ys, dtype=np.uint8)
    null_basis = np.zeros((ys.shape[0], words_for(n)), dtype=np.uint64)
    if ys.shape[0]:
        _chase_basis(indptr, indices, order, define, unknowns, ys, null_basis)
    return ChaseElimination(indptr, indices, order, define, unknowns, residual, null_basis)


# -- orders for the chase ----------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def _bfs(
    indptr: I64, indices: I64, start: int, seen: NDArray[np.int64], stamp: int, out: I64, pos: int
) -> int:
    """Breadth-first from `start` over vertices whose seen[] is not `stamp`, appended to out[pos:]."""
    seen[start] = stamp
    out[pos] = start
    head = pos
    tail = pos + 1
    while head < tail:
        u = out[head]
        head += 1
        for q in range(indptr[u], indptr[u + 1]):
            v = indices[q]
            if seen[v] != stamp:
                seen[v] = stamp
                out[tail] = v
                tail += 1
    return tail


@numba.njit(cache=True, nogil=True)
def _bfs_order(indptr: I64, indices: I64) -> I64:
    n = indptr.shape[0] - 1
    seen = np.zeros(n, dtype=np.int64)
    scratch = np.empty(n, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    pos = 0
    stamp = 1
    for s in range(n):
        if seen[s] != 0:
            continue  # in a component already ordered
        # sweep 1 (odd stamp): the last vertex reached is far from s
        end = _bfs(indptr, indices, s, seen, stamp, scratch, 0)
        far = scratch[end - 1]
        # sweep 2 (even stamp) from that far vertex: the order of this component
        pos = _bfs(indptr, indices, far, seen, stamp + 1, out, pos)
        stamp += 2
    return out


def bfs_order(indptr: I64, indices: I64) -> I64:
    """A breadth-first order of a graph's vertices, component by component, each from a vertex far from
    its first one (the usual start for a narrow order, as in Cuthill-McKee)."""
    return _bfs_order(
        np.ascontiguousarray(indptr, dtype=np.int64), np.ascontiguousarray(indices, dtype=np.int64)
    )


# -- the lightest vector of a coset -----------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def _coset_search(x0: U64, basis: U64, best: U64, mask1: U64, mask2: U64) -> int:
    k = basis.shape[0]
    nw = x0.shape[0]
    z = x0.copy()
    w = 0
    for q in range(nw):
        w += _popcount(z[q])
    minw = w
    best[:] = z
    mask1[:] = z
    mask2[:] = 0
    for i in range(1, 1 << k):
        j = 0
        while not (i >> j) & 1:
            j += 1
        w = 0
        for q in range(nw):
            z[q] ^= basis[j, q]
            w += _popcount(z[q])
        if w < minw:
            if w == minw - 1:
                mask2[:] = mask1
            else:
                mask2[:] = 0
            mask1[:] = z
            best[:] = z
            minw = w
        elif w == minw:
            for q in range(nw):
                mask1[q] |= z[q]
        elif w == minw + 1:
            for q in range(nw):
                mask2[q] |= z[q]
    return minw


@dataclass(frozen=True, slots=True)
class CosetSearch:
    """The lightest vector of a coset x0 + span(basis), and what single-bit flips do to it."""

    weight: int
    #: One lightest vector (packed): the first met in Gray-code order, so always the same one.
    best: U64
    #: Union of every lightest vector, and of every vector one heavier (packed).
    lightest: U64
    next_lightest: U64

    def flip_weights(self, nbits: int) -> I64:
        """For each bit j, the weight of the lightest vector of the coset (x0 + e_j) + span(basis):
        weight - 1 where some lightest vector has bit j, else weight where some vector one heavier
        has it, else weight + 1."""
        m1 = unpack_bits(self.lightest, nbits).astype(bool)
        m2 = unpack_bits(self.next_lightest, nbits).astype(bool)
        out = np.full(nbits, self.weight + 1, dtype=np.int64)
        out[m2] = self.weight
        out[m1] = self.weight - 1
        return out


def coset_search(x0: U64, basis: U64) -> CosetSearch:
    """The lightest vector of x0 + span(basis) by walking all 2^k combinations (k = basis rows): the
    caller bounds k (2^k row operations of the rows' width)."""
    x0 = np.ascontiguousarray(x0, dtype=np.uint64)
    basis = np.ascontiguousarray(basis, dtype=np.uint64).reshape(-1, x0.shape[0])
    if basis.shape[0] > 62:
        raise ValueError(f"a coset search over 2^{basis.shape[0]} combinations is out of reach")
    best = np.empty_like(x0)
    mask1 = np.empty_like(x0)
    mask2 = np.empty_like(x0)
    weight = int(_coset_search(x0, basis, best, mask1, mask2))
    return CosetSearch(weight, best, mask1, mask2)


def coset_search_reference(x0: int, basis: list[int]) -> tuple[int, int, int]:
    """Plain-Python `coset_search` on ints: (weight, union of lightest, union of one heavier)."""
    span = [0]
    for b in basis:
        span += [v ^ b for v in span]
    weights = [(x0 ^ v).bit_count() for v in span]
    low = min(weights)
    m1 = m2 = 0
    for v, w in zip(span, weights, strict=True):
        if w == low:
            m1 |= x0 ^ v
        elif w == low + 1:
            m2 |= x0 ^ v
    return low, m1, m2


@numba.njit(cache=True, nogil=True)
def _reduce_greedily(z: U64, basis: U64, rounds: int) -> None:
    weight = 0
    for q in range(z.shape[0]):
        weight += _popcount(z[q])
    for _ in range(rounds):
        improved = False
        for j in range(basis.shape[0]):
            w = 0
            for q in range(z.shape[0]):
                w += _popcount(z[q] ^ basis[j, q])
            if w < weight:
                for q in range(z.shape[0]):
                    z[q] ^= basis[j, q]
                weight = w
                improved = True
        if not improved:
            break


def reduce_greedily(x: U64, basis: U64, rounds: int = 16) -> U64:
    """x lightened by adding each basis row that makes it lighter, in turns, while one does (a cheap
    stand-in for the search when the null space is too large to walk: a solution, not the lightest)."""
    z = np.array(x, dtype=np.uint64, copy=True)
    if basis.shape[0]:
        _reduce_greedily(z, np.ascontiguousarray(basis, dtype=np.uint64), rounds)
    return z
