"""Numba move generation and perfect indexing for small chess endgames (engine.games.chess_tables).

A material has two sides: A (the stronger, named first: K+Q in KQvKR) and B. Positions are indexed
with A as White (a FEN with the colours the other way round is mirrored top to bottom first), so A's
pawns move up the board. Squares are python-chess's (a1 = 0, b1 = 1, ..., h8 = 63); piece types too
(pawn 1, knight 2, bishop 3, rook 4, queen 5, king 6).

The index of a position (its "slot") is

    slot = side_to_move * half + kings * pieces_size + pieces

- `kings`: the two kings' squares under the board's symmetries: pawnless, the A king in the
  a1-d1-d4 triangle and, when it is on the a1-d4 diagonal, the B king on or below the a1-h8 diagonal
  (the 462 legal placements); with pawns, the left-right mirror only, the A king on files a-d (1806).
- `pieces`: the other men. One piece: its rank among the 62 squares the kings leave (a pawn: among
  the 48 squares of ranks 2-7, a slot clashing with a king being broken). Two different pieces: 62 x
  61, the second ranked among the squares left by the kings and the first. Two identical pieces (same
  type and side): a pair of the 62, C(62, 2) = 1891 slots.
- `side_to_move`: 0 for A, 1 for B.

A slot is broken when it names no legal position: a pawn on a king's square, or the side not to move in
check. Several symmetric images may be valid (both kings on the diagonal); `canonical` takes the least
slot of them, and the others still hold the same value, being solved like any position.

Spec of a material (int64[6]): [m, pawnful, t0, o0, t1, o1]: m men besides the kings, of types t_i
owned by o_i (0 = A, 1 = B). A move that captures or promotes leaves the material; `children` (int64[m +
4, 9]) says where to: row c for the capture of man c, row m + (type - 2) for a promotion to type
(knight 2 ... queen 5); each row [m', pawnful', t0', o0', t1', o1', flip, perm0, perm1] (m' = -1: not
possible): the child material's spec, whether its side A is our B (the position is then mirrored top to
bottom and the colours swapped), and which of the men left become the child's man 0 and 1.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

I8 = NDArray[np.int8]
I32 = NDArray[np.int32]
I64 = NDArray[np.int64]
U64 = NDArray[np.uint64]

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6

KK_PAWNLESS = 462
KK_PAWNFUL = 1806
PAIRS = 1891  # C(62, 2)

#: Most legal moves one position of these materials has (two queens and a king: 27 + 27 + 8).
MAX_MOVES = 96


def _board_tables() -> tuple[U64, U64, U64, I8]:
    king = np.zeros(64, dtype=np.uint64)
    knight = np.zeros(64, dtype=np.uint64)
    between = np.zeros(64 * 64, dtype=np.uint64)
    line = np.zeros(64 * 64, dtype=np.int8)
    for s in range(64):
        f, r = s & 7, s >> 3
        for df in (-1, 0, 1):
            for dr in (-1, 0, 1):
                if (df or dr) and 0 <= f + df < 8 and 0 <= r + dr < 8:
                    king[s] |= np.uint64(1) << np.uint64((r + dr) * 8 + f + df)
        for df, dr in ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)):
            if 0 <= f + df < 8 and 0 <= r + dr < 8:
                knight[s] |= np.uint64(1) << np.uint64((r + dr) * 8 + f + df)
        for t in range(64):
            if t == s:
                continue
            df, dr = (t & 7) - f, (t >> 3) - r
            if df == 0 or dr == 0:
                kind = 1
            elif abs(df) == abs(dr):
                kind = 2
            else:
                continue
            line[s * 64 + t] = kind
            sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
            x, y = f + sf, r + sr
            bits = np.uint64(0)
            while (x, y) != (t & 7, t >> 3):
                bits |= np.uint64(1) << np.uint64(y * 8 + x)
                x, y = x + sf, y + sr
            between[s * 64 + t] = bits
    return king, knight, between, line


def _king_tables() -> tuple[I32, I32, I32, I32]:
    def apart(a: int, b: int) -> bool:
        return max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3))) > 1

    pawnless = np.full(4096, -1, dtype=np.int32)
    pawnless_sq: list[tuple[int, int]] = []
    for a in range(64):
        f, r = a & 7, a >> 3
        if not (f <= 3 and r <= f):
            continue
        for b in range(64):
            if b == a or not apart(a, b):
                continue
            if f == r and (b >> 3) > (b & 7):
                continue
            pawnless[a * 64 + b] = len(pawnless_sq)
            pawnless_sq.append((a, b))
    pawnful = np.full(4096, -1, dtype=np.int32)
    pawnful_sq: list[tuple[int, int]] = []
    for a in range(64):
        if (a & 7) > 3:
            continue
        for b in range(64):
            if b != a and apart(a, b):
                pawnful[a * 64 + b] = len(pawnful_sq)
                pawnful_sq.append((a, b))
    assert len(pawnless_sq) == KK_PAWNLESS and len(pawnful_sq) == KK_PAWNFUL
    return (
        pawnless,
        np.array(pawnless_sq, dtype=np.int32).reshape(-1),
        pawnful,
        np.array(pawnful_sq, dtype=np.int32).reshape(-1),
    )


KING_ATT, KNIGHT_ATT, BETWEEN, LINE = _board_tables()


def _targets(att: U64) -> NDArray[np.int8]:
    out = np.full((64, 8), -1, dtype=np.int8)
    for s in range(64):
        to = [t for t in range(64) if (int(att[s]) >> t) & 1]
        out[s, : len(to)] = to
    return out


KING_TO = _targets(KING_ATT)
KNIGHT_TO = _targets(KNIGHT_ATT)
KK_INDEX, KK_SQUARES, KKP_INDEX, KKP_SQUARES = _king_tables()


# -- indexing ----------------------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True, inline="always")
def _identical(spec: I64) -> bool:
    return bool(spec[0] == 2 and spec[2] == spec[4] and spec[3] == spec[5])


@numba.njit(cache=True, nogil=True)
def pieces_size(spec: I64) -> int:
    m = spec[0]
    if m == 0:
        return 1
    if m == 1:
        return 48 if spec[2] == PAWN else 62
    if _identical(spec):
        return PAIRS
    return 62 * 61


@numba.njit(cache=True, nogil=True)
def half_size(spec: I64) -> int:
    return (KK_PAWNFUL if spec[1] else KK_PAWNLESS) * pieces_size(spec)


@numba.njit(cache=True, nogil=True, inline="always")
def _transform(s: int, t: int) -> int:
    if t & 4:
        s = ((s & 7) << 3) | (s >> 3)
    if t & 1:
        s ^= 7
    if t & 2:
        s ^= 56
    return s


@numba.njit(cache=True, nogil=True)
def _encode(spec: I64, ka: int, kb: int, s0: int, s1: int, stm: int) -> int:
    """The slot of a position whose kings are in the index's domain, else -1."""
    kk = KKP_INDEX[ka * 64 + kb] if spec[1] else KK_INDEX[ka * 64 + kb]
    if kk < 0:
        return -1
    m = spec[0]
    rest = 0
    if m == 1:
        if spec[2] == PAWN:
            if s0 < 8 or s0 > 55:
                return -1
            rest = s0 - 8
        else:
            rest = s0 - (ka < s0) - (kb < s0)
    elif m == 2:
        x = s0 - (ka < s0) - (kb < s0)
        if _identical(spec):
            y = s1 - (ka < s1) - (kb < s1)
            if x > y:
                x, y = y, x
            rest = y * (y - 1) // 2 + x
        else:
            y = s1 - (ka < s1) - (kb < s1) - (s0 < s1)
            rest = x * 61 + y
    return int(stm * half_size(spec) + kk * pieces_size(spec) + rest)


