"""The Wythoff table's stored statistics (kinds.wythoff.stats): those of the whole table equal what the
square table shows when read directly (no tile geometry), ranges cut anywhere combine to them, and GetStats
reports them beside the closed-form figures only where they were stored."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine.kind import Context
from kinds.wythoff.kernels.table import wythoff_table
from kinds.wythoff.kernels.tiles import PAIRS, tiles_of, values_for_side
from kinds.wythoff.kind import WythoffGame
from tests.engine.contexts import StoredWords, engine_context

SIDE = 512


def direct(side: int) -> dict[str, object]:
    """The figures read off the square table pair by pair (rows b, columns a: the table is symmetric)."""
    table = wythoff_table(side, side)
    top = int(table.max())
    at = min((max(a, b), min(a, b)) for a, b in zip(*np.nonzero(table == top), strict=True))
    p_count = sum(1 for a, b in zip(*np.nonzero(table == 0), strict=True) if a <= b)
    return {"max_value": top, "max_value_at": [int(at[1]), int(at[0])], "p_count": p_count}


def tiled(side: int) -> np.ndarray:
    return tiles_of(wythoff_table(side, side), 0, values_for_side(side))


def test_the_whole_tables_statistics_are_what_the_table_shows() -> None:
    kernel = WythoffGame().kernel()
    assert kernel.stores_stats  # the worker asks it for them
    values = tiled(SIDE)
    stats = kernel.stats_part(values, 0)
    assert stats is not None
    assert stats["upto"] == len(values)
    assert {k: stats[k] for k in ("max_value", "max_value_at", "p_count")} == direct(SIDE)


@pytest.mark.parametrize("cuts", [(65_536,), (1, 100_000, 196_608), (131_071, 131_072, 262_143)])
def test_ranges_cut_anywhere_combine_to_the_whole(cuts: tuple[int, ...]) -> None:
    kernel = WythoffGame().kernel()
    values = tiled(SIDE)
    bounds = [0, *cuts, len(values)]
    stats = None
    for start, stop in itertools.pairwise(bounds):
        part = kernel.stats_part(values[:stop], start)
        assert part is not None
        stats = part if stats is None else kernel.combine_stats(stats, part)
    assert stats == kernel.stats_part(values, 0)


def stored_context(stats: bool) -> Context:
    words = StoredWords()
    values = tiled(SIDE)
    words.words[("wythoff", PAIRS)] = values
    if stats:
        part = WythoffGame().kernel().stats_part(values, 0)
        assert part is not None
        words.stats[("wythoff", PAIRS)] = part
    return engine_context(words)


def test_get_stats_reports_the_stored_statistics() -> None:
    found = WythoffGame().stats(stored_context(stats=True))
    figures = direct(SIDE)
    assert found["table_side"] == SIDE
    assert found["max_value"] == figures["max_value"]
    assert found["max_value_at"] == figures["max_value_at"]
    assert found["p_positions"] == figures["p_count"]  # the closed form agrees with the table


def test_a_table_stored_without_statistics_is_reported_without_their_figures() -> None:
    found = WythoffGame().stats(stored_context(stats=False))
    assert found["table_side"] == SIDE and "max_value" not in found
