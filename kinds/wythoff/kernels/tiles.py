"""The Wythoff Grundy table laid out as a sequence of square tiles, so it can grow in place.

Tiles of TILE x TILE pairs are numbered shell by shell (shell k holds the tiles whose larger tile
coordinate is k), so the first K^2 tiles are exactly the square table of side K*TILE: a table grown
from 1024 to 4096 keeps every stored tile, and the worker's incremental `extend` applies unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from math import isqrt
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.kind import SequenceKernel
from engine.periods import Period
from kinds.wythoff import stats
from kinds.wythoff.kernels.table import wythoff_table, wythoff_table_reference
from kinds.wythoff.kernels.tile_order import TILE, TILE_VALUES, tile_at, tile_index

#: Side of one tile; a tile holds TILE^2 = 65,536 values.
#: Family name under which the tiled table is stored.
PAIRS = "pairs"


def value_index(a: int, b: int) -> int:
    """Index of g(a, b) (row a, column b) in the tiled sequence."""
    return tile_index(a // TILE, b // TILE) * TILE_VALUES + (a % TILE) * TILE + (b % TILE)


def side_for(values: int) -> int:
    """Side of the smallest square table whose tiles cover the first `values` entries."""
    tiles = -(-values // TILE_VALUES)
    shells = isqrt(tiles)
    return TILE * (shells if shells * shells == tiles else shells + 1)


def values_for_side(side: int) -> int:
    """How many tiled values a square table of at least `side` holds (whole shells of tiles)."""
    shells = -(-side // TILE)
    return shells * shells * TILE_VALUES


def tiles_of(table: NDArray[np.uint32], start: int, stop: int) -> NDArray[np.uint32]:
    """Entries start..stop-1 of the tiled sequence of a square table that covers them."""
    out = np.empty(stop - start, dtype=np.uint32)
    position = start
    while position < stop:
        index, offset = divmod(position, TILE_VALUES)
        ti, tj = tile_at(index)
        tile = table[ti * TILE : (ti + 1) * TILE, tj * TILE : (tj + 1) * TILE].reshape(-1)
        take = min(TILE_VALUES - offset, stop - position)
        out[position - start : position - start + take] = tile[offset : offset + take]
        position += take
    return out


class WythoffTileKernel(SequenceKernel):
    """Extends the tiled Wythoff table; the table has no period to certify."""

    family = PAIRS
    certifies = False
    stores_stats = True

    def __init__(self) -> None:
        self._table: NDArray[np.uint32] | None = None

    def table(self, side: int) -> NDArray[np.uint32]:
        """The square table of at least `side` (the last one computed is kept for the next step)."""
        if self._table is None or self._table.shape[0] < side:
            # Grow geometrically: a job extends the table step by step, and recomputing it at every
            # step's exact side would cost the sum of all those squares.
            grown = side if self._table is None else max(side, 2 * self._table.shape[0])
            self._table = wythoff_table(grown, grown)
        return self._table

    def extend(self, prefix: NDArray[np.uint32], stop: int) -> NDArray[np.uint32]:
        if stop <= len(prefix):
            return prefix[:stop]
        table = self.table(side_for(stop))
        return np.concatenate([prefix, tiles_of(table, len(prefix), stop)])

    def certify(self, values: NDArray[np.uint32]) -> Period | None:
        return None

    def stats_part(self, values: NDArray[np.uint32], start: int) -> dict[str, Any] | None:
        return stats.part(values, start)

    def combine_stats(self, earlier: Mapping[str, Any], later: Mapping[str, Any]) -> dict[str, Any]:
        return stats.combine(earlier, later)

    def reference(self, stop: int) -> list[int]:
        side = side_for(stop)
        rows = wythoff_table_reference(side, side)
        table = np.array(rows, dtype=np.uint32)
        return [int(v) for v in tiles_of(table, 0, stop)]
