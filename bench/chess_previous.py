"""The chess solver as it was before the moves and un-moves were made fast (its kernels kept as they
were), so that bench.bench_chess measures the previous path beside the current one in the same run.

Moves by trying each one (`legal_moves`: a king-safety test per move), un-moves through the general
`canonical` with a legality test per un-move, every list of children sorted to count distinct ones.
"""

from __future__ import annotations

from collections.abc import Mapping

import numba
import numpy as np
from numpy.typing import NDArray

from kinds.chess.format import ChessValues
from kinds.chess.kernels import index as ix
from kinds.chess.kernels import movegen as mg
from kinds.chess.kernels.values import NONE, after, better, zeroing
from kinds.chess.material import Material
from kinds.chess.solve import MAX_LEVEL, slice_order

I16 = NDArray[np.int16]
I64 = NDArray[np.int64]
U8 = NDArray[np.uint8]


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
            if owners[k] == stm or kinds[k] == mg.KING:
                return count
            cap = k
    occ2 = (occ & ~(np.uint64(1) << np.uint64(sq[j]))) | (np.uint64(1) << np.uint64(to))
    king = to if j == stm else sq[stm]
    for k in range(n):
        if owners[k] != stm and k != cap and mg._attacks(kinds[k], owners[k], sq[k], king, occ2):
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
    occ = mg._occupancy(sq, n)
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
        if kind == mg.KING or kind == mg.KNIGHT:
            table = mg.KING_TO if kind == mg.KING else mg.KNIGHT_TO
            for i in range(8):
                to = table[s, i]
                if to < 0:
                    break
                if not (own >> np.uint64(to)) & np.uint64(1):
                    count = _try(sq, kinds, owners, n, stm, occ, j, to, 0, out, count)
        elif kind == mg.PAWN:
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
                    for promo in (mg.QUEEN, mg.ROOK, mg.BISHOP, mg.KNIGHT):
                        count = _try(sq, kinds, owners, n, stm, occ, j, to, promo, out, count)
                else:
                    count = _try(sq, kinds, owners, n, stm, occ, j, to, 0, out, count)
        else:
            for d in range(8):
                diagonal = d >= 4
                if (diagonal and kind == mg.ROOK) or (not diagonal and kind == mg.BISHOP):
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


I16 = NDArray[np.int16]
I64 = NDArray[np.int64]
U8 = NDArray[np.uint8]

#: `deg` of a slot naming no position.
INVALID = 255
ROW = 4 + ix.SPEC + ix.MAX_PIECES
MAX_PREDECESSORS = 160

_DF = np.array([1, -1, 0, 0, 1, 1, -1, -1], dtype=np.int64)
_DR = np.array([0, 0, 1, -1, 1, -1, 1, -1], dtype=np.int64)


@numba.njit(cache=True, nogil=True, inline="always")
def exit_row(m: int, c: int, pm: int, pc: int) -> int:
    return int(((c + 1) * (m + 1) + (pm + 1)) * 5 + pc)


@numba.njit(cache=True, nogil=True)
def _child(rows: I64, row: int, sq: I64, stm: int, out: I64) -> int:
    """The slot, in the child table of `row`, of the men `sq` (less the one captured) with `stm` (our
    side) to move; -1 past the child's index."""
    r = rows[row]
    flip = r[1]
    cspec = r[4 : 4 + ix.SPEC]
    if flip:
        out[0] = sq[1] ^ 56
        out[1] = sq[0] ^ 56
    else:
        out[0] = sq[0]
        out[1] = sq[1]
    for i in range(cspec[0]):
        s = sq[2 + r[4 + ix.SPEC + i]]
        out[2 + i] = s ^ 56 if flip else s
    return ix.canonical(cspec, out, 1 - stm if flip else stm, out[5:10])


@numba.njit(cache=True, nogil=True)
def _insertion_unique(a: I64, n: int) -> int:
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x
    k = 0
    for i in range(n):
        if i == 0 or a[i] != a[k - 1]:
            a[k] = a[i]
            k += 1
    return k


