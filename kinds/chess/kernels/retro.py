"""Numba retrograde analysis of one chess slice (one pawn structure, both sides to move), DTM and DTZ.

No move graph is built. `prepare` generates every slot's moves once: the moves inside the slice
(king and piece moves) are only counted (distinct children, `deg`), the others (captures, pawn moves,
promotions: exactly the zeroing moves, which leave the slice) are valued at once from the tables they
lead to (the sub-tables and the slices of this table solved before) and summed up as the mover's best
exit (`exm` for DTM, `exz` for DTZ, kinds.chess.kernels.values' encoding). `retro` then solves the
slice level by level, un-moving (`predecessors`) from the positions settled at each level: a loss at L
makes its predecessors wins at L + 1, a win at L takes one from each predecessor's count of undecided
children, and a predecessor left with none loses at L + 1 (or later, at its exits' loss). Exits win
at their own level. What is never settled is a draw.

Rows of a material's exits (`rows`, int64[R, ROW]): row `exit_row(m, c, pm, pc)` for the capture of
man c (-1: none) and the promotion of man pm (-1: none) to knight, bishop, rook or queen (pc 1-4,
0: none); each row is [usable, flip, base, 0, child spec (8), perm (3)]: the child material's spec,
whether its side A is our B (the board then mirrored top to bottom, the colours swapped), where its
values start in the concatenated child arrays, and which of our men becomes its man i.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from kinds.chess.kernels import index as ix
from kinds.chess.kernels import movegen as mg
from kinds.chess.kernels.values import NONE, after, better, zeroing

I16 = NDArray[np.int16]
I32 = NDArray[np.int32]
I64 = NDArray[np.int64]
U8 = NDArray[np.uint8]

#: `deg` of a slot naming no position.
INVALID = 255
#: An exit row's first column: its table is valued in a pass of its own (kinds.chess.kernels.promotions),
#: not by `prepare` (nor oneply's `fill_side`), which skip its moves (1: valued here, 0: its table is
#: missing).
DEFERRED = 2
#: What `_exit_values` gives a move into a DEFERRED table (no value: not a missing one either).
SKIP = -40000

#: `deg` of a slot `retro` has settled (its count no longer needed): one byte read tells a slot still
#: open from one settled or naming no position.
SETTLED = 254
ROW = 4 + ix.SPEC + ix.MAX_PIECES
MAX_PREDECESSORS = 160


@numba.njit(cache=True, nogil=True, inline="always")
def exit_row(m: int, c: int, pm: int, pc: int) -> int:
    return int(((c + 1) * (m + 1) + (pm + 1)) * 5 + pc)


@numba.njit(cache=True, nogil=True, inline="always")
def _child(rows: I64, row: int, sq: I64, stm: int, out: I64) -> int:
    """The slot, in the child table of `row`, of the men `sq` (less the one captured) with `stm` (our
    side) to move; -1 past the child's index (`ix.pawnless_slot` without pawns)."""
    r = rows[row]
    flip = r[1]
    cspec = r[4 : 4 + ix.SPEC]
    if cspec[1] == 0:
        f = 56 if flip else 0
        a = sq[1] ^ f if flip else sq[0]
        b = sq[0] ^ f if flip else sq[1]
        m = cspec[0]
        p0 = sq[2 + r[4 + ix.SPEC]] ^ f if m > 0 else 0
        p1 = sq[2 + r[5 + ix.SPEC]] ^ f if m > 1 else 0
        p2 = sq[2 + r[6 + ix.SPEC]] ^ f if m > 2 else 0
        return ix.pawnless_slot(cspec, a, b, p0, p1, p2, 1 - stm if flip else stm)[0]
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


@numba.njit(cache=True, nogil=True, inline="always")
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
    if rows[row, 0] == DEFERRED:
        return SKIP, SKIP
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
    if mg.legal_moves(sq, kinds, owners, n, them, moves) == 0:
        return best_m, best_z
    return better(vm, best_m), better(vz, best_z)


