"""Values of bicolor Nim (seed 001) positions: G, G- and remoteness, by the mex recurrence.

Heaps hold white and black stones; a move takes any non-empty set of stones from one heap; the move
that empties the board wins if it took a white stone and loses otherwise. G(P) is the n for which P
plus a heap of n white stones is a P-position, G-(P) the same with black stones.

The recurrence (derived here from those definitions, and checked against the definitions by
exhaustive search in the tests): for a position with two heaps or more, G and G- are the mex of the
successors' G and G- values, as in any impartial game; only a single heap, whose last move empties
the board, is an exception, and it has a closed form:
- a heap of n stones with a white one ("grey"): G = n, G- = n + 1;
- a heap of n black stones: G = n - 1, G- = n, except G-(one black stone) = 0;
- the empty position: G = 0, G- = 1 (the seed's conventions).

Remoteness follows the usual rule (the winner hurries, the loser delays), the move that empties the
board counting as a move to a position lost (it took a white stone) or won (it did not) by the player
who is then to move.

Two ways to value a whole position:
- `box_values` (numba) fills every sub-position of the position at once, heaps in a fixed order, in
  O(cells x heaps): along each heap it keeps, per cell, the union of the values below it (bit sets)
  and the extreme remoteness of the P- and N-cells below it, so a cell's successors are two lookups
  per heap instead of a loop over every smaller heap. The right tool when the heaps differ.
- `values_reference` searches canonical positions (heaps as a multiset) with memoisation, straight
  from the rules above: plain Python, the reference the tests compare the kernel with, and the right
  tool when many heaps are equal (ten equal heaps have 10! orderings but one multiset).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numba
import numpy as np
from numpy.typing import NDArray

#: A heap as (white stones, black stones).
Heap = tuple[int, int]
#: A position: its heaps, sorted, empty heaps dropped.
Heaps = tuple[Heap, ...]

#: Remoteness of the cells of `box_values` for which it is not computed (none: every cell has one).
_FAR = np.int32(2**31 - 1)


def single_heap(white: int, black: int) -> tuple[int, int, int]:
    """(G, G-, remoteness) of one heap, in closed form (see the module's docstring)."""
    n = white + black
    if n == 0:
        return 0, 1, 0
    if white:
        return n, n + 1, 1  # take it all: the last stone taken includes a white one
    if black == 1:
        return 0, 0, 1  # the only move takes the last (black) stone, and loses
    return black - 1, black, 2  # leave one black stone to the opponent


# -- the box kernel --------------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def _mex_bits(bits: NDArray[np.uint64]) -> int:
    """The least number whose bit is clear in the words `bits`."""
    one = np.uint64(1)
    for w in range(bits.shape[0]):
        word = bits[w]
        if word != np.uint64(0xFFFFFFFFFFFFFFFF):
            v = 0
            while word & one:
                word >>= one
                v += 1
            return w * 64 + v
    words: int = bits.shape[0]
    return words * 64


@numba.njit(cache=True, nogil=True)
def _box_fill(
    whites: NDArray[np.int64],
    blacks: NDArray[np.int64],
    words: int,
    g_out: NDArray[np.int32],
    m_out: NDArray[np.int32],
    r_out: NDArray[np.int32],
) -> bool:
    """Fill G, G- and remoteness of every cell of the box; False if a value needs more than `words`
    64-bit words of bit set (`box_words` says how many always suffice)."""
    k = whites.shape[0]
    cells = g_out.shape[0]
    stride = np.ones(k, dtype=np.int64)
    for i in range(k - 2, -1, -1):
        stride[i] = stride[i + 1] * (whites[i + 1] + 1) * (blacks[i + 1] + 1)
    g_below = np.zeros((k, cells, words), dtype=np.uint64)
    m_below = np.zeros((k, cells, words), dtype=np.uint64)
    n_far = np.full((k, cells), -1, dtype=np.int32)  # longest remoteness of an N-cell below
    p_near = np.full((k, cells), _FAR, dtype=np.int32)  # shortest remoteness of a P-cell below
    digit = np.zeros(k, dtype=np.int64)
    g_bits = np.zeros(words, dtype=np.uint64)
    m_bits = np.zeros(words, dtype=np.uint64)
    one = np.uint64(1)
    for c in range(cells):
        # Along each heap, the cells strictly below c: the union of the two cells one stone below it
        # (a white one, a black one), which already hold everything below themselves.
        for i in range(k):
            col = blacks[i] + 1
            for back in (stride[i] * col if digit[i] >= col else 0, stride[i] if digit[i] % col else 0):
                if back == 0:
                    continue
                b = c - back
                for w in range(words):
                    g_below[i, c, w] |= g_below[i, b, w]
                    m_below[i, c, w] |= m_below[i, b, w]
                n_far[i, c] = max(n_far[i, c], n_far[i, b])
                p_near[i, c] = min(p_near[i, c], p_near[i, b])
        nonzero = 0
        last = 0
        for i in range(k):
            if digit[i] != 0:
                nonzero += 1
                last = i
        if nonzero == 0:
            g, m, r = 0, 1, 0
        elif nonzero == 1:
            x = digit[last] // (blacks[last] + 1)
            y = digit[last] % (blacks[last] + 1)
            n = x + y
            if x > 0:
                g, m, r = n, n + 1, 1
            elif y == 1:
                g, m, r = 0, 0, 1
            else:
                g, m, r = y - 1, y, 2
        else:  # every move keeps a heap: the successors are the cells below c along every heap
            g_bits[:] = 0
            m_bits[:] = 0
            longest = -1
            shortest = _FAR
            for i in range(k):
                for w in range(words):
                    g_bits[w] |= g_below[i, c, w]
                    m_bits[w] |= m_below[i, c, w]
                longest = max(longest, n_far[i, c])
                shortest = min(shortest, p_near[i, c])
            g = _mex_bits(g_bits)
            m = _mex_bits(m_bits)
            if g >= words * 64 or m >= words * 64:
                return False
            r = 1 + int(longest if g == 0 else shortest)
        g_out[c] = g
        m_out[c] = m
        r_out[c] = r
        if nonzero > 0:  # the empty position is no one's successor (emptying moves are single heaps')
            for i in range(k):
                g_below[i, c, g // 64] |= one << np.uint64(g % 64)
                m_below[i, c, m // 64] |= one << np.uint64(m % 64)
                if g == 0:
                    p_near[i, c] = min(p_near[i, c], r)
                else:
                    n_far[i, c] = max(n_far[i, c], r)
        # the next cell: the mixed-radix counter, last heap fastest
        i = k - 1
        while i >= 0:
            digit[i] += 1
            if digit[i] < (whites[i] + 1) * (blacks[i] + 1):
                break
            digit[i] = 0
            i -= 1
    return True


def box_cells(heaps: Heaps) -> int:
    """How many sub-positions `box_values` fills for `heaps` (the product of the heaps' sub-heaps)."""
    cells = 1
    for white, black in heaps:
        cells *= (white + 1) * (black + 1)
    return cells


def box_words(heaps: Heaps) -> int:
    """64-bit words per bit set: no value exceeds the stones + 1 (a mex exceeds its options' largest by
    at most one, and a single heap's G- is its size + 1), so this many always suffice."""
    return (sum(w + b for w, b in heaps) + 2) // 64 + 1


def box_bytes(heaps: Heaps) -> int:
    """Memory `box_values` needs for `heaps`: per cell, three values and per heap two bit sets and
    two remoteness bounds."""
    return box_cells(heaps) * (12 + len(heaps) * (16 * box_words(heaps) + 8))


def box_values(heaps: Heaps) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.int32]]:
    """G, G- and remoteness of every sub-position of `heaps`, indexed in mixed radix: the sub-heap
    (x, y) of heap i (x white, y black) is digit x * (black_i + 1) + y, the last heap varying fastest.
    The last cell is the position itself."""
    whites = np.array([w for w, _ in heaps], dtype=np.int64)
    blacks = np.array([b for _, b in heaps], dtype=np.int64)
    cells = box_cells(heaps)
    g = np.empty(cells, dtype=np.int32)
    m = np.empty(cells, dtype=np.int32)
    r = np.empty(cells, dtype=np.int32)
    if not _box_fill(whites, blacks, box_words(heaps), g, m, r):
        raise AssertionError(f"a value of {heaps} exceeds its bound of stones + 1")
    return g, m, r


def box_index(heaps: Heaps, sub: Heaps) -> int:
    """The cell of `box_values(heaps)` holding the sub-position whose i-th heap is sub[i]."""
    index = 0
    for (white, black), (x, y) in zip(heaps, sub, strict=True):
        index = index * (white + 1) * (black + 1) + x * (black + 1) + y
    return index


# -- the reference: canonical positions, from the rules ---------------------------------------------


def canonical(heaps: Iterator[Heap] | list[Heap] | Heaps) -> Heaps:
    """Sorted, empty heaps dropped."""
    return tuple(sorted(h for h in heaps if h != (0, 0)))


def successors(position: Heaps) -> Iterator[tuple[int, Heap, Heaps]]:
    """(index of the heap moved in, what it becomes, the position reached) for every move; equal
    heaps give the same moves, so only the first of them is moved in."""
    for i, (white, black) in enumerate(position):
        if i and position[i - 1] == (white, black):
            continue
        rest = position[:i] + position[i + 1 :]
        for x in range(white + 1):
            for y in range(black + 1):
                if (x, y) != (white, black):
                    yield i, (x, y), canonical([*rest, (x, y)])


def move_count(position: Heaps) -> int:
    """How many moves `successors` gives, counted without listing them (a heap of n stones has n)."""
    return sum(
        (white + 1) * (black + 1) - 1
        for i, (white, black) in enumerate(position)
        if not (i and position[i - 1] == (white, black))
    )


def values_reference(
    position: Heaps,
    memo: dict[Heaps, tuple[int, int, int]] | None = None,
    budget: Callable[[], None] | None = None,
) -> tuple[int, int, int]:
    """(G, G-, remoteness) of `position` by memoised search over canonical positions (plain Python),
    single heaps included (their closed form is what the tests check this against).

    `budget` is called once per new position searched (it raises to stop a search grown too large).
    """
    memo = {} if memo is None else memo

    def solve(pos: Heaps) -> tuple[int, int, int]:
        known = memo.get(pos)
        if known is not None:
            return known
        if budget is not None:
            budget()
        if not pos:
            return (0, 1, 0)
        g_seen: set[int] = set()
        m_seen: set[int] = set()
        wins: list[int] = []
        losses: list[int] = []
        for _, _, child in successors(pos):
            if not child:  # the move empties the board: won if it took a white stone, else lost
                took_white = pos[0][0] > 0
                if took_white:
                    g_seen.add(0)  # P + 0 white: the move that empties it wins
                    m_seen.add(0)
                m_seen.add(1)  # P + 1 black: the opponent must take the last, black, stone
                (wins if took_white else losses).append(1)
                continue
            g, m, r = solve(child)
            g_seen.add(g)
            m_seen.add(m)
            (wins if g == 0 else losses).append(r + 1)
        g = _mex(g_seen)
        found = (g, _mex(m_seen), min(wins) if g else max(losses))
        memo[pos] = found
        return found

    return solve(position)


def _mex(seen: set[int]) -> int:
    v = 0
    while v in seen:
        v += 1
    return v


# -- two-heap families: a fixed heap A against a one-coloured heap of p stones ----------------------


def _base(white: int, black: int, minus: bool) -> int:
    """G (or G-, when `minus`) of one heap, or of the empty position."""
    g, m, _ = single_heap(white, black)
    return m if minus else g


@numba.njit(cache=True, nogil=True)
def _family_fill(
    fixed_white: int,
    fixed_black: int,
    second_white: bool,
    minus: bool,
    base_row: NDArray[np.int64],
    base_col: NDArray[np.int64],
    out: NDArray[np.int64],
) -> None:
    """out[s, p] = G (or G-) of (sub-heap s of A) + (p stones of the second colour), for every sub-heap
    s = x * (fixed_black + 1) + y of A and 0 <= p < out.shape[1].

    Row 0 (A emptied) and column 0 (the second heap empty) are single heaps, given in closed form by
    `base_row` and `base_col`; every other cell is the mex of the cells below it in its column (smaller
    sub-heaps of A) and before it in its row. A row's values are distinct, so a per-row "seen" mark and
    the row's least unseen value make the row part of the mex O(1) amortised.
    """
    rows, stop = out.shape
    col = fixed_black + 1
    width = stop + rows + 2
    seen = np.zeros((rows, width), dtype=np.bool_)
    least = np.zeros(rows, dtype=np.int64)
    mark = np.full(width, -1, dtype=np.int64)
    for s in range(rows):
        out[s, 0] = base_col[s]
        if s > 0 and base_col[s] < width:
            seen[s, base_col[s]] = True
            while seen[s, least[s]]:
                least[s] += 1
    for p in range(1, stop):
        out[0, p] = base_row[p]
        for s in range(1, rows):
            x = s // col
            y = s % col
            stamp = p * rows + s
            for xx in range(x + 1):
                for yy in range(y + 1):
                    t = xx * col + yy
                    if t != s:
                        v = out[t, p]
                        if v < width:
                            mark[v] = stamp
            v = least[s]
            while seen[s, v] or mark[v] == stamp:
                v += 1
            out[s, p] = v
            seen[s, v] = True
            while seen[s, least[s]]:
                least[s] += 1


def family_table(fixed: Heap, second_white: bool, minus: bool, stop: int) -> NDArray[np.int64]:
    """G (or G- when `minus`) of every sub-heap of `fixed` against a heap of p stones of one colour
    (white when `second_white`), for 0 <= p < stop: an array [sub-heap, p], the sub-heap (x, y) at row
    x * (fixed black + 1) + y, so the last row is `fixed` itself."""
    white, black = fixed
    rows = (white + 1) * (black + 1)
    base_row = np.array(
        [_base(p, 0, minus) if second_white else _base(0, p, minus) for p in range(stop)], dtype=np.int64
    )
    base_col = np.array(
        [_base(s // (black + 1), s % (black + 1), minus) for s in range(rows)], dtype=np.int64
    )
    out = np.zeros((rows, stop), dtype=np.int64)
    _family_fill(white, black, second_white, minus, base_row, base_col, out)
    return out


def family_reference(fixed: Heap, second_white: bool, minus: bool, stop: int) -> list[int]:
    """The last row of `family_table`, position by position with `values_reference` (plain Python)."""
    memo: dict[Heaps, tuple[int, int, int]] = {}
    out = []
    for p in range(stop):
        second = (p, 0) if second_white else (0, p)
        g, m, _ = values_reference(canonical([fixed, second]), memo)
        out.append(m if minus else g)
    return out


# -- arithmetic periods of the families, and their certificate -------------------------------------

#: A period is reported only over at least this many repetitions of it.
MIN_REPEATS = 10


def arithmetic_period(row: NDArray[np.int64], start: int = 0) -> tuple[int, int] | None:
    """The least T, and then the least m >= start, with row[p + T] = row[p] + T for m <= p < len - T,
    seen over at least MIN_REPEATS periods after m; None if no such T shows in the values."""
    excess = row.astype(np.int64) - np.arange(len(row), dtype=np.int64)  # periodic where row is
    n = len(row)
    for period in range(1, (n - start) // (MIN_REPEATS + 1) + 1):
        tail = n - (MIN_REPEATS + 1) * period
        if excess[n - 1] != excess[n - 1 - period]:
            continue
        if not np.array_equal(excess[tail + period :], excess[tail : n - period]):
            continue
        same = excess[period:] == excess[: n - period]  # same[p]: the relation holds at p
        broken = np.flatnonzero(~same[start:])
        return period, start if len(broken) == 0 else start + int(broken[-1]) + 1
    return None


def _row_state(row: NDArray[np.int64], p: int) -> tuple[int, tuple[int, ...]]:
    """What the rest of a row depends on at p: its least value not yet taken, and the values taken
    above it, both relative to p."""
    taken = np.zeros(int(row[:p].max(initial=0)) + 2, dtype=np.bool_)
    taken[row[:p]] = True
    least = int(np.argmin(taken))
    above = np.flatnonzero(taken[least:]) + least - p
    return least - p, tuple(int(v) for v in above)


def certify_family(table: NDArray[np.int64]) -> tuple[int, int, bool] | None:
    """(T, m, certified) of the last row F of a `family_table`: F(k + m + T) = F(k + m) + T for every
    k >= 0, m least for the least T seen; None when the values show no period.

    The certificate: from p = 2 on, column p of the table is a function of the rows' states at p (each
    row's least untaken value and the values taken above it, relative to p: `_row_state`), shifted by
    p, and so is the states' next value. If every row's state at p0 equals its state at p0 + L, every
    row continues with L(row p + L = row p + L) forever. L is the least common period of the rows;
    then T (dividing L) holds for every p >= m because it holds, as computed, on [m, p0 + L + T).
    """
    found = arithmetic_period(table[-1])
    if found is None:
        return None
    period, preperiod = found
    stop = table.shape[1]
    common = 1
    for s in range(1, table.shape[0] - 1):
        row_found = arithmetic_period(table[s])
        if row_found is None:
            return period, preperiod, False
        common = int(np.lcm(common, row_found[0]))
    common = int(np.lcm(common, period))
    p0 = stop - 1 - common - period
    if p0 < max(2, preperiod):
        return period, preperiod, False
    for s in range(1, table.shape[0]):
        if _row_state(table[s], p0) != _row_state(table[s], p0 + common):
            return period, preperiod, False
    return period, preperiod, True