@numba.njit(cache=True, nogil=True)
def _exit_values(
    spec: I64,
    rows: I64,
    child_dtm: I16,
    child_dtz: I16,
    own_dtm: I16,
    own_dtz: I16,
    sq: I64,
    kinds: I64,
    owners: I64,
    stm: int,
    j: int,
    to: int,
    promo: int,
    cap: int,
    work: I64,
    moves: I64,
) -> tuple[int, int]:
    """The mover's (DTM, DTZ) values of a zeroing move; (NONE, NONE) when a table lacks its target."""
    n = 2 + spec[0]
    m = spec[0]
    after_sq = work[0:5]
    out = work[5:15]
    for k in range(n):
        after_sq[k] = sq[k]
    after_sq[j] = to
    if cap < 0 and promo == 0:
        t = ix.canonical(spec, after_sq, 1 - stm, out)
        if t < 0:
            return NONE, NONE
        vm = int(own_dtm[t])
        vz = int(own_dtz[t])
        if abs(to - sq[j]) == 16:
            vm, vz = _en_passant(
                spec, rows, child_dtm, child_dtz, after_sq, kinds, owners, stm, j, vm, vz, work, moves
            )
        return after(vm), zeroing(vz)
    row = exit_row(m, cap - 2 if cap >= 0 else -1, j - 2 if promo else -1, promo - 1 if promo else 0)
    if rows[row, 0] == 0:
        return NONE, NONE
    c = _child(rows, row, after_sq, 1 - stm, out)
    if c < 0:
        return NONE, NONE
    base = rows[row, 2]
    return after(int(child_dtm[base + c])), zeroing(int(child_dtz[base + c]))


@numba.njit(cache=True, nogil=True)
def _en_passant(
    spec: I64,
    rows: I64,
    child_dtm: I16,
    child_dtz: I16,
    sq: I64,
    kinds: I64,
    owners: I64,
    stm: int,
    j: int,
    vm: int,
    vz: int,
    work: I64,
    moves: I64,
) -> tuple[int, int]:
    """The values (for the opponent, to move) of the position after man j's double step, its en
    passant captures counted: the table holds positions without the right."""
    n = 2 + spec[0]
    m = spec[0]
    them = 1 - stm
    to = sq[j]
    ep = to - 8 if owners[j] == 0 else to + 8
    best_m = NONE
    best_z = NONE
    ep_sq = work[15:20]
    out = work[20:30]
    for k in range(n):
        if owners[k] != them or kinds[k] != mg.PAWN or (sq[k] >> 3) != (to >> 3):
            continue
        if abs((sq[k] & 7) - (to & 7)) != 1:
            continue
        occ = np.uint64(0)
        for i in range(n):
            ep_sq[i] = sq[i]
            if i != j:
                occ |= np.uint64(1) << np.uint64(sq[i] if i != k else ep)
        ep_sq[k] = ep
        if mg.attacked(ep_sq[them], stm, ep_sq, kinds, owners, n, j, occ):
            continue
        row = exit_row(m, j - 2, -1, 0)
        if rows[row, 0] == 0:
            continue
        c = _child(rows, row, ep_sq, stm, out)
        if c < 0:
            continue
        base = rows[row, 2]
        best_m = better(best_m, after(int(child_dtm[base + c])))
        best_z = better(best_z, zeroing(int(child_dtz[base + c])))
    if best_m == NONE:
        return vm, vz
    if legal_moves(sq, kinds, owners, n, them, moves) == 0:
        return best_m, best_z
    return better(vm, best_m), better(vz, best_z)


