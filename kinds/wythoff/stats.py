"""Statistics of the stored Wythoff table, made by the worker beside its tiles and combined as the table
grows (engine.kind.SequenceKernel.stats_part), so GetStats reads a few numbers, not the table.

What they hold depends on the values only through sums and extremes over consecutive ranges of the
tiled sequence (kinds.wythoff.kernels.tiles): the largest Grundy value, the pair first reaching it (the
one with the smallest larger pile, then the smallest smaller pile: an order of pairs, not of tiles, so
two ranges combine whatever their tiles), and the P-positions counted among pairs a <= b (0,0 included,
as GetStats' `p_positions` counts the ranks in closed form).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from kinds.wythoff.kernels.tile_order import TILE, TILE_VALUES, tile_at

#: The shape's version, stored with it: statistics of another shape are not read.
VERSION = 1


def part(values: NDArray[np.uint32], start: int) -> dict[str, Any]:
    """The statistics of entries start..len(values)-1 of the tiled sequence (`values` from entry 0)."""
    stop = len(values)
    top: int | None = None
    at: tuple[int, int] | None = None
    p_count = 0
    position = start
    while position < stop:
        index, offset = divmod(position, TILE_VALUES)
        take = min(TILE_VALUES - offset, stop - position)
        ti, tj = tile_at(index)
        chunk = values[position : position + take]
        cells = np.arange(offset, offset + take, dtype=np.int64)
        rows = ti * TILE + cells // TILE
        columns = tj * TILE + cells % TILE
        p_count += int(np.count_nonzero((chunk == 0) & (rows <= columns)))
        largest = int(chunk.max())
        if top is None or largest >= top:
            where = np.flatnonzero(chunk == largest)
            low = np.minimum(rows[where], columns[where])
            high = np.maximum(rows[where], columns[where])
            first = int(np.lexsort((low, high))[0])
            pair = (int(low[first]), int(high[first]))
            if top is None or largest > top or at is None or _order(pair) < _order(at):
                top, at = largest, pair
        position += take
    return {
        "version": VERSION,
        "upto": stop,
        "max_value": top,
        "max_value_at": None if at is None else list(at),
        "p_count": p_count,
    }


def combine(earlier: Mapping[str, Any], later: Mapping[str, Any]) -> dict[str, Any]:
    """The statistics of two consecutive ranges together (`later` the range just after `earlier`)."""
    top, at = earlier["max_value"], earlier["max_value_at"]
    if top is None or (
        later["max_value"] is not None
        and (
            later["max_value"] > top
            or (later["max_value"] == top and _order(tuple(later["max_value_at"])) < _order(tuple(at)))
        )
    ):
        top, at = later["max_value"], later["max_value_at"]
    return {
        "version": VERSION,
        "upto": later["upto"],
        "max_value": top,
        "max_value_at": at,
        "p_count": earlier["p_count"] + later["p_count"],
    }


def readable(stats: Mapping[str, Any] | None) -> bool:
    """Whether `stats` are of this module's shape (else GetStats leaves their figures out)."""
    return stats is not None and stats.get("version") == VERSION and "max_value" in stats


def _order(pair: tuple[int, ...]) -> tuple[int, int]:
    """Pairs ordered by their larger pile, then their smaller."""
    low, high = pair
    return high, low