@numba.njit(cache=True, nogil=True, inline="always")
def _transpose(s: int) -> int:
    return ((s & 7) << 3) | (s >> 3) if s >= 0 else -1


@numba.njit(cache=True, nogil=True)
def canonical(spec: I64, ka: int, kb: int, s0: int, s1: int, stm: int) -> int:
    """The least slot among the symmetric images of a position (A = White; -1 past the index).

    Pawnless: the flips that bring the A king to a1-d4, then the transposition when it stands above
    the diagonal, or on it with the B king above; with both kings on the diagonal both images are
    valid and the lesser slot is taken. With pawns: the mirror that brings the A king to files a-d."""
    x = 7 if (ka & 7) > 3 else 0
    if not spec[1] and (ka >> 3) > 3:
        x |= 56
    ka ^= x
    kb ^= x
    if s0 >= 0:
        s0 ^= x
    if s1 >= 0:
        s1 ^= x
    if spec[1]:
        return _encode(spec, ka, kb, s0, s1, stm)
    fa = ka & 7
    ra = ka >> 3
    fb = kb & 7
    rb = kb >> 3
    if ra > fa or (ra == fa and rb > fb):
        return _encode(spec, _transpose(ka), _transpose(kb), _transpose(s0), _transpose(s1), stm)
    slot = _encode(spec, ka, kb, s0, s1, stm)
    if ra == fa and rb == fb:
        other = _encode(spec, _transpose(ka), _transpose(kb), _transpose(s0), _transpose(s1), stm)
        if other < slot:
            return other
    return slot


