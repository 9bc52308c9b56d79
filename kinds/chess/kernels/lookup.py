"""Looking positions up in a solved chess table, many at once: one numba call values every child of a
position that stays in its table (a move that neither captures nor promotes), instead of one Python
index computation per child.

Positions come as the index sees them (kinds.chess.kernels.index): per row the men's squares, kings
first, then the material's men in its order (side A as White), and the side to move (0: side A).
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from kinds.chess.kernels import index as ix
from kinds.chess.kernels import movegen as mg
from kinds.chess.kernels import retro
from kinds.chess.kernels.values import NONE, after, better, zeroing

I16 = NDArray[np.int16]
I64 = NDArray[np.int64]


@numba.njit(cache=True, nogil=True)
def probe_many(spec: I64, squares: I64, stms: I64, dtm: I16, dtz: I16, out: I64) -> int:
    """DTM and DTZ (kinds.chess.kernels.values' encoding) of each row of `squares` (side to move
    `stms[i]`) into `out[i, 0]` and `out[i, 1]`; the number of rows done, less than all when a row names
    no position of the table (its slot is -1)."""
    image = np.empty(2 + ix.MAX_PIECES, dtype=np.int64)
    for i in range(squares.shape[0]):
        slot = ix.canonical(spec, squares[i], stms[i], image)
        if slot < 0:
            return i
        out[i, 0] = dtm[slot]
        out[i, 1] = dtz[slot]
    n: int = squares.shape[0]
    return n


@numba.njit(cache=True, nogil=True)
def children_many(
    spec: I64,
    squares: I64,
    stms: I64,
    slots: I64,
    zeroes: NDArray[np.bool_],
    starts: I64,
    leaves: NDArray[np.bool_],
) -> int:
    """The children in the table of each row of `squares` (side to move `stms[i]`): their slots into
    `slots[starts[i]:starts[i + 1]]` and whether each move zeroes (a pawn move) into `zeroes`, for
    `best_many` to value them once the caller has read their values (the side not stored of a table of
    one side to move, block format 6, searched one ply as kinds.chess.kernels.oneply searches it).
    `leaves[i]`: the row has a move leaving the table (a capture, a promotion) or a double step (an en
    passant square), not listed, or no move at all: the caller values those. `slots` and `zeroes` hold
    mg.MAX_MOVES a row. Returns the children's count."""
    sq = np.empty(5, dtype=np.int64)
    kinds = np.empty(5, dtype=np.int64)
    owners = np.empty(5, dtype=np.int64)
    moves = np.empty(4 * mg.MAX_MOVES, dtype=np.int64)
    quiet = np.empty(2 * mg.MAX_MOVES, dtype=np.int64)
    work = np.empty(30, dtype=np.int64)
    n = ix.men_of(spec, kinds, owners)
    count = 0
    for i in range(squares.shape[0]):
        starts[i] = count
        for k in range(n):
            sq[k] = squares[i, k]
        stm = stms[i]
        zero, calm = retro._moves(sq, kinds, owners, n, stm, moves, quiet, True)
        leaves[i] = zero + calm == 0
        for e in range(calm + zero):
            if e < calm:
                j = quiet[2 * e]
                to = quiet[2 * e + 1]
            else:
                j = moves[4 * (e - calm)]
                to = moves[4 * (e - calm) + 1]
                if moves[4 * (e - calm) + 2] != 0 or moves[4 * (e - calm) + 3] >= 0 or abs(to - sq[j]) == 16:
                    leaves[i] = True
                    continue
            c, _ = retro._moved_slot(spec, sq, n, j, to, 1 - stm, work)
            slots[count] = c
            zeroes[count] = e >= calm
            count += 1
    starts[squares.shape[0]] = count
    return count


@numba.njit(cache=True, nogil=True)
def best_many(dtm: I16, dtz: I16, zeroes: NDArray[np.bool_], starts: I64, out: I64) -> None:
    """Each row's DTM and DTZ from its children's (`children_many`'s, their values read in `dtm` and
    `dtz`): its best move's among them, as kinds.chess.kernels.values turns them round (NONE for a row
    given none)."""
    for i in range(starts.shape[0] - 1):
        bm = NONE
        bz = NONE
        for c in range(starts[i], starts[i + 1]):
            bm = better(bm, after(int(dtm[c])))
            bz = better(bz, zeroing(int(dtz[c])) if zeroes[c] else after(int(dtz[c])))
        out[i, 0] = bm
        out[i, 1] = bz
