"""The order of the Wythoff table's tiles: TILE x TILE pairs each, numbered shell by shell (shell k holds
the tiles whose larger tile coordinate is k), so the first K^2 tiles are the square table of side K*TILE.
Apart from the kernel (kinds.wythoff.kernels.tiles) so that its statistics (kinds.wythoff.stats) read it too.
"""

from __future__ import annotations

from math import isqrt

TILE = 256
TILE_VALUES = TILE * TILE


def tile_index(ti: int, tj: int) -> int:
    """Position of tile (row ti, column tj) in shell order."""
    k = max(ti, tj)
    if ti == k:
        return k * k + tj
    return k * k + k + 1 + ti


def tile_at(index: int) -> tuple[int, int]:
    """The tile (row, column) at a position in shell order (inverse of tile_index)."""
    k = isqrt(index)
    offset = index - k * k
    if offset <= k:
        return k, offset
    return offset - k - 1, k
