"""Grundy values of Wythoff pairs: a rows x cols table, and its plain-Python reference.

g(a, b) is the mex over g(a', b) (a' < a), g(a, b') (b' < b) and g(a - d, b - d) (d >= 1). Keeping,
for every row, column and diagonal, a bitset of the values already in it turns each cell into an OR
of three bitsets and a search for the first zero bit; the search starts at the largest of the row's,
column's and diagonal's own mex (kept up to date), and cells go tile by tile for cache locality.
Values obey g(a, b) <= a + b, so bitsets of a + b + 1 bits suffice. The table is row-major uint32,
so storage can cut it into tiles (`table_tile`).
"""

from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros
from numpy.typing import NDArray

#: Side of the square blocks of cells the kernel fills one after the other (cache locality).
TILE = 64


@numba.njit(cache=True, nogil=True)
def _lowest_zero(x: np.uint64) -> int:
    """Index of the lowest zero bit of x (x is not all ones)."""
    return int(trailing_zeros(~x))  # type: ignore[call-arg]  # a numba intrinsic


@numba.njit(cache=True, nogil=True)
def _lowest_unseen(seen: NDArray[np.uint64], first: int, start: int) -> int:
    """The smallest value >= start whose bit is clear in the bitset of words seen[first:]."""
    full = ~np.uint64(0)
    w = start >> 6
    x = seen[first + w] | ((np.uint64(1) << np.uint64(start & 63)) - np.uint64(1))
    while x == full:
        w += 1
        x = seen[first + w]
    return w * 64 + _lowest_zero(x)


@numba.njit(cache=True, nogil=True)
def wythoff_table_nb(rows: int, cols: int, tile: int = TILE) -> NDArray[np.uint32]:
    """g(a, b) for 0 <= a < rows, 0 <= b < cols by row, column and diagonal bitsets.

    Each row, column and diagonal also keeps its own mex: a cell's mex is at least the largest of
    its three, so the search for it starts there rather than at 0. Cells are taken tile by tile
    (tile x tile, tiles row by row), so the bitsets a tile touches (tile rows, tile columns,
    2 * tile diagonals) stay in the cache although the values, hence the words read, are spread.
    """
    out = np.zeros((rows, cols), dtype=np.uint32)
    words = (rows + cols) // 64 + 2
    diagonals = rows + cols
    row_seen = np.zeros(tile * words, dtype=np.uint64)  # the rows of the current band of tiles
    col_seen = np.zeros(cols * words, dtype=np.uint64)
    diag_seen = np.zeros(diagonals * words, dtype=np.uint64)
    row_mex = np.zeros(tile, dtype=np.int64)
    col_mex = np.zeros(cols, dtype=np.int64)
    diag_mex = np.zeros(diagonals, dtype=np.int64)
    full = ~np.uint64(0)
    one = np.uint64(1)
    for a0 in range(0, rows, tile):
        row_seen[:] = 0
        row_mex[:] = 0
        a1 = min(rows, a0 + tile)
        for b0 in range(0, cols, tile):
            b1 = min(cols, b0 + tile)
            for a in range(a0, a1):
                i = a - a0
                rw = i * words
                for b in range(b0, b1):
                    d = b - a + rows
                    cw = b * words
                    dw = d * words
                    low = max(row_mex[i], col_mex[b], diag_mex[d])
                    w = low >> 6
                    # Every value below `low` is in one of the three sets.
                    x = row_seen[rw + w] | col_seen[cw + w] | diag_seen[dw + w]
                    x |= (one << np.uint64(low & 63)) - one
                    while x == full:
                        w += 1
                        x = row_seen[rw + w] | col_seen[cw + w] | diag_seen[dw + w]
                    g = w * 64 + _lowest_zero(x)
                    out[a, b] = g
                    gw = g >> 6
                    bit = one << np.uint64(g & 63)
                    row_seen[rw + gw] |= bit
                    col_seen[cw + gw] |= bit
                    diag_seen[dw + gw] |= bit
                    if g == row_mex[i]:
                        row_mex[i] = _lowest_unseen(row_seen, rw, g)
                    if g == col_mex[b]:
                        col_mex[b] = _lowest_unseen(col_seen, cw, g)
                    if g == diag_mex[d]:
                        diag_mex[d] = _lowest_unseen(diag_seen, dw, g)
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