@numba.njit(cache=True, nogil=True)
def prepare(
    spec: I64,
    lo: int,
    hi: int,
    rows: I64,
    child_dtm: I16,
    child_dtz: I16,
    own_dtm: I16,
    own_dtz: I16,
    deg: U8,
    exm: I16,
    exz: I16,
) -> int:
    """Slots lo..hi-1 (one slice): `deg` the distinct children inside the slice (INVALID: no position),
    `exm`/`exz` the best zeroing move's values (-1 checkmate, 0 stalemate, NONE: no zeroing move).
    Returns the count of moves whose target a table lacks (0 unless the tables are wrong)."""
    sq = np.empty(5, dtype=np.int64)
    kinds = np.empty(5, dtype=np.int64)
    owners = np.empty(5, dtype=np.int64)
    child = np.empty(5, dtype=np.int64)
    moves = np.empty(4 * mg.MAX_MOVES, dtype=np.int64)
    scratch = np.empty(4 * mg.MAX_MOVES, dtype=np.int64)
    kids = np.empty(mg.MAX_MOVES, dtype=np.int64)
    work = np.empty(30, dtype=np.int64)
    image = np.empty(5, dtype=np.int64)
    n = ix.men_of(spec, kinds, owners)
    errors = 0
    for v in range(lo, hi):
        i = v - lo
        stm = ix.valid(spec, v, sq, kinds, owners, image)
        if stm < 0:
            deg[i] = INVALID
            exm[i] = 0
            exz[i] = 0
            continue
        count = legal_moves(sq, kinds, owners, n, stm, moves)
        if count == 0:
            occ = np.uint64(0)
            for k in range(n):
                occ |= np.uint64(1) << np.uint64(sq[k])
            mate = mg.attacked(sq[stm], 1 - stm, sq, kinds, owners, n, -1, occ)
            deg[i] = 0
            exm[i] = -1 if mate else 0
            exz[i] = -1 if mate else 0
            continue
        bm = NONE
        bz = NONE
        nk = 0
        turn = ix.turn_step(spec, stm)
        for e in range(count):
            j = moves[4 * e]
            to = moves[4 * e + 1]
            promo = moves[4 * e + 2]
            cap = moves[4 * e + 3]
            if cap < 0 and promo == 0 and kinds[j] != mg.PAWN:
                fast = ix.step(spec, sq, j)
                if fast:
                    kids[nk] = v + turn + (to - sq[j]) * fast
                else:
                    for k in range(n):
                        child[k] = sq[k]
                    child[j] = to
                    kids[nk] = ix.canonical(spec, child, 1 - stm, image)
                nk += 1
                continue
            vm, vz = _exit_values(
                spec, rows, child_dtm, child_dtz, own_dtm, own_dtz, sq, kinds, owners, stm, j, to, promo,
                cap, work, scratch,
            )  # fmt: skip
            if vm == NONE:
                errors += 1
                continue
            bm = better(bm, vm)
            bz = better(bz, vz)
        deg[i] = _insertion_unique(kids, nk)
        exm[i] = bm
        exz[i] = bz
    return errors


@numba.njit(cache=True, nogil=True)
def predecessors(
    spec: I64, slot: int, sq: I64, kinds: I64, owners: I64, stm: int, out: I64, work: I64
) -> int:
    """The distinct slots of the positions whose one king or piece move (no capture, no pawn move)
    reaches the men `sq` with `stm` to move (a canonical position, at `slot`), into `out`; returns
    how many."""
    n = 2 + spec[0]
    mover = 1 - stm
    turn = ix.turn_step(spec, stm)
    occ = np.uint64(0)
    for k in range(n):
        occ |= np.uint64(1) << np.uint64(sq[k])
    count = 0
    for k in range(n):
        if owners[k] != mover or kinds[k] == mg.PAWN:
            continue
        kind = kinds[k]
        s = sq[k]
        base = occ & ~(np.uint64(1) << np.uint64(s))
        fast = ix.step(spec, sq, k)
        fast_base = slot + turn - s * fast if fast else -1
        if kind == mg.KING or kind == mg.KNIGHT:
            for t in range(8):
                f = mg.KING_TO[s, t] if kind == mg.KING else mg.KNIGHT_TO[s, t]
                if f < 0:
                    break
                if (occ >> np.uint64(f)) & np.uint64(1):
                    continue
                count = _add_predecessor(
                    spec, sq, kinds, owners, stm, k, f, base, out, count, work, fast_base, fast
                )
        else:
            for d in range(8):
                diagonal = d >= 4
                if (diagonal and kind == mg.ROOK) or (not diagonal and kind == mg.BISHOP):
                    continue
                x = (s & 7) + _DF[d]
                y = (s >> 3) + _DR[d]
                while 0 <= x < 8 and 0 <= y < 8:
                    f = y * 8 + x
                    if (occ >> np.uint64(f)) & np.uint64(1):
                        break
                    count = _add_predecessor(
                        spec, sq, kinds, owners, stm, k, f, base, out, count, work, fast_base, fast
                    )
                    x += _DF[d]
                    y += _DR[d]
    return _insertion_unique(out, count)


@numba.njit(cache=True, nogil=True)
def _add_predecessor(
    spec: I64, sq: I64, kinds: I64, owners: I64, stm: int, k: int, f: int, base: np.uint64, out: I64,
    count: int, work: I64, fast_base: int, fast: int,
) -> int:  # fmt: skip
    n = 2 + spec[0]
    for i in range(n):
        work[i] = sq[i]
    work[k] = f
    occ = base | (np.uint64(1) << np.uint64(f))
    # in the predecessor the side not to move (`stm`) may not stand in check
    if mg.attacked(work[stm], 1 - stm, work, kinds, owners, n, -1, occ):
        return count
    slot = fast_base + f * fast if fast else ix.canonical(spec, work[0:5], 1 - stm, work[5:10])
    if slot >= 0:
        out[count] = slot
        count += 1
    return count