@numba.njit(cache=True, nogil=True)
def canonical_slots(spec: I64) -> NDArray[np.bool_]:
    """Whether each slot is the one `canonical` gives its position (the least of its symmetric images):
    counting these counts every position once, where both kings on the diagonal give it two slots."""
    n = 2 * half_size(spec)
    out = np.zeros(n, dtype=np.bool_)
    sq = np.full(4, -1, dtype=np.int64)
    m = spec[0]
    for slot in range(n):
        stm = decode(spec, slot, sq)
        if stm < 0:
            continue
        s0 = sq[2] if m >= 1 else -1
        s1 = sq[3] if m >= 2 else -1
        out[slot] = canonical(spec, sq[0], sq[1], s0, s1, stm) == slot
    return out


@numba.njit(cache=True, nogil=True)
def canonical_by_search(spec: I64, ka: int, kb: int, s0: int, s1: int, stm: int) -> int:
    """`canonical` by trying every symmetry of the board (the tests compare the two)."""
    best = -1
    count = 2 if spec[1] else 8
    for t in range(count):
        slot = _encode(
            spec,
            _transform(ka, t),
            _transform(kb, t),
            _transform(s0, t) if s0 >= 0 else -1,
            _transform(s1, t) if s1 >= 0 else -1,
            stm,
        )
        if slot >= 0 and (best < 0 or slot < best):
            best = slot
    return best


@numba.njit(cache=True, nogil=True, inline="always")
def _unrank(x: int, a: int, b: int) -> int:
    """The x-th square (from 0) of those not in {a, b} (a < b)."""
    s = x
    if s >= a:
        s += 1
    if s >= b:
        s += 1
    return s


@numba.njit(cache=True, nogil=True)
def decode(spec: I64, slot: int, sq: I64) -> int:
    """Squares of the slot's men (kings A, B, then the others) into `sq`; the side to move, or -1 when
    the slot clashes (a pawn on a king). Legality (check) is not looked at."""
    half = half_size(spec)
    stm = slot // half
    rest = slot - stm * half
    size = pieces_size(spec)
    kk = rest // size
    rest -= kk * size
    if spec[1]:
        ka = KKP_SQUARES[2 * kk]
        kb = KKP_SQUARES[2 * kk + 1]
    else:
        ka = KK_SQUARES[2 * kk]
        kb = KK_SQUARES[2 * kk + 1]
    sq[0] = ka
    sq[1] = kb
    lo = min(ka, kb)
    hi = max(ka, kb)
    m = spec[0]
    if m == 1:
        if spec[2] == PAWN:
            s = rest + 8
            if s == ka or s == kb:  # noqa: SIM109 - plain comparisons in numba
                return -1
            sq[2] = s
        else:
            sq[2] = _unrank(rest, lo, hi)
    elif m == 2:
        if _identical(spec):
            y = 1
            while (y + 1) * y // 2 <= rest:
                y += 1
            x = rest - y * (y - 1) // 2
            sq[2] = _unrank(x, lo, hi)
            sq[3] = _unrank(y, lo, hi)
        else:
            x = rest // 61
            y = rest - x * 61
            s0 = _unrank(x, lo, hi)
            sq[2] = s0
            # y-th square of those not in {ka, kb, s0}
            s = y
            a = lo
            b = hi
            c = s0
            if c < a:
                a, c = c, a
            if c < b:
                b, c = c, b
            if a > b:
                a, b = b, a
            if s >= a:
                s += 1
            if s >= b:
                s += 1
            if s >= c:
                s += 1
            sq[3] = s
    return stm


# -- attacks and moves -------------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True, inline="always")
def _attacks(kind: int, owner: int, s: int, target: int, occ: np.uint64) -> bool:
    if kind == KING:
        return bool((KING_ATT[s] >> np.uint64(target)) & np.uint64(1) != 0)
    if kind == KNIGHT:
        return bool((KNIGHT_ATT[s] >> np.uint64(target)) & np.uint64(1) != 0)
    if kind == PAWN:
        f = s & 7
        if owner == 0:
            return (target == s + 7 and f > 0) or (target == s + 9 and f < 7)
        return (target == s - 9 and f > 0) or (target == s - 7 and f < 7)
    ln = LINE[s * 64 + target]
    if ln == 0 or (kind == ROOK and ln != 1) or (kind == BISHOP and ln != 2):
        return False
    return bool(BETWEEN[s * 64 + target] & occ == 0)


