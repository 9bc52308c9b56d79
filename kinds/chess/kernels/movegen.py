"""Numba move generation for chess endgames of a few men, and the board tables it reads.

A position is the men's squares `sq` (kings of sides A and B first, then the other men), their types
`kinds` and their sides `owners` (0 = A, the side moving up the board, 1 = B). Squares are
python-chess's (a1 = 0, b1 = 1, ..., h8 = 63); piece types too (pawn 1, knight 2, bishop 3, rook 4,
queen 5, king 6). En passant is not generated here (the solver and the probes play it where a position
allows it: kinds.chess.kernels.retro, kinds.chess.tables).

Also the king pairs of the pawnless index (`KK_INDEX`, `KK_SQUARES`: the A king in the a1-d1-d4
triangle and, when it is on the a1-d4 diagonal, the B king on or below the a1-h8 diagonal: the 462
legal placements under the board's eight symmetries), which kinds.chess.kernels.index builds on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic
from numpy.typing import NDArray

I8 = NDArray[np.int8]
I32 = NDArray[np.int32]
I64 = NDArray[np.int64]
U64 = NDArray[np.uint64]

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6

KK_PAWNLESS = 462
KK_PAWNFUL = 1806

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


def _rays() -> U64:
    """Per direction (rook's four, then the bishop's, the first of each pair towards higher squares)
    and square, the squares beyond it to the board's edge; row 64 empty (no blocker)."""
    rays = np.zeros((8, 65), dtype=np.uint64)
    for d, (df, dr) in enumerate(((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (-1, 1), (1, -1))):
        for s in range(64):
            x, y = (s & 7) + df, (s >> 3) + dr
            while 0 <= x < 8 and 0 <= y < 8:
                rays[d, s] |= np.uint64(1) << np.uint64(y * 8 + x)
                x, y = x + df, y + dr
    return rays


RAYS = _rays()
#: Whether a direction of RAYS goes towards higher squares (its nearest blocker is the lowest bit).
RAY_UP = np.array([d in (0, 2, 4, 6) for d in range(8)], dtype=np.bool_)
# -- symmetries ----------------------------------------------------------------------------------------


@numba.njit(cache=True, nogil=True, inline="always")
def _transform(s: int, t: int) -> int:
    if t & 4:
        s = ((s & 7) << 3) | (s >> 3)
    if t & 1:
        s ^= 7
    if t & 2:
        s ^= 56
    return s


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


@numba.njit(cache=True, nogil=True, inline="always")
def attacked(
    target: int, side: int, sq: I64, kinds: I64, owners: I64, n: int, skip: int, occ: np.uint64
) -> bool:
    """Whether a man of `side` (other than man `skip`) attacks `target` with the board `occ`."""
    for k in range(n):
        if owners[k] == side and k != skip and _attacks(kinds[k], owners[k], sq[k], target, occ):
            return True
    return False


@numba.njit(cache=True, nogil=True, inline="always")
def _occupancy(sq: I64, n: int) -> np.uint64:
    occ = np.uint64(0)
    for k in range(n):
        occ |= np.uint64(1) << np.uint64(sq[k])
    return occ


@numba.njit(cache=True, nogil=True, inline="always")
def bit(s: int) -> np.uint64:
    return np.uint64(1) << np.uint64(s)


def _bit_count(name: str, doc: str, emit: Callable[[Any, Any, Any], Any]) -> Any:
    """A numba intrinsic counting bits of a board by one LLVM instruction (`emit(context, builder,
    board)`): the three counts below differ only in the instruction."""

    def count(typingctx: Any, board: Any) -> Any:
        if board != types.uint64:
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return emit(context, builder, args[0])

        return types.int64(types.uint64), codegen

    count.__name__ = count.__qualname__ = name  # numba names an intrinsic by its function's name
    count.__doc__ = doc
    return intrinsic(count)


def _no_zero_poison(context: Any) -> Any:
    """cttz's and ctlz's flag: a zero board is defined (64), not poison."""
    return context.get_constant(types.boolean, False)


_cttz = _bit_count(
    "_cttz",
    "The count of a board's trailing zero bits, 64 for an empty board (LLVM's cttz).",
    lambda context, builder, board: builder.cttz(board, _no_zero_poison(context)),
)
_ctlz = _bit_count(
    "_ctlz",
    "The count of a board's leading zero bits, 64 for an empty board (LLVM's ctlz).",
    lambda context, builder, board: builder.ctlz(board, _no_zero_poison(context)),
)
_ctpop = _bit_count(
    "_ctpop",
    "The count of a board's set bits (LLVM's ctpop).",
    lambda context, builder, board: builder.ctpop(board),
)

#: The intrinsics as the kernels call them (typed for the checker).
_trailing_zeros = cast(Callable[[np.uint64], int], _cttz)
_leading_zeros = cast(Callable[[np.uint64], int], _ctlz)
_population = cast(Callable[[np.uint64], int], _ctpop)


@numba.njit(cache=True, nogil=True, inline="always")
def count_of(board: np.uint64) -> int:
    """How many squares a board holds."""
    return _population(np.uint64(board))


@numba.njit(cache=True, nogil=True, inline="always")
def square_of(low: np.uint64) -> int:
    """The square of a one-bit board (of a nonzero board's lowest bit)."""
    return _trailing_zeros(np.uint64(low))


@numba.njit(cache=True, nogil=True, inline="always")
def _ray(d: int, s: int, occ: np.uint64) -> np.uint64:
    """The squares a slider on s attacks in direction d with the board `occ`, without a branch: the
    ray less the ray beyond its nearest blocker (RAYS' row 64 is empty: no blocker up the board; a
    down ray's from a1 is empty too, and `| 1` makes an empty board's highest square a1)."""
    ray = np.uint64(RAYS[d][s])
    blockers = ray & occ
    if RAY_UP[d]:
        return ray ^ np.uint64(RAYS[d][_trailing_zeros(blockers)])
    return ray ^ np.uint64(RAYS[d][63 - _leading_zeros(blockers | np.uint64(1))])


@numba.njit(cache=True, nogil=True, inline="always")
def slides(kind: int, s: int, occ: np.uint64) -> np.uint64:
    """The squares a rook, bishop or queen on s attacks with the board `occ` (blockers included)."""
    out = np.uint64(0)
    if kind != BISHOP:
        out |= _ray(0, s, occ) | _ray(1, s, occ) | _ray(2, s, occ) | _ray(3, s, occ)
    if kind != ROOK:
        out |= _ray(4, s, occ) | _ray(5, s, occ) | _ray(6, s, occ) | _ray(7, s, occ)
    return out


@numba.njit(cache=True, nogil=True, inline="always")
def attacks_of(kind: int, owner: int, s: int, occ: np.uint64) -> np.uint64:
    """The squares a man attacks with the board `occ`."""
    if kind == KING:
        return np.uint64(KING_ATT[s])
    if kind == KNIGHT:
        return np.uint64(KNIGHT_ATT[s])
    if kind == PAWN:
        f = s & 7
        out = np.uint64(0)
        ahead = s + 8 if owner == 0 else s - 8
        if f > 0:
            out |= bit(ahead - 1)
        if f < 7:
            out |= bit(ahead + 1)
        return out
    return slides(kind, s, occ)


@numba.njit(cache=True, nogil=True, inline="always")
def evasions(
    target: int, side: int, sq: I64, kinds: I64, owners: I64, n: int, skip: int, occ: np.uint64
) -> np.uint64:
    """The squares a man may stand on (or capture on) so that no man of `side` (other than `skip`) attacks
    `target` with the board `occ` (the moving man's square left out of it): every attacker's square or,
    for a slider, the squares between it and `target`. All squares when nothing attacks, none when two
    men attack from directions no one square covers."""
    allowed = ~np.uint64(0)
    for a in range(n):
        if owners[a] != side or a == skip:
            continue
        if not _attacks(kinds[a], owners[a], sq[a], target, occ):
            continue
        cover = bit(sq[a])
        if kinds[a] == QUEEN or kinds[a] == ROOK or kinds[a] == BISHOP:
            cover |= BETWEEN[sq[a] * 64 + target]
        allowed &= cover
    return allowed


@numba.njit(cache=True, nogil=True, inline="always")
def man_at(sq: I64, n: int, s: int) -> int:
    for k in range(n):
        if sq[k] == s:
            return k
    return -1


@numba.njit(cache=True, nogil=True, inline="always")
def _put(out: I64, count: int, j: int, to: int, promo: int, cap: int) -> int:
    out[4 * count] = j
    out[4 * count + 1] = to
    out[4 * count + 2] = promo
    out[4 * count + 3] = cap
    return count + 1


@numba.njit(cache=True, nogil=True, inline="always")
def pawn_moves(
    sq: I64, n: int, j: int, owner: int, occ: np.uint64, allowed: np.uint64, out: I64, count: int
) -> int:
    """`legal_moves`' rows of pawn j's moves (to squares `allowed`, promotions each four times) from
    row `count` on; returns the rows' count after."""
    s = sq[j]
    step = 8 if owner == 0 else -8
    last = 7 if owner == 0 else 0
    start = 1 if owner == 0 else 6
    f = s & 7
    one = s + step
    for i in range(3):
        to = one + i - 1
        cap = -1
        if i == 1:
            if (occ >> np.uint64(one)) & np.uint64(1):
                continue
            two = one + step
            free = (occ >> np.uint64(two)) & np.uint64(1) == 0
            if (s >> 3) == start and free and (allowed >> np.uint64(two)) & np.uint64(1):
                count = _put(out, count, j, two, 0, -1)
        elif not 0 <= f + i - 1 < 8 or not (occ >> np.uint64(to)) & np.uint64(1):
            continue
        else:
            cap = man_at(sq, n, to)
        if not (allowed >> np.uint64(to)) & np.uint64(1):
            continue
        if (to >> 3) == last:
            for promo in (QUEEN, ROOK, BISHOP, KNIGHT):
                count = _put(out, count, j, to, promo, cap)
        else:
            count = _put(out, count, j, to, 0, cap)
    return count


@numba.njit(cache=True, nogil=True)
def legal_moves(sq: I64, kinds: I64, owners: I64, n: int, stm: int, out: I64) -> int:
    """The legal moves of side `stm` (0 = A): (man, to square, promotion type or 0, captured man or
    -1) as rows of 4 in `out`; returns how many. A man other than the king may only go where
    `evasions` allows (what checks the king once the man has left its square), the king only to
    squares no enemy man attacks once it has left its own."""
    occ = _occupancy(sq, n)
    them = 1 - stm
    own = np.uint64(0)
    for k in range(n):
        if owners[k] == stm:
            own |= bit(sq[k])
    king = sq[stm]
    count = 0
    for j in range(n):
        if owners[j] != stm:
            continue
        kind = kinds[j]
        s = sq[j]
        rest = occ & ~bit(s)
        if kind == KING:
            for i in range(8):
                to = KING_TO[s, i]
                if to < 0:
                    break
                if (own >> np.uint64(to)) & np.uint64(1):
                    continue
                cap = man_at(sq, n, to) if (occ >> np.uint64(to)) & np.uint64(1) else -1
                if not attacked(to, them, sq, kinds, owners, n, cap, rest):
                    count = _put(out, count, j, to, 0, cap)
            continue
        allowed = evasions(king, them, sq, kinds, owners, n, -1, rest) & ~own
        if allowed == 0:
            continue
        if kind == KNIGHT:
            for i in range(8):
                to = KNIGHT_TO[s, i]
                if to < 0:
                    break
                if (allowed >> np.uint64(to)) & np.uint64(1):
                    cap = man_at(sq, n, to) if (occ >> np.uint64(to)) & np.uint64(1) else -1
                    count = _put(out, count, j, to, 0, cap)
        elif kind == PAWN:
            count = pawn_moves(sq, n, j, owners[j], occ, allowed, out, count)
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
                    b = bit(to)
                    if own & b:
                        break
                    if allowed & b:
                        count = _put(out, count, j, to, 0, man_at(sq, n, to) if occ & b else -1)
                    if occ & b:
                        break
                    x += df
                    y += dr
    return count
