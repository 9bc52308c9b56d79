"""Grundy values of Wythoff pairs: a rows x cols table, and its plain-Python reference.

g(a, b) is the mex over g(a', b) (a' < a), g(a, b') (b' < b) and g(a - d, b - d) (d >= 1). Keeping,
for every row, column and diagonal, a bitset of the values already in it turns each cell into an OR
of three bitsets and a search for the first zero bit, which only reads as far as the mex. Values obey
g(a, b) <= a + b, so bitsets of a + b + 1 bits suffice. The table is row-major uint32, so storage can
cut it into tiles (`table_tile`).
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray


@numba.njit(cache=True, nogil=True)
def _lowest_zero(x: np.uint64) -> int:
    """Index of the lowest zero bit of x (x is not all ones)."""
    y = ~x
    i = 0
    while (y & np.uint64(1)) == np.uint64(0):
        y >>= np.uint64(1)
        i += 1
    return i


@numba.njit(cache=True, nogil=True)
def wythoff_table_nb(rows: int, cols: int) -> NDArray[np.uint32]:
    """g(a, b) for 0 <= a < rows, 0 <= b < cols by row, column and diagonal bitsets."""
    out = np.zeros((rows, cols), dtype=np.uint32)
    words = (rows + cols) // 64 + 1
    row_seen = np.zeros(words, dtype=np.uint64)
    col_seen = np.zeros((cols, words), dtype=np.uint64)
    diag_seen = np.zeros((rows + cols, words), dtype=np.uint64)
    full = ~np.uint64(0)
    one = np.uint64(1)
    for a in range(rows):
        row_seen[:] = 0
        for b in range(cols):
            d = b - a + rows
            g = 0
            for w in range(words):
                x = row_seen[w] | col_seen[b, w] | diag_seen[d, w]
                if x != full:
                    g = w * 64 + _lowest_zero(x)
                    break
            out[a, b] = g
            w = g >> 6
            bit = one << np.uint64(g & 63)
            row_seen[w] |= bit
            col_seen[b, w] |= bit
            diag_seen[d, w] |= bit
    return out


def wythoff_table(rows: int, cols: int | None = None) -> NDArray[np.uint32]:
    """The rows x cols table (square when `cols` is omitted), row-major uint32."""
    cols = rows if cols is None else cols
    if rows < 0 or cols < 0:
        raise ValueError(f"table sides must be non-negative, got {rows} x {cols}")
    if rows == 0 or cols == 0:
        return np.zeros((rows, cols), dtype=np.uint32)
    return wythoff_table_nb(rows, cols)


def wythoff_table_reference(rows: int, cols: int | None = None) -> list[list[int]]:
    """Plain-Python reference of `wythoff_table`: the mex of every option, cell by cell."""
    cols = rows if cols is None else cols
    g = [[0] * cols for _ in range(rows)]
    for a in range(rows):
        for b in range(cols):
            seen = {g[x][b] for x in range(a)} | {g[a][y] for y in range(b)}
            seen |= {g[a - d][b - d] for d in range(1, min(a, b) + 1)}
            v = 0
            while v in seen:
                v += 1
            g[a][b] = v
    return g


def table_tile(table: NDArray[np.uint32], i: int, j: int, size: int) -> NDArray[np.uint32]:
    """Tile (i, j) of side `size` (clipped at the table's edges), as a contiguous copy."""
    if size < 1 or i < 0 or j < 0:
        raise ValueError(f"tile ({i}, {j}) of size {size} is not a tile")
    return np.ascontiguousarray(table[i * size : (i + 1) * size, j * size : (j + 1) * size])