@numba.njit(cache=True, nogil=True)
def attacked(
    target: int, side: int, sq: I64, kinds: I64, owners: I64, n: int, skip: int, occ: np.uint64
) -> bool:
    """Whether a man of `side` (other than man `skip`) attacks `target` with the board `occ`."""
    for k in range(n):
        if owners[k] == side and k != skip and _attacks(kinds[k], owners[k], sq[k], target, occ):
            return True
    return False


@numba.njit(cache=True, nogil=True)
def _occupancy(sq: I64, n: int) -> np.uint64:
    occ = np.uint64(0)
    for k in range(n):
        occ |= np.uint64(1) << np.uint64(sq[k])
    return occ


@numba.njit(cache=True, nogil=True)
def _try(
    sq: I64,
    kinds: I64,
    owners: I64,
    n: int,
    stm: int,
    occ: np.uint64,
    j: int,
    to: int,
    promo: int,
    out: I64,
    count: int,
) -> int:
    cap = -1
    for k in range(n):
        if k != j and sq[k] == to:
            if owners[k] == stm or kinds[k] == KING:
                return count
            cap = k
    occ2 = (occ & ~(np.uint64(1) << np.uint64(sq[j]))) | (np.uint64(1) << np.uint64(to))
    king = to if j == stm else sq[stm]
    for k in range(n):
        if owners[k] != stm and k != cap and _attacks(kinds[k], owners[k], sq[k], king, occ2):
            return count
    out[4 * count] = j
    out[4 * count + 1] = to
    out[4 * count + 2] = promo
    out[4 * count + 3] = cap
    return count + 1


@numba.njit(cache=True, nogil=True)
def legal_moves(sq: I64, kinds: I64, owners: I64, n: int, stm: int, out: I64) -> int:
    """The legal moves of side `stm` (0 = A): (man, to square, promotion type or 0, captured man or
    -1) as rows of 4 in `out`; returns how many."""
    occ = _occupancy(sq, n)
    own = np.uint64(0)
    for k in range(n):
        if owners[k] == stm:
            own |= np.uint64(1) << np.uint64(sq[k])
    count = 0
    for j in range(n):
        if owners[j] != stm:
            continue
        kind = kinds[j]
        s = sq[j]
        if kind == KING or kind == KNIGHT:  # noqa: SIM109 - plain comparisons in numba
            table = KING_TO if kind == KING else KNIGHT_TO
            for i in range(8):
                to = table[s, i]
                if to < 0:
                    break
                if not (own >> np.uint64(to)) & np.uint64(1):
                    count = _try(sq, kinds, owners, n, stm, occ, j, to, 0, out, count)
        elif kind == PAWN:
            step = 8 if owners[j] == 0 else -8
            last = 7 if owners[j] == 0 else 0
            start = 1 if owners[j] == 0 else 6
            f = s & 7
            one = s + step
            for i in range(3):
                to = one + i - 1
                if i == 1:
                    if (occ >> np.uint64(one)) & np.uint64(1):
                        continue
                    two = one + step
                    if (s >> 3) == start and (occ >> np.uint64(two)) & np.uint64(1) == 0:
                        count = _try(sq, kinds, owners, n, stm, occ, j, two, 0, out, count)
                elif not 0 <= f + i - 1 < 8 or not (occ >> np.uint64(to)) & np.uint64(1):
                    continue
                if (to >> 3) == last:
                    for promo in (QUEEN, ROOK, BISHOP, KNIGHT):
                        count = _try(sq, kinds, owners, n, stm, occ, j, to, promo, out, count)
                else:
                    count = _try(sq, kinds, owners, n, stm, occ, j, to, 0, out, count)
        else:
            for d in range(8):
                diagonal = d >= 4
                if (diagonal and kind == ROOK) or (not diagonal and kind == BISHOP):
                    continue
                df = (1, -1, 0, 0, 1, 1, -1, -1)[d]
                dr = (0, 0, 1, -1, 1, -1, 1, -1)[d]
                x = (s & 7) + df
                y = (s >> 3) + dr
                while 0 <= x < 8 and 0 <= y < 8:
                    to = y * 8 + x
                    bit = np.uint64(1) << np.uint64(to)
                    if own & bit:
                        break
                    count = _try(sq, kinds, owners, n, stm, occ, j, to, 0, out, count)
                    if occ & bit:
                        break
                    x += df
                    y += dr
    return count