@numba.njit(cache=True, nogil=True)
def retro(spec: I64, lo: int, hi: int, val: I16, deg: U8, ex: I16, max_level: int) -> int:
    """Solve slots lo..hi-1 into val[lo:hi] (one metric; `deg` and `ex` from `prepare`, `deg` consumed);
    returns the last level settled."""
    n = hi - lo
    sq = np.empty(5, dtype=np.int64)
    kinds = np.empty(5, dtype=np.int64)
    owners = np.empty(5, dtype=np.int64)
    preds = np.empty(MAX_PREDECESSORS, dtype=np.int64)
    work = np.empty(10, dtype=np.int64)
    ix.men_of(spec, kinds, owners)
    exit_levels = np.zeros(max_level + 2, dtype=np.bool_)
    top = 0
    for i in range(n):
        val[lo + i] = 0
        if deg[i] == INVALID:
            continue
        e = int(ex[i])
        if e > 0:
            level = e
        elif e < 0 and e != NONE:
            level = -e - 1
        else:
            continue
        exit_levels[level] = True
        if level > top:
            top = level
    level = 0
    while True:
        if level <= top and exit_levels[level]:
            for i in range(n):
                if val[lo + i] != 0 or deg[i] == INVALID:
                    continue
                e = int(ex[i])
                if e == level and level > 0:
                    val[lo + i] = level
                elif e == -(level + 1) and deg[i] == 0:
                    val[lo + i] = -(level + 1)
        marked = 0
        for i in range(n):
            x = int(val[lo + i])
            if x == level and level > 0:
                win = True
            elif x == -(level + 1):
                win = False
            else:
                continue
            stm = ix.decode(spec, lo + i, sq)
            count = predecessors(spec, lo + i, sq, kinds, owners, stm, preds, work)
            for q in range(count):
                p = preds[q] - lo
                if p < 0 or p >= n or val[lo + p] != 0 or deg[p] == INVALID:
                    continue
                if not win:
                    val[lo + p] = level + 1
                    marked += 1
                    continue
                deg[p] -= 1
                if deg[p] != 0:
                    continue
                e = int(ex[p])
                if e >= 0:
                    continue
                lose_at = level + 1
                if e != NONE and -e - 1 > lose_at:
                    continue
                val[lo + p] = -(lose_at + 1)
                marked += 1
        level += 1
        if marked == 0 and level > top:
            return level - 1


@numba.njit(cache=True, nogil=True)
def fill_invalid(dtm: I16, dtz: I16, lo: int, deg: U8) -> None:
    """Give each slot of lo.. naming no position (INVALID in `deg`) the values of the slot before it:
    never read, they then deflate to almost nothing."""
    prev_m = 0
    prev_z = 0
    for i in range(deg.shape[0]):
        if deg[i] == INVALID:
            dtm[lo + i] = prev_m
            dtz[lo + i] = prev_z
        else:
            prev_m = dtm[lo + i]
            prev_z = dtz[lo + i]


def solve_previous(material: Material, tables: Mapping[str, ChessValues]) -> ChessValues:
    """`material`'s DTM and DTZ by the previous kernels (the same values as kinds.chess.solve)."""
    spec = material.spec
    subs = material.sub_materials()
    bases: dict[Material, int] = {}
    at = 0
    for sub in subs:
        bases[sub] = at
        at += sub.slots
    child_dtm = np.concatenate([tables[s.name].dtm for s in subs]) if subs else np.zeros(1, np.int16)
    child_dtz = np.concatenate([tables[s.name].dtz for s in subs]) if subs else np.zeros(1, np.int16)
    rows = material.exit_rows(bases)
    dtm = np.zeros(material.slots, dtype=np.int16)
    dtz = np.zeros(material.slots, dtype=np.int16)
    block = int(ix.block_size(spec))
    deg = np.empty(block, dtype=np.uint8)
    exm = np.empty(block, dtype=np.int16)
    exz = np.empty(block, dtype=np.int16)
    for config in slice_order(material):
        lo = config * block
        prepare(spec, lo, lo + block, rows, child_dtm, child_dtz, dtm, dtz, deg, exm, exz)
        retro(spec, lo, lo + block, dtm, deg.copy(), exm, MAX_LEVEL)
        retro(spec, lo, lo + block, dtz, deg, exz, MAX_LEVEL)
        fill_invalid(dtm, dtz, lo, deg)
    return ChessValues(dtm, dtz, delta=not material.pawnful)
