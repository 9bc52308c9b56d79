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