@numba.njit(cache=True, nogil=True)
def setup(spec: I64, slot: int, sq: I64, kinds: I64, owners: I64) -> int:
    """Men of a slot into (sq, kinds, owners); the side to move, -1 for a broken slot."""
    stm = decode(spec, slot, sq)
    kinds[0] = KING
    kinds[1] = KING
    owners[0] = 0
    owners[1] = 1
    m = spec[0]
    for i in range(m):
        kinds[2 + i] = spec[2 + 2 * i]
        owners[2 + i] = spec[3 + 2 * i]
    if stm < 0:
        return -1
    n = 2 + m
    if attacked(sq[1 - stm], stm, sq, kinds, owners, n, -1, _occupancy(sq, n)):
        return -1
    return stm


@numba.njit(cache=True, nogil=True)
def child_of(
    spec: I64, children: I64, sq: I64, kinds: I64, n: int, stm: int, j: int, to: int, promo: int, cap: int
) -> tuple[int, int]:
    """(-1, slot) for a move staying in the material, else (row of `children`, slot in that table)."""
    ka = to if j == 0 else sq[0]
    kb = to if j == 1 else sq[1]
    p0 = -1
    p1 = -1
    if n > 2:
        p0 = to if j == 2 else sq[2]
    if n > 3:
        p1 = to if j == 3 else sq[3]
    if cap < 0 and promo == 0:
        return -1, canonical(spec, ka, kb, p0, p1, 1 - stm)
    row = cap - 2 if cap >= 0 else spec[0] + promo - KNIGHT
    c = children[row]
    # the men left, in order: (p0, p1) less the captured one
    r0 = p0
    r1 = p1
    if cap == 2:
        r0 = p1
        r1 = -1
    elif cap == 3:
        r1 = -1
    s0 = -1
    s1 = -1
    if c[0] >= 1:
        s0 = r0 if c[7] == 0 else r1
    if c[0] >= 2:
        s1 = r0 if c[8] == 0 else r1
    if c[6]:
        return row, canonical(
            c, kb ^ 56, ka ^ 56, s0 ^ 56 if s0 >= 0 else -1, s1 ^ 56 if s1 >= 0 else -1, stm
        )
    return row, canonical(c, ka, kb, s0, s1, 1 - stm)


# -- the table's graph ---------------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True)
def generate(
    spec: I64,
    children: I64,
    child_outcome: I8,
    child_remoteness: I32,
    child_base: I64,
    lo: int,
    hi: int,
    fill: bool,
    degree: I32,
    counts: I64,
    rev_indices: I32,
    ext_count: I32,
    lost_min: I32,
    won_count: I32,
    won_max: I32,
    terminal: I8,
    broken: NDArray[np.bool_],
) -> int:
    """One pass over slots lo..hi-1. First pass (`fill` false): broken slots, terminal labels
    (checkmate -1, stalemate 0), out-degrees within the material, in-degrees into `counts`, and the
    external moves' summary from the children's values. Second pass: each in-material move v -> c
    writes v at rev_indices[counts[c]] and advances counts[c] (callers set counts to the CSR starts).
    Returns the number of moves into children slots that were broken (0 unless the tables are wrong)."""
    sq = np.empty(4, dtype=np.int64)
    kinds = np.empty(4, dtype=np.int64)
    owners = np.empty(4, dtype=np.int64)
    moves = np.empty(4 * MAX_MOVES, dtype=np.int64)
    n = 2 + spec[0]
    errors = 0
    for v in range(lo, hi):
        stm = setup(spec, v, sq, kinds, owners)
        if stm < 0:
            if not fill:
                broken[v] = True
                terminal[v] = 0
            continue
        count = legal_moves(sq, kinds, owners, n, stm, moves)
        if count == 0:
            if not fill:
                in_check = attacked(sq[stm], 1 - stm, sq, kinds, owners, n, -1, _occupancy(sq, n))
                terminal[v] = -1 if in_check else 0
            continue
        for i in range(count):
            row, c = child_of(
                spec,
                children,
                sq,
                kinds,
                n,
                stm,
                moves[4 * i],
                moves[4 * i + 1],
                moves[4 * i + 2],
                moves[4 * i + 3],
            )
            if row < 0:
                if fill:
                    rev_indices[counts[c]] = v
                    counts[c] += 1
                else:
                    degree[v] += 1
                    counts[c] += 1
            elif not fill:
                ext_count[v] += 1
                if c < 0:
                    errors += 1
                    continue
                at = child_base[row] + c
                o = child_outcome[at]
                r = child_remoteness[at]
                if r == -2:
                    errors += 1
                elif o < 0:
                    if lost_min[v] < 0 or r < lost_min[v]:
                        lost_min[v] = r
                elif o > 0:
                    won_count[v] += 1
                    if r > won_max[v]:
                        won_max[v] = r
    return errors
