"""Numba valuing of the promotions into one table over a slice, in a pass of its own.

A material with two pawns promotes into tables with a pawn (KQPvKP into KQQvKP, ..., and KQPvKQ, ...):
eight tables of five men, about 26 GB of values, which the solve would hold at once for its first
slices (kinds.chess.solve). Those tables are instead read one at a time: for each, this pass values the
promotions into it of every slot of the slices that promote into it, each slot's best kept beside the
others' (`exm`, `exz`, the mover's best value of those moves, NONE for none), and `retro.prepare`
skips those moves (their rows DEFERRED) and takes the kept best beside its own (`merge_exits`). The
best of a slot's exits is the same whichever order its moves are valued in: the values equal those
of one `prepare` holding every table, which the tests compare them with. The rebuild of a table's side
to move not stored (kinds.chess.sides) does the same for the slots of that side alone, its one-ply
search (kinds.chess.kernels.oneply) skipping those moves and taking the kept best.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from kinds.chess.kernels import index as ix
from kinds.chess.kernels import movegen as mg
from kinds.chess.kernels import retro
from kinds.chess.kernels.values import NONE, better

I16 = NDArray[np.int16]
I64 = NDArray[np.int64]
U8 = NDArray[np.uint8]


@numba.njit(cache=True, nogil=True)
def promotion_exits(
    spec: I64, lo: int, hi: int, rows: I64, child_dtm: I16, child_dtz: I16, exm: I16, exz: I16
) -> int:
    """For each slot lo..hi-1 naming a position, its promotions whose rows are usable (rows[r, 0] == 1:
    the table of this pass) valued from `child_dtm`/`child_dtz`, the best kept in exm[v - lo] and
    exz[v - lo] beside what they hold. Returns the count of such moves whose target the table lacks (0
    unless the table is wrong)."""
    sq = np.empty(5, dtype=np.int64)
    kinds = np.empty(5, dtype=np.int64)
    owners = np.empty(5, dtype=np.int64)
    moves = np.empty(4 * mg.MAX_MOVES, dtype=np.int64)
    scratch = np.empty(4 * mg.MAX_MOVES, dtype=np.int64)
    quiet = np.empty(2 * mg.MAX_MOVES, dtype=np.int64)
    work = np.empty(30, dtype=np.int64)
    image = np.empty(5, dtype=np.int64)
    own = np.zeros(1, dtype=np.int16)  # a promotion leaves the table: its own values are never read
    n = ix.men_of(spec, kinds, owners)
    m = spec[0]
    errors = 0
    for v in range(lo, hi):
        stm = ix.valid(spec, v, sq, kinds, owners, image)
        if stm < 0:
            continue
        zero, _ = retro._moves(sq, kinds, owners, n, stm, moves, quiet, False)
        i = v - lo
        for e in range(zero):
            promo = moves[4 * e + 2]
            if promo == 0:
                continue
            j = moves[4 * e]
            to = moves[4 * e + 1]
            cap = moves[4 * e + 3]
            if rows[retro.exit_row(m, cap - 2 if cap >= 0 else -1, j - 2, promo - 1), 0] != 1:
                continue  # another pass's table
            vm, vz = retro._exit_values(
                spec, rows, child_dtm, child_dtz, own, own, sq, kinds, owners, stm, j, to, promo, cap,
                work, scratch,
            )  # fmt: skip
            if vm == NONE:
                errors += 1
                continue
            exm[i] = better(exm[i], vm)
            exz[i] = better(exz[i], vz)
    return errors


@numba.njit(cache=True, nogil=True)
def merge_exits(deg: U8, exm: I16, exz: I16, kept_m: I16, kept_z: I16) -> None:
    """`prepare`'s best exits of a slice (`exm`, `exz`) joined with those its passes kept (`kept_m`,
    `kept_z`), for the slots naming a position (a slot `prepare` found without a move has no promotion,
    so nothing was kept for it)."""
    for i in range(len(deg)):
        if deg[i] == retro.INVALID or kept_m[i] == NONE:
            continue
        exm[i] = better(exm[i], kept_m[i])
        exz[i] = better(exz[i], kept_z[i])