@numba.njit(cache=True, nogil=True, inline="always")
def _moves(
    sq: I64, kinds: I64, owners: I64, n: int, stm: int, out: I64, quiet: I64, listed: bool
) -> tuple[int, int]:
    """`mg.legal_moves` split: the zeroing moves (captures, pawn moves) as its rows in `out`, the quiet
    king and piece moves as (man, to square) in `quiet` (only counted unless `listed`); returns how
    many of each. Target squares are bitboards: `evasions` for a piece, for the king the squares no
    enemy man attacks with it lifted."""
    them = 1 - stm
    king = sq[stm]
    occ = np.uint64(0)
    own = np.uint64(0)
    for k in range(n):
        occ |= mg.bit(sq[k])
        if owners[k] == stm:
            own |= mg.bit(sq[k])
    one = np.uint64(1)
    count = 0
    calm = 0
    for j in range(n):
        if owners[j] != stm:
            continue
        kind = kinds[j]
        s = sq[j]
        if kind == mg.KING:
            lifted = occ & ~mg.bit(s)
            danger = np.uint64(0)
            for k in range(n):
                if owners[k] == them:
                    danger |= mg.attacks_of(kinds[k], them, sq[k], lifted)
            targets = mg.KING_ATT[s] & ~own & ~danger
        else:
            allowed = mg.evasions(king, them, sq, kinds, owners, n, -1, occ & ~mg.bit(s)) & ~own
            if allowed == 0:
                continue
            if kind == mg.PAWN:
                count = mg.pawn_moves(sq, n, j, stm, occ, allowed, out, count)
                continue
            targets = mg.attacks_of(kind, stm, s, occ) & allowed
        captures = targets & occ
        while captures:
            low = captures & (~captures + one)
            captures ^= low
            to = mg.square_of(low)
            count = mg._put(out, count, j, to, 0, mg.man_at(sq, n, to))
        targets &= ~occ
        if not listed:
            calm += mg.count_of(targets)
            continue
        while targets:
            low = targets & (~targets + one)
            targets ^= low
            quiet[2 * calm] = j
            quiet[2 * calm + 1] = mg.square_of(low)
            calm += 1
    return count, calm


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
    Returns the count of moves whose target a table lacks (0 unless the tables are wrong). Slots are
    told valid 64 at a time where `ix.valid_run` decides (the last piece's squares, in slot order)."""
    sq = np.empty(5, dtype=np.int64)
    kinds = np.empty(5, dtype=np.int64)
    owners = np.empty(5, dtype=np.int64)
    moves = np.empty(4 * mg.MAX_MOVES, dtype=np.int64)
    scratch = np.empty(4 * mg.MAX_MOVES, dtype=np.int64)
    quiet = np.empty(2 * mg.MAX_MOVES, dtype=np.int64)
    kids = np.empty(mg.MAX_MOVES, dtype=np.int64)
    work = np.empty(30, dtype=np.int64)
    image = np.empty(5, dtype=np.int64)
    bases = step_bases(spec)
    n = ix.men_of(spec, kinds, owners)
    errors = 0
    last = 1 + spec[0] - spec[1]  # the man of the index's last digit (a piece, where runs apply)
    lone_pawn = spec[1] == 1
    block = ix.block_size(spec)
    run_end = lo
    run = np.uint64(0)
    run_stm = 0
    for v in range(lo, hi):
        i = v - lo
        if v >= run_end and (v & 63) == 0 and v + 64 <= hi and spec[0] > spec[1]:
            run_stm = ix.decode(spec, v, sq)
            if ix.run_decided(spec, sq):
                run = ix.valid_run(spec, sq, run_stm, kinds, owners)
                run_end = v + 64
        if v < run_end:
            if (run >> np.uint64(v & 63)) & np.uint64(1):
                sq[last] = v & 63
                stm = run_stm
            else:
                stm = -1
        else:
            stm = ix.valid(spec, v, sq, kinds, owners, image)
        if stm < 0:
            deg[i] = INVALID
            exm[i] = 0
            exz[i] = 0
            continue
        # distinct quiet moves reach distinct positions, and where `ix.distinct_images` holds those
        # have distinct slots: the count is the moves', no child's slot wanted
        distinct = ix.distinct_images(spec, sq[1 - stm])
        zero, calm = _moves(sq, kinds, owners, n, stm, moves, quiet, not distinct)
        if zero + calm == 0:
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
        moved = 0
        turn = ix.turn_step(spec, stm)
        symmetric = spec[1] > 0 and ix.pawns_symmetric(spec, sq)
        plain = not (symmetric if spec[1] else ix.KK_AMBIGUOUS[sq[0] * 64 + sq[1]])
        if not distinct and plain:
            # with the kings' pair plain only a king's move may land on another image and repeat a
            # child: the pieces' moves are counted, not placed
            repeats = _king_repeats(spec, sq, v, stm, turn, quiet, calm, kids)
            if repeats >= 0:
                distinct = True
                calm -= repeats
        if distinct:
            nk = calm
        for e in range(0 if distinct else calm):
            j = quiet[2 * e]
            to = quiet[2 * e + 1]
            fast = bases[j] if plain else 0
            if fast:
                kids[nk] = v + turn + (to - sq[j]) * fast
                nk += 1
                continue
            if j < 2:
                delta = ix.king_step(spec, sq, j, to, symmetric)
                if delta != ix.NO_STEP:
                    kids[nk] = v + turn + delta
                    nk += 1
                    continue
            c, mv = _moved_slot(spec, sq, n, j, to, 1 - stm, work)
            if mv:
                moved += 1
                kids[kids.shape[0] - moved] = c
            else:
                kids[nk] = c
                nk += 1
        for e in range(zero):
            j = moves[4 * e]
            to = moves[4 * e + 1]
            promo = moves[4 * e + 2]
            cap = moves[4 * e + 3]
            if lone_pawn and cap < 0 and promo == 0:
                # a lone pawn's push keeps its file, so its men as they stand stay canonical: the
                # slot moves by the pawn's configurations (four a rank), and no en passant follows
                t = v + turn + ((to - sq[j]) >> 1) * block
                bm = better(bm, after(int(own_dtm[t])))
                bz = better(bz, zeroing(int(own_dtz[t])))
                continue
            vm, vz = _exit_values(
                spec, rows, child_dtm, child_dtz, own_dtm, own_dtz, sq, kinds, owners, stm, j, to, promo,
                cap, work, scratch,
            )  # fmt: skip
            if vm == SKIP:  # valued by its own pass
                continue
            if vm == NONE:
                errors += 1
                continue
            bm = better(bm, vm)
            bz = better(bz, vz)
        deg[i] = _merge_moved(kids, nk, moved)
        exm[i] = bm
        exz[i] = bz
    return errors


@numba.njit(cache=True, nogil=True, inline="always")
def _king_repeats(spec: I64, sq: I64, v: int, stm: int, turn: int, quiet: I64, calm: int, kids: I64) -> int:
    """How many of the `calm` quiet moves (man, to square) listed in `quiet` of the pawnless position
    at slot v (its kings' pair plain) repeat another's child; -1 when it is not told here.

    The pieces' moves keep the kings' pair and its index, and their children's men as they stand are
    canonical (distinct children): only a king's move whose child is another image may repeat one,
    and where that image's pair has another index than v's, only a king's child (listed in `kids`).
    Otherwise (rare) -1: the caller places every child."""
    psize = ix.pieces_size(spec)
    pair_index = (v // psize) % mg.KK_PAWNLESS
    plain_to = ix.KK_PLAIN_TO[stm * 64 + sq[1 - stm]]
    pair_base = v + turn - ix.KK_INDEX_64[sq[0] * 64 + sq[1]] * psize
    top = kids.shape[0]
    nk = 0
    moved = 0
    for e in range(calm):
        j = quiet[2 * e]
        if j >= 2:
            continue
        to = quiet[2 * e + 1]
        if (plain_to >> np.uint64(to)) & np.uint64(1):
            pair = to * 64 + sq[1] if j == 0 else sq[0] * 64 + to
            kids[nk] = pair_base + ix.KK_PLAIN[pair] * psize
            nk += 1
            continue
        c, mv = ix.pawnless_moved(spec, sq, j, to, 1 - stm)
        if not mv:
            kids[nk] = c
            nk += 1
        elif (c // psize) % mg.KK_PAWNLESS == pair_index:
            return -1
        else:
            moved += 1
            kids[top - moved] = c
    return nk + moved - _merge_moved(kids, nk, moved)


@numba.njit(cache=True, nogil=True)
def step_bases(spec: I64) -> I64:
    """Each man's `ix.step_base`."""
    out = np.zeros(2 + ix.MAX_PIECES, dtype=np.int64)
    for k in range(2 + spec[0]):
        out[k] = ix.step_base(spec, k)
    return out


@numba.njit(cache=True, nogil=True)
def predecessors(
    spec: I64, slot: int, sq: I64, kinds: I64, owners: I64, stm: int, out: I64, work: I64
) -> int:
    """`un_moves` with the material's `step_bases`."""
    return un_moves(spec, step_bases(spec), slot, sq, kinds, owners, stm, out, work)


@numba.njit(cache=True, nogil=True, inline="always")
def un_moves(
    spec: I64, bases: I64, slot: int, sq: I64, kinds: I64, owners: I64, stm: int, out: I64, work: I64
) -> int:
    """The distinct slots of the positions whose one king or piece move (no capture, no pawn move)
    reaches the men `sq` with `stm` to move (a canonical position, at `slot`), into `out`; returns
    how many.

    A predecessor is legal when the side not to move in it (`stm`) is not in check: its man back on f
    neither checks from f nor leaves a check from another man unblocked (`evasions` of the board less
    its square). Both are boards computed once per man (the squares it may come from, less those from
    which it would check the king), so each predecessor costs a bit taken off a board. Its slot is the
    position's plus a step per square where the man moves without changing the symmetry (`ix.step`;
    a king: its pair's index, where the pair stays plain, `ix.KK_PLAIN_TO`, one bit each too), else
    `canonical`; only slots of another image than the men as they stand (`canonical_moved`) may
    repeat one, and only those are looked up among the others, and only where they may repeat one at
    all (`ix.distinct_images`)."""
    n = 2 + spec[0]
    mover = 1 - stm
    king = sq[stm]
    turn = ix.turn_step(spec, stm)
    occ = np.uint64(0)
    for k in range(n):
        occ |= mg.bit(sq[k])
    top = out.shape[0]
    count = 0
    moved = 0
    pawnful = spec[1] > 0
    plain = not (ix.pawns_symmetric(spec, sq) if pawnful else ix.KK_AMBIGUOUS[sq[0] * 64 + sq[1]])
    distinct = ix.distinct_images(spec, king)
    psize = ix.pieces_size(spec)
    one = np.uint64(1)
    for k in range(n):
        if owners[k] != mover or kinds[k] == mg.PAWN:
            continue
        kind = kinds[k]
        s = sq[k]
        rest = occ & ~mg.bit(s)
        allowed = mg.evasions(king, mover, sq, kinds, owners, n, k, rest) & ~occ
        if allowed == 0:
            continue
        fast = bases[k] if plain else 0
        if kind == mg.KING:
            origins = mg.KING_ATT[s] & allowed & ~mg.KING_ATT[king]
            if pawnful:
                # the pawns decide the image unless symmetric: a king's square is a digit (A's the
                # higher of the pair)
                fast = (psize << 6 if k == 0 else psize) if plain else 0
            else:
                # squares keeping the kings' pair plain step by the pair's index; only the others
                # may change the image
                easy = origins & ix.KK_PLAIN_TO[k * 64 + sq[1 - k]]
                origins ^= easy
                pair_base = slot + turn - ix.KK_INDEX_64[sq[0] * 64 + sq[1]] * psize
                while easy:
                    low = easy & (~easy + one)
                    easy ^= low
                    f = mg.square_of(low)
                    pair = f * 64 + sq[1] if k == 0 else sq[0] * 64 + f
                    out[count] = pair_base + ix.KK_PLAIN[pair] * psize
                    count += 1
        elif kind == mg.KNIGHT:
            origins = mg.KNIGHT_ATT[s] & allowed & ~mg.KNIGHT_ATT[king]
        else:
            origins = mg.slides(kind, s, occ) & allowed & ~mg.slides(kind, king, rest)
        if fast:
            fast_base = slot + turn - s * fast
            while origins:
                low = origins & (~origins + one)
                origins ^= low
                out[count] = fast_base + mg.square_of(low) * fast
                count += 1
            continue
        while origins:
            low = origins & (~origins + one)
            origins ^= low
            f = mg.square_of(low)
            c, mv = _moved_slot(spec, sq, n, k, f, mover, work)
            if c < 0:
                continue
            if mv and not distinct:
                moved += 1
                out[top - moved] = c
            else:
                out[count] = c
                count += 1
    return _merge_moved(out, count, moved)


@numba.njit(cache=True, nogil=True, inline="always")
def _moved_slot(spec: I64, sq: I64, n: int, k: int, f: int, stm: int, work: I64) -> tuple[int, bool]:
    """`canonical_moved` of the men `sq` with man k on f, `stm` to move (`ix.pawnless_moved` without
    pawns)."""
    if spec[1] == 0:
        return ix.pawnless_moved(spec, sq, k, f, stm)
    for i in range(n):
        work[i] = sq[i]
    work[k] = f
    return ix.canonical_moved(spec, work[0:5], stm, work[5:10])


@numba.njit(cache=True, nogil=True, inline="always")
def _merge_moved(out: I64, count: int, moved: int) -> int:
    """Slots out[:count] are distinct; the `moved` ones kept at out's end join them unless present."""
    top = out.shape[0]
    for i in range(moved):
        c = out[top - 1 - i]
        present = False
        for q in range(count):
            if out[q] == c:
                present = True
                break
        if not present:
            out[count] = c
            count += 1
    return count


@numba.njit(cache=True, nogil=True)
def retro(spec: I64, lo: int, hi: int, val: I16, deg: U8, ex: I16, max_level: int) -> int:
    """Solve slots lo..hi-1 into val[lo:hi] (one metric; `deg` and `ex` from `prepare`, `deg` consumed);
    returns the last level settled. A slot settled has SETTLED in `deg` after, INVALID stays.

    The slots settled at a level (its frontier) are marked in a bitmap as they are settled, and the
    level un-moves from those alone, in slot order (neighbouring slots' predecessors share cache
    lines), instead of scanning the slice's values; the slots whose exit may settle them at a level
    are listed by level once (`_exit_levels`), not looked for at every level. The order within a
    level changes nothing: a win takes from counts only, and a slot with a losing child never runs
    out of them."""
    n = hi - lo
    sq = np.empty(5, dtype=np.int64)
    kinds = np.empty(5, dtype=np.int64)
    owners = np.empty(5, dtype=np.int64)
    preds = np.empty(MAX_PREDECESSORS, dtype=np.int64)
    work = np.empty(10, dtype=np.int64)
    bases = step_bases(spec)
    ix.men_of(spec, kinds, owners)
    starts, waiting = _exit_levels(lo, n, val, deg, ex, max_level)
    top = starts.shape[0] - 2
    words = (n >> 6) + 1
    cur = np.zeros(words, dtype=np.uint64)
    nxt = np.zeros(words, dtype=np.uint64)
    one = np.uint64(1)
    level = 0
    while True:
        if level <= top:
            for at in range(starts[level], starts[level + 1]):
                i = waiting[at]
                if deg[i] >= SETTLED:
                    continue
                if int(ex[i]) > 0:
                    val[lo + i] = level
                elif deg[i] == 0:
                    val[lo + i] = -(level + 1)
                else:
                    continue
                deg[i] = SETTLED
                cur[i >> 6] |= one << np.uint64(i & 63)
        marked = 0
        for w in range(words):
            bits = cur[w]
            if bits == 0:
                continue
            cur[w] = 0
            while bits != 0:
                low = bits & (~bits + one)
                bits ^= low
                i = (w << 6) + mg.square_of(low)
                win = int(val[lo + i]) > 0
                stm = ix.decode(spec, lo + i, sq)
                count = un_moves(spec, bases, lo + i, sq, kinds, owners, stm, preds, work)
                if not win:
                    for q in range(count):
                        p = preds[q] - lo
                        if p < 0 or p >= n or deg[p] >= SETTLED:
                            continue
                        val[lo + p] = level + 1
                        deg[p] = SETTLED
                        nxt[p >> 6] |= one << np.uint64(p & 63)
                        marked += 1
                    continue
                for q in range(count):
                    # a win takes one from each open predecessor's count without a branch on its
                    # state (open or settled at random), then asks only whether that was the last
                    p = preds[q] - lo
                    if p < 0 or p >= n:
                        continue
                    d = deg[p]
                    deg[p] = d - np.uint8(d < SETTLED)
                    if d != 1:
                        continue
                    e = int(ex[p])
                    if e >= 0:
                        continue
                    lose_at = level + 1
                    if e != NONE and -e - 1 > lose_at:
                        continue
                    val[lo + p] = -(lose_at + 1)
                    deg[p] = SETTLED
                    nxt[p >> 6] |= one << np.uint64(p & 63)
                    marked += 1
        cur, nxt = nxt, cur
        level += 1
        if marked == 0 and level > top:
            return level - 1


@numba.njit(cache=True, nogil=True)
def _exit_levels(lo: int, n: int, val: I16, deg: U8, ex: I16, max_level: int) -> tuple[I64, I32]:
    """The slots (0 .. n-1) with an exit that wins or loses, by the level it settles them at, each
    level's in slot order: level L's are waiting[starts[L] : starts[L + 1]] (a win in L plies by its
    exit, or a loss in L whose other moves may all lose first); `val` zeroed on the way."""
    counts = np.zeros(max_level + 2, dtype=np.int64)
    top = -1
    for i in range(n):
        val[lo + i] = 0
        if deg[i] == INVALID:
            continue
        level = _exit_level(int(ex[i]))
        if level < 0:
            continue
        counts[level] += 1
        if level > top:
            top = level
    starts = np.zeros(top + 2, dtype=np.int64)
    for level in range(top + 1):
        starts[level + 1] = starts[level] + counts[level]
    fill = starts[: top + 1].copy()
    waiting = np.empty(starts[top + 1], dtype=np.int32)
    for i in range(n):
        if deg[i] == INVALID:
            continue
        level = _exit_level(int(ex[i]))
        if level < 0:
            continue
        waiting[fill[level]] = i
        fill[level] += 1
    return starts, waiting


@numba.njit(cache=True, nogil=True, inline="always")
def _exit_level(e: int) -> int:
    """The level an exit of value e settles its slot at (a win in e plies, a loss in -e - 1), -1 for
    none or a draw."""
    if e > 0:
        return e
    if e < 0 and e != NONE:
        return -e - 1
    return -1


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
