"""The values of one side to move of a chess table from the other side's, by a one-ply search (numba).

A table stored with one side to move (kinds.chess.sides, block format 6) gives the other side's
positions their best move's value: every quiet move (a king or piece move, no capture) reaches a
position of the same material with the stored side to move; a pawn move too; a capture or a promotion
reaches a sub-material's table (whole, both sides: the caller rebuilds it first). The moves and the
zeroing moves' values are kinds.chess.kernels.retro's (`_moves`, `_exit_values`: en passant included),
the quiet children's slots its `_moved_slot`, so the values are the solver's exactly: a position's DTM
and DTZ are `better` over `after` of each quiet child and `zeroing` of each zeroing child
(kinds.chess.kernels.values), checkmate -1, stalemate 0. Slots naming no position take the values of
the slot before them in their slice, as the solver leaves them (retro's `fill_invalid`).
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from kinds.chess.kernels import index as ix
from kinds.chess.kernels import movegen as mg
from kinds.chess.kernels import retro
from kinds.chess.kernels.values import NONE, after, better

I16 = NDArray[np.int16]
I64 = NDArray[np.int64]


@numba.njit(cache=True, nogil=True)
def fill_side(
    spec: I64,
    lo: int,
    hi: int,
    rows: I64,
    child_dtm: I16,
    child_dtz: I16,
    dtm: I16,
    dtz: I16,
    kept_m: I16,
    kept_z: I16,
) -> int:
    """Values of slots lo..hi-1 (one half slice: one pawn configuration, one side to move) into `dtm`
    and `dtz` (the whole table's arrays, the other side's half of every slice filled) from their
    children; `rows`, `child_dtm`, `child_dtz` as retro's `prepare` reads the sub-tables, and as there
    the moves into a table of a pass of its own (a DEFERRED row) are skipped, their best taken from
    `kept_m`, `kept_z` instead (slot v's at v - lo, NONE for none; empty when no move is). Returns the
    count of moves whose target no table holds (0 unless the tables are wrong)."""
    sq = np.empty(5, dtype=np.int64)
    kinds = np.empty(5, dtype=np.int64)
    owners = np.empty(5, dtype=np.int64)
    moves = np.empty(4 * mg.MAX_MOVES, dtype=np.int64)
    scratch = np.empty(4 * mg.MAX_MOVES, dtype=np.int64)
    quiet = np.empty(2 * mg.MAX_MOVES, dtype=np.int64)
    work = np.empty(30, dtype=np.int64)
    image = np.empty(5, dtype=np.int64)
    n = ix.men_of(spec, kinds, owners)
    errors = 0
    prev_m, prev_z = _before(spec, lo, dtm, dtz, sq, kinds, owners, image)
    for v in range(lo, hi):
        stm = ix.valid(spec, v, sq, kinds, owners, image)
        if stm < 0:
            dtm[v] = prev_m
            dtz[v] = prev_z
            continue
        zero, calm = retro._moves(sq, kinds, owners, n, stm, moves, quiet, True)
        if zero + calm == 0:
            occ = np.uint64(0)
            for k in range(n):
                occ |= mg.bit(sq[k])
            mate = mg.attacked(sq[stm], 1 - stm, sq, kinds, owners, n, -1, occ)
            bm = -1 if mate else 0
            bz = bm
        else:
            bm = NONE
            bz = NONE
            for e in range(calm):
                c, _ = retro._moved_slot(spec, sq, n, quiet[2 * e], quiet[2 * e + 1], 1 - stm, work)
                if c < 0:
                    errors += 1
                    continue
                bm = better(bm, after(int(dtm[c])))
                bz = better(bz, after(int(dtz[c])))
            for e in range(zero):
                vm, vz = retro._exit_values(
                    spec, rows, child_dtm, child_dtz, dtm, dtz, sq, kinds, owners, stm, moves[4 * e],
                    moves[4 * e + 1], moves[4 * e + 2], moves[4 * e + 3], work, scratch,
                )  # fmt: skip
                if vm == retro.SKIP:  # valued by its own pass: in `kept_m`
                    continue
                if vm == NONE:
                    errors += 1
                    continue
                bm = better(bm, vm)
                bz = better(bz, vz)
            if len(kept_m) > 0 and kept_m[v - lo] != NONE:
                bm = better(bm, int(kept_m[v - lo]))
                bz = better(bz, int(kept_z[v - lo]))
        dtm[v] = bm
        dtz[v] = bz
        prev_m = bm
        prev_z = bz
    return errors


@numba.njit(cache=True, nogil=True)
def _before(
    spec: I64, lo: int, dtm: I16, dtz: I16, sq: I64, kinds: I64, owners: I64, image: I64
) -> tuple[int, int]:
    """The values the solver gives a slot naming no position at `lo` (the start of a half slice): those
    of the last slot naming one before it in its slice (side A's half of it), 0 at a slice's start."""
    start = lo - lo % ix.block_size(spec)
    for v in range(lo - 1, start - 1, -1):
        if ix.valid(spec, v, sq, kinds, owners, image) >= 0:
            return int(dtm[v]), int(dtz[v])
    return 0, 0
