"""Retrograde analysis of explicit game graphs: win, loss or draw for the player to move, remoteness,
the generalised Sprague-Grundy function of loopy impartial graphs, and kernels of acyclic ones.

Graphs are CSR arrays of successors: the moves of vertex v lead to `indices[indptr[v]:indptr[v + 1]]`
(`indptr` int64, `indices` int32). A vertex with no move ends the game; `terminal[v]` says how, for the
player to move there: 1 win, -1 loss (normal play: the default), 0 draw. Labels of vertices that have
moves are ignored.

Remoteness follows Rivier (1921, the "coefficient" of a position) and Steinhaus: 0 at the end of the
game; a won position is 1 + the least remoteness of its lost successors (the winner hurries); a lost
one is 1 + the greatest remoteness of its successors, all of them won (the loser delays); a draw has
none (-1 here).

`solve_graph` is the linear-time queue algorithm on the reverse graph. The reverse CSR is built by a
counting sort; each vertex keeps a counter of its moves not yet known to be won for the opponent. The
decided vertices are processed in a FIFO queue, which holds them in non-decreasing order of remoteness
(a vertex decided while processing one at remoteness r has remoteness r + 1): a lost vertex makes each
undecided predecessor won with 1 + its remoteness, the first time being the least; a won vertex takes
one from each undecided predecessor's counter, and a predecessor whose counter reaches zero has all its
moves won for the opponent, the last of them (in this order) the slowest, so it is lost with 1 + that
remoteness. What is never decided is a draw. Every edge is looked at once or twice and nothing
recurses, so a long line cannot overflow anything and the cost is linear in the edges.

The same kernel takes "external" successors (the tablebase way: a chess capture leads into a smaller
material's table, whose values are known): per vertex, the least remoteness among its external moves
to positions lost for the opponent, and the number and greatest remoteness of those to positions won
for the opponent. They are applied as events at their level, merged with the queue, exactly as if
they were vertices of the graph solved beforehand.

Results pack into one byte per vertex (`pack`): 0 a draw, 1 + 2r a win in r, 2 + 2r a loss in r for
r < 126, `BROKEN` for index slots that hold no position (chess), `ESCAPE` for the rare larger
remoteness, kept in a sorted side table.

`loopy_grundy` is Smith's generalised Sprague-Grundy function gamma of a loopy impartial graph (normal
play) by Fraenkel and Yesha's labelling algorithm: each level i labels i the vertices with no follower
labelled i whose unlabelled or infinite followers all have a follower labelled i (one queue pass, as
above), then labels infinite the unlabelled ones with no follower labelled i. Cost O((max gamma + 2)
(V + E)); acyclic graphs take the ordinary mex recursion in topological order instead, O(V + E).
gamma(v) = n finite iff v + *n is a P-position; otherwise gamma(v) = infinity(K), K the finite values of
its followers, and sums classify by `sum_outcome`.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

I8 = NDArray[np.int8]
I32 = NDArray[np.int32]
I64 = NDArray[np.int64]
U8 = NDArray[np.uint8]

WIN = 1
LOSS = -1
DRAW = 0

#: Event kinds of external successors (see `ExternalMoves`).
_EV_LOST_CHILD = 0
_EV_WON_CHILDREN = 1

#: Vertices decided per kernel call between progress reports.
PROGRESS_CHUNK = 1 << 21

#: Packed codes (one byte per vertex).
PACK_LIMIT = 126
BROKEN = 253
ESCAPE = 255

#: gamma values below 0 in `loopy_grundy`'s output: infinite (the set K is found from the followers).
INFINITE = -2
_UNLABELLED = -1


# -- CSR helpers ---------------------------------------------------------------------------------------


def csr_from_edges(
    n: int,
    sources: NDArray[np.integer[Any]] | Sequence[int],
    targets: NDArray[np.integer[Any]] | Sequence[int],
) -> tuple[I64, I32]:
    """CSR successors of `n` vertices from edge lists (parallel edges kept, order kept per vertex)."""
    src = np.asarray(sources, dtype=np.int64)
    dst = np.asarray(targets, dtype=np.int64)
    if src.shape != dst.shape:
        raise ValueError("sources and targets differ in length")
    if src.size and (src.min() < 0 or src.max() >= n or dst.min() < 0 or dst.max() >= n):
        raise ValueError("an edge names a vertex outside 0..n-1")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    indices = np.empty(src.shape[0], dtype=np.int32)
    _fill_csr(src, dst, indptr, indices)
    return indptr, indices


@numba.njit(cache=True, nogil=True)
def _fill_csr(src: I64, dst: I64, indptr: I64, indices: I32) -> None:
    cursor = indptr[:-1].copy()
    for e in range(src.shape[0]):
        indices[cursor[src[e]]] = dst[e]
        cursor[src[e]] += 1


@numba.njit(cache=True, nogil=True)
def _reverse(indptr: I64, indices: I32, rev_indptr: I64, rev_indices: I32) -> None:
    n = indptr.shape[0] - 1
    for e in range(indices.shape[0]):
        rev_indptr[indices[e] + 1] += 1
    for v in range(n):
        rev_indptr[v + 1] += rev_indptr[v]
    cursor = rev_indptr[:-1].copy()
    for v in range(n):
        for e in range(indptr[v], indptr[v + 1]):
            w = indices[e]
            rev_indices[cursor[w]] = v
            cursor[w] += 1


def reverse_csr(indptr: I64, indices: I32) -> tuple[I64, I32]:
    """The predecessors of each vertex as CSR (a counting sort, linear in the edges)."""
    n = indptr.shape[0] - 1
    rev_indptr = np.zeros(n + 1, dtype=np.int64)
    rev_indices = np.empty(indices.shape[0], dtype=np.int32)
    _reverse(indptr, indices, rev_indptr, rev_indices)
    return rev_indptr, rev_indices


# -- win / loss / draw with remoteness ------------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def _retro_run(
    rev_indptr: I64,
    rev_indices: I32,
    counter: I32,
    outcome: I8,
    remoteness: I32,
    queue: I32,
    state: I64,
    ev_vertex: I32,
    ev_level: I32,
    ev_kind: I8,
    ev_count: I32,
    budget: int,
) -> None:
    """Process decided vertices (and external events) in order of remoteness, at most `budget` of
    them; `state` = [queue head, queue tail, next event], kept between calls."""
    head = state[0]
    tail = state[1]
    ev = state[2]
    n_ev = ev_vertex.shape[0]
    done = 0
    while done < budget:
        if ev < n_ev and (head == tail or ev_level[ev] <= remoteness[queue[head]]):
            v = ev_vertex[ev]
            level = ev_level[ev]
            if outcome[v] == 0:
                if ev_kind[ev] == 0:
                    outcome[v] = 1
                    remoteness[v] = level + 1
                    queue[tail] = v
                    tail += 1
                else:
                    counter[v] -= ev_count[ev]
                    if counter[v] == 0:
                        outcome[v] = -1
                        remoteness[v] = level + 1
                        queue[tail] = v
                        tail += 1
            ev += 1
            continue
        if head == tail:
            break
        u = queue[head]
        head += 1
        done += 1
        r = remoteness[u] + 1
        if outcome[u] < 0:
            for e in range(rev_indptr[u], rev_indptr[u + 1]):
                p = rev_indices[e]
                if outcome[p] == 0:
                    outcome[p] = 1
                    remoteness[p] = r
                    queue[tail] = p
                    tail += 1
        else:
            for e in range(rev_indptr[u], rev_indptr[u + 1]):
                p = rev_indices[e]
                if outcome[p] == 0:
                    counter[p] -= 1
                    if counter[p] == 0:
                        outcome[p] = -1
                        remoteness[p] = r
                        queue[tail] = p
                        tail += 1
    state[0] = head
    state[1] = tail
    state[2] = ev


@dataclass(frozen=True, slots=True)
class ExternalMoves:
    """Moves of some vertices to positions outside the graph whose values are known.

    Per vertex (arrays of length n): `lost_min`, the least remoteness among its external moves to
    positions lost for the player to move there (-1: none); `won_count` and `won_max`, how many of its
    external moves lead to positions won for the player to move there, and their greatest remoteness.
    External moves to draws only count in `count` (every external move of the vertex).
    """

    count: I32
    lost_min: I32
    won_count: I32
    won_max: I32

    def events(self) -> tuple[I32, I32, NDArray[np.int8], I32]:
        lost = np.flatnonzero(self.lost_min >= 0).astype(np.int32)
        won = np.flatnonzero(self.won_count > 0).astype(np.int32)
        vertex = np.concatenate([lost, won])
        level = np.concatenate([self.lost_min[lost], self.won_max[won]]).astype(np.int32)
        kind = np.concatenate(
            [np.full(lost.size, _EV_LOST_CHILD, np.int8), np.full(won.size, _EV_WON_CHILDREN, np.int8)]
        )
        count = np.concatenate([np.zeros(lost.size, np.int32), self.won_count[won]]).astype(np.int32)
        order = np.argsort(level, kind="stable")
        return vertex[order], level[order], kind[order], count[order]


def solve_reverse(
    rev_indptr: I64,
    rev_indices: I32,
    degree: I32,
    terminal: I8,
    external: ExternalMoves | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[I8, I32]:
    """`solve_graph` from the reverse graph and the out-degrees (external moves included in neither:
    `external.count` is added to `degree` here). A vertex of degree 0 with no external move is
    terminal, labelled by `terminal`."""
    n = degree.shape[0]
    counter = degree.astype(np.int32, copy=True)
    if external is not None:
        counter += external.count
        ev = external.events()
    else:
        empty = np.empty(0, np.int32)
        ev = (empty, empty, np.empty(0, np.int8), empty)
    outcome = np.zeros(n, dtype=np.int8)
    remoteness = np.full(n, -1, dtype=np.int32)
    ends = counter == 0
    won_end = ends & (terminal > 0)
    lost_end = ends & (terminal < 0)
    outcome[won_end] = 1
    outcome[lost_end] = -1
    remoteness[won_end | lost_end] = 0
    queue = np.empty(n, dtype=np.int32)
    seeds = np.flatnonzero(won_end | lost_end).astype(np.int32)
    queue[: seeds.size] = seeds
    state = np.array([0, seeds.size, 0], dtype=np.int64)
    while True:
        _retro_run(rev_indptr, rev_indices, counter, outcome, remoteness, queue, state, *ev, PROGRESS_CHUNK)
        if progress is not None:
            progress(int(state[0]), n)
        if state[0] == state[1] and state[2] == ev[0].shape[0]:
            break
    if progress is not None:
        progress(n, n)
    return outcome, remoteness


def solve_graph(
    indptr: I64,
    indices: I32,
    terminal: I8 | None = None,
    external: ExternalMoves | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[I8, I32]:
    """Outcome (1 win, -1 loss, 0 draw, for the player to move) and remoteness (-1 for draws) of every
    vertex of a CSR graph; `terminal` labels the vertices with no move (default: all losses).
    `progress(done, total)` is called between chunks of work (vertices decided so far, of all)."""
    n = indptr.shape[0] - 1
    if terminal is None:
        terminal = np.full(n, LOSS, dtype=np.int8)
    rev_indptr, rev_indices = reverse_csr(indptr, indices)
    degree = np.diff(indptr).astype(np.int32)
    return solve_reverse(rev_indptr, rev_indices, degree, terminal, external, progress)


def solve_graph_reference(
    indptr: Sequence[int] | I64,
    indices: Sequence[int] | I32,
    terminal: Sequence[int] | I8 | None = None,
) -> tuple[list[int], list[int]]:
    """Plain-Python reference of `solve_graph`: the naive fixed-point iteration by levels.

    W_k and L_k are the vertices won and lost within k moves: a vertex with no move is in W_0 or L_0
    as labelled; v is in W_k if a successor is in L_(k-1), and in L_k if it has moves, all in W_(k-1).
    Both grow with k; once neither changes they never will. Remoteness is the first k.
    """
    n = len(indptr) - 1
    succ = [[int(w) for w in indices[int(indptr[v]) : int(indptr[v + 1])]] for v in range(n)]
    labels = [LOSS] * n if terminal is None else [int(t) for t in terminal]
    outcome = [0] * n
    remoteness = [-1] * n
    for v in range(n):
        if not succ[v] and labels[v] != DRAW:
            outcome[v] = labels[v]
            remoteness[v] = 0
    k = 0
    while True:
        k += 1
        won = [v for v in range(n) if outcome[v] == 0 and any(outcome[w] == LOSS for w in succ[v])]
        lost = [
            v for v in range(n) if outcome[v] == 0 and succ[v] and all(outcome[w] == WIN for w in succ[v])
        ]
        if not won and not lost:
            return outcome, remoteness
        for v in won:
            outcome[v], remoteness[v] = WIN, k
        for v in lost:
            outcome[v], remoteness[v] = LOSS, k


# -- packing -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Packed:
    """Outcome and remoteness in one byte per vertex, larger remoteness in a sorted side table."""

    codes: U8
    escape_index: I64
    escape_outcome: I8
    escape_remoteness: I32

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    @property
    def nbytes(self) -> int:
        return int(
            self.codes.nbytes
            + self.escape_index.nbytes
            + self.escape_outcome.nbytes
            + self.escape_remoteness.nbytes
        )

    def lookup(self, i: int) -> tuple[int, int] | None:
        """(outcome, remoteness) of vertex `i`, remoteness -1 for a draw; None for a broken slot."""
        code = int(self.codes[i])
        if code == 0:
            return DRAW, -1
        if code == BROKEN:
            return None
        if code == ESCAPE:
            j = int(np.searchsorted(self.escape_index, i))
            return int(self.escape_outcome[j]), int(self.escape_remoteness[j])
        r, loss = divmod(code - 1, 2)
        return (LOSS if loss else WIN), r

    def lookup_many(self, index: I64) -> tuple[I8, I32, NDArray[np.bool_]]:
        """`unpack` restricted to the vertices `index`."""
        codes = self.codes[index]
        outcome, remoteness, broken = _decode(codes)
        esc = np.flatnonzero(codes == ESCAPE)
        if esc.size:
            j = np.searchsorted(self.escape_index, index[esc])
            outcome[esc] = self.escape_outcome[j]
            remoteness[esc] = self.escape_remoteness[j]
        return outcome, remoteness, broken

    def unpack(self) -> tuple[I8, I32, NDArray[np.bool_]]:
        """Outcome, remoteness and the broken-slot mask of every vertex."""
        outcome, remoteness, broken = _decode(self.codes)
        outcome[self.escape_index] = self.escape_outcome
        remoteness[self.escape_index] = self.escape_remoteness
        return outcome, remoteness, broken

    _HEADER = struct.Struct("<4sQQ")

    def to_bytes(self, compress: bool = True) -> bytes:
        """A self-describing little-endian serialisation (magic, sizes, codes, side table), the codes
        deflated unless `compress` is false (a solved table's codes are long runs: chess tables take
        a fraction of a byte per position so)."""
        codes = self.codes.tobytes()
        magic = b"RTZ1" if compress else b"RTG1"
        if compress:
            codes = zlib.compress(codes, 6)
        head = self._HEADER.pack(magic, self.codes.shape[0], self.escape_index.shape[0])
        return b"".join(
            [
                head,
                struct.pack("<Q", len(codes)),
                codes,
                self.escape_index.astype("<i8").tobytes(),
                self.escape_outcome.astype("i1").tobytes(),
                self.escape_remoteness.astype("<i4").tobytes(),
            ]
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> Packed:
        magic, n, m = cls._HEADER.unpack_from(data, 0)
        if magic not in (b"RTG1", b"RTZ1"):
            raise ValueError("not a packed retrograde table")
        at = cls._HEADER.size
        (size,) = struct.unpack_from("<Q", data, at)
        at += 8
        raw = data[at : at + size]
        at += size
        if magic == b"RTZ1":
            raw = zlib.decompress(raw)
        codes = np.frombuffer(raw, dtype=np.uint8, count=n).copy()
        index = np.frombuffer(data, dtype="<i8", count=m, offset=at).astype(np.int64)
        at += 8 * m
        outcome = np.frombuffer(data, dtype="i1", count=m, offset=at).astype(np.int8)
        at += m
        remoteness = np.frombuffer(data, dtype="<i4", count=m, offset=at).astype(np.int32)
        return cls(codes, index, outcome, remoteness)


def _decode(codes: U8) -> tuple[I8, I32, NDArray[np.bool_]]:
    c = codes.astype(np.int32)
    broken = codes == BROKEN
    plain = (c > 0) & (c <= 2 * PACK_LIMIT)
    outcome = np.zeros(codes.shape[0], dtype=np.int8)
    remoteness = np.full(codes.shape[0], -1, dtype=np.int32)
    outcome[plain] = np.where((c[plain] - 1) % 2 == 1, LOSS, WIN)
    remoteness[plain] = (c[plain] - 1) // 2
    return outcome, remoteness, broken


def pack(outcome: I8, remoteness: I32, broken: NDArray[np.bool_] | None = None) -> Packed:
    """One byte per vertex: 0 draw, 1 + 2r win, 2 + 2r loss (r < 126), BROKEN, ESCAPE (side table)."""
    n = outcome.shape[0]
    codes = np.zeros(n, dtype=np.uint8)
    decided = outcome != 0
    small = decided & (remoteness < PACK_LIMIT)
    codes[small] = (1 + 2 * remoteness[small] + (outcome[small] < 0)).astype(np.uint8)
    big = np.flatnonzero(decided & ~small)
    codes[big] = ESCAPE
    if broken is not None:
        codes[broken] = BROKEN
        big = big[~broken[big]]
    return Packed(codes, big.astype(np.int64), outcome[big].astype(np.int8), remoteness[big].astype(np.int32))


# -- impartial graphs: acyclicity, Grundy values, kernels -----------------------------------------------


@numba.njit(cache=True, nogil=True)
def _topological(indptr: I64, rev_indptr: I64, rev_indices: I32, order: I32) -> int:
    """Vertices in an order where every vertex follows all its successors (Kahn, from the sinks);
    returns how many were ordered (all of them iff the graph is acyclic)."""
    n = indptr.shape[0] - 1
    left = np.empty(n, dtype=np.int64)
    tail = 0
    for v in range(n):
        left[v] = indptr[v + 1] - indptr[v]
        if left[v] == 0:
            order[tail] = v
            tail += 1
    head = 0
    while head < tail:
        u = order[head]
        head += 1
        for e in range(rev_indptr[u], rev_indptr[u + 1]):
            p = rev_indices[e]
            left[p] -= 1
            if left[p] == 0:
                order[tail] = p
                tail += 1
    return tail


@numba.njit(cache=True, nogil=True)
def _mex_in_order(indptr: I64, indices: I32, order: I32, out: I32) -> None:
    n = indptr.shape[0] - 1
    maxdeg = 0
    for v in range(n):
        maxdeg = max(maxdeg, indptr[v + 1] - indptr[v])
    seen = np.zeros(maxdeg + 2, dtype=np.bool_)
    for k in range(n):
        v = order[k]
        deg = indptr[v + 1] - indptr[v]
        for e in range(indptr[v], indptr[v + 1]):
            g = out[indices[e]]
            if g <= deg:
                seen[g] = True
        m = 0
        while seen[m]:
            m += 1
        out[v] = m
        for e in range(indptr[v], indptr[v + 1]):
            g = out[indices[e]]
            if g <= deg:
                seen[g] = False


def topological_order(indptr: I64, indices: I32, reverse: tuple[I64, I32] | None = None) -> I32 | None:
    """Every vertex after all its successors, or None when the graph has a cycle (`reverse`: the graph's
    `reverse_csr` when the caller has it, else built here)."""
    rev_indptr, rev_indices = reverse_csr(indptr, indices) if reverse is None else reverse
    n = indptr.shape[0] - 1
    order = np.empty(n, dtype=np.int32)
    return order if _topological(indptr, rev_indptr, rev_indices, order) == n else None


def is_acyclic(indptr: I64, indices: I32) -> bool:
    return topological_order(indptr, indices) is not None


def grundy_acyclic(indptr: I64, indices: I32) -> I32:
    """Sprague-Grundy values of an acyclic graph (ValueError if it has a cycle)."""
    order = topological_order(indptr, indices)
    if order is None:
        raise ValueError("the graph has a cycle")
    out = np.zeros(indptr.shape[0] - 1, dtype=np.int32)
    _mex_in_order(indptr, indices, order, out)
    return out


def kernel_of_acyclic(indptr: I64, indices: I32) -> I32:
    """The kernel of an acyclic graph (independent and absorbing): its P-positions, ascending."""
    return np.flatnonzero(grundy_acyclic(indptr, indices) == 0).astype(np.int32)


@numba.njit(cache=True, nogil=True)
def _gsg_levels(indptr: I64, indices: I32, rev_indptr: I64, rev_indices: I32, label: I32) -> None:
    """Fraenkel and Yesha's labelling, level by level; each level looks only at the vertices still
    unlabelled (`todo`) and at the edges around the ones it labels."""
    n = indptr.shape[0] - 1
    need = np.zeros(n, dtype=np.int64)
    has_i = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int32)
    todo = np.arange(n, dtype=np.int32)
    n_todo = n
    touched = np.empty(n, dtype=np.int32)
    n_touched = 0
    level = 0
    while n_todo > 0:
        for k in range(n_touched):
            has_i[touched[k]] = False
        n_touched = 0
        top = 0
        for k in range(n_todo):
            v = todo[k]
            c = 0
            for e in range(indptr[v], indptr[v + 1]):
                if label[indices[e]] < 0:
                    c += 1
            need[v] = c
            if c == 0:
                stack[top] = v
                top += 1
        while top > 0:
            top -= 1
            u = stack[top]
            if label[u] != -1 or has_i[u]:
                continue
            label[u] = level
            for e in range(rev_indptr[u], rev_indptr[u + 1]):
                p = rev_indices[e]
                if has_i[p]:
                    continue
                has_i[p] = True
                touched[n_touched] = p
                n_touched += 1
                if label[p] >= 0:
                    continue
                for f in range(rev_indptr[p], rev_indptr[p + 1]):
                    q = rev_indices[f]
                    if label[q] == -1:
                        need[q] -= 1
                        if need[q] == 0 and not has_i[q]:
                            stack[top] = q
                            top += 1
        kept = 0
        for k in range(n_todo):
            v = todo[k]
            if label[v] == -1:
                if has_i[v]:
                    todo[kept] = v
                    kept += 1
                else:
                    label[v] = -2
        n_todo = kept
        level += 1


def loopy_grundy(indptr: I64, indices: I32) -> I32:
    """Generalised Sprague-Grundy values gamma of every vertex (normal play): n >= 0, or INFINITE,
    whose set K is `infinity_set` (the finite values of the followers)."""
    reverse = reverse_csr(indptr, indices)
    return loopy_grundy_from(indptr, indices, reverse, topological_order(indptr, indices, reverse))


def loopy_grundy_from(indptr: I64, indices: I32, reverse: tuple[I64, I32], order: I32 | None) -> I32:
    """`loopy_grundy` given the graph's `reverse_csr` and its `topological_order` (None: it has a
    cycle), for a caller that needs them too (kinds.graphs.kind's solve)."""
    n = indptr.shape[0] - 1
    label = np.full(n, _UNLABELLED, dtype=np.int32)
    if order is not None:
        _mex_in_order(indptr, indices, order, label)
        return label
    rev_indptr, rev_indices = reverse
    _gsg_levels(indptr, indices, rev_indptr, rev_indices, label)
    return label


def infinity_set(indptr: I64, indices: I32, gamma: I32, v: int) -> frozenset[int]:
    """K of gamma(v) = infinity(K): the finite gamma values among the followers of v."""
    followers = gamma[indices[indptr[v] : indptr[v + 1]]]
    return frozenset(int(g) for g in np.unique(followers[followers >= 0]))


#: A generalised Sprague-Grundy value: (n, empty set) when finite, (None, K) for infinity(K).
Gamma = tuple[int | None, frozenset[int]]


def sum_gamma(parts: Iterable[Gamma]) -> Gamma:
    """gamma of a sum (Smith): the nim-sum of finite parts; infinity(K xor b) with one infinite part
    infinity(K) and b the nim-sum of the others; infinity(empty) with two or more."""
    total = 0
    infinite: list[frozenset[int]] = []
    for value, k in parts:
        if value is None:
            infinite.append(k)
        else:
            total ^= value
    if not infinite:
        return total, frozenset()
    if len(infinite) == 1:
        return None, frozenset(x ^ total for x in infinite[0])
    return None, frozenset()


def gamma_outcome(value: Gamma) -> str:
    """ "P", "N" or "D" of a position from its gamma: P iff 0; a draw iff infinity(K) with 0 not in K."""
    g, k = value
    if g is None:
        return "N" if 0 in k else "D"
    return "P" if g == 0 else "N"


def sum_outcome(parts: Iterable[Gamma]) -> str:
    """ "P", "N" or "D" of a sum of positions of loopy impartial graphs, from their gammas."""
    return gamma_outcome(sum_gamma(parts))


def loopy_grundy_reference(indptr: Sequence[int] | I64, indices: Sequence[int] | I32) -> list[Gamma]:
    """gamma by its characterisation: gamma(v) = n iff v + *n is a P-position (found by the naive
    fixed point on the sum with a nim heap), else infinity(K) with K the followers' finite values."""
    n = len(indptr) - 1
    succ = [[int(w) for w in indices[int(indptr[v]) : int(indptr[v + 1])]] for v in range(n)]
    top = max((len(s) for s in succ), default=0) + 1  # gamma(v) <= out-degree of v
    heaps = top + 1
    src: list[int] = []
    dst: list[int] = []
    for v in range(n):
        for h in range(heaps):
            for w in succ[v]:
                src.append(v * heaps + h)
                dst.append(w * heaps + h)
            for h2 in range(h):
                src.append(v * heaps + h)
                dst.append(v * heaps + h2)
    p_indptr, p_indices = csr_from_edges(n * heaps, src, dst)
    outcome, _ = solve_graph_reference(p_indptr.tolist(), p_indices.tolist())
    finite: list[int | None] = []
    for v in range(n):
        ps = [h for h in range(heaps) if outcome[v * heaps + h] == LOSS]
        assert len(ps) <= 1
        finite.append(ps[0] if ps else None)
    out: list[Gamma] = []
    for v in range(n):
        g = finite[v]
        if g is not None:
            out.append((g, frozenset()))
        else:
            out.append((None, frozenset(x for w in succ[v] if (x := finite[w]) is not None)))
    return out
