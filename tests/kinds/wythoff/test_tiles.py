"""The tiled layout of Wythoff's table: shell order, incremental extension, lookups by pair."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kinds.wythoff.kernels.table import wythoff_table
from kinds.wythoff.kernels.tile_order import TILE, TILE_VALUES, tile_at, tile_index
from kinds.wythoff.kernels.tiles import WythoffTileKernel, value_index, values_for_side


def test_shell_order_is_a_bijection_and_squares_come_first() -> None:
    for shells in range(1, 12):
        indices = sorted(tile_index(i, j) for i in range(shells) for j in range(shells))
        assert indices == list(range(shells * shells))
    assert all(tile_at(tile_index(i, j)) == (i, j) for i in range(30) for j in range(30))
    assert values_for_side(1) == TILE_VALUES and values_for_side(TILE + 1) == 4 * TILE_VALUES


@settings(max_examples=8, deadline=None)
@given(steps=st.lists(st.integers(1, 3 * TILE_VALUES), min_size=1, max_size=4))
def test_incremental_extension_equals_the_table(steps: list[int]) -> None:
    kernel = WythoffTileKernel()
    values = np.zeros(0, dtype=np.uint32)
    stop = 0
    for step in steps:
        stop = min(stop + step, 4 * TILE_VALUES)
        values = WythoffTileKernel().extend(values, stop) if step % 2 else kernel.extend(values, stop)
    table = wythoff_table(2 * TILE, 2 * TILE)  # itself checked against the plain-Python reference
    for a, b in [(0, 0), (3, 5), (TILE - 1, TILE), (TILE + 7, 3), (2 * TILE - 1, 2 * TILE - 1), (100, 300)]:
        index = value_index(a, b)
        if index < stop:
            assert values[index] == table[a, b]
