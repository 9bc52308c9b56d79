"""Statistics of single-heap tables stored beside them (kinds.heaps.stats): GetStats from the stored
statistics is what the existing code computes from the values (`HeapGame.prefix_stats`), and statistics
combined range by range, at any split points, are those made of the whole table at once."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from engine.kind import SequenceKernel
from engine.registry import parse_game_id
from kinds.heaps import stats as heap_stats
from kinds.heaps.base import HeapGame
from nimbase.settings import Limits
from tests.engine.contexts import DictMemo, engine_context

GAMES = ["octal:0.6", "octal:0.77", "octal:0.137", "grundy", "subtraction:1,3,4", "octal:4.7"]
SIZE = 3000


class StoredHeap:
    """The tables' side of a heap game whose table (and statistics) a worker stored, no period certified."""

    def __init__(self, values: NDArray[np.uint32], stats: dict[str, Any] | None) -> None:
        self.values = values
        self.stats = stats

    def stored_size(self, game_id: str, family: str) -> int:
        return len(self.values)

    def stored_stats(self, game_id: str, family: str) -> dict[str, Any] | None:
        return self.stats

    def known_prefix(self, source: object, deadline: float) -> tuple[NDArray[np.uint32], str]:
        return self.values, "table"

    def period(self, source: object, deadline: float, *, compute: bool = False) -> None:
        return None


_VALUES: dict[str, NDArray[np.uint32]] = {}


def game_and_values(game_id: str) -> tuple[HeapGame, SequenceKernel, NDArray[np.uint32]]:
    game = parse_game_id(game_id)
    assert isinstance(game, HeapGame)
    kernel = game.kernel()
    assert kernel is not None
    if game_id not in _VALUES:
        _VALUES[game_id] = kernel.extend(np.zeros(0, dtype=np.uint32), SIZE)
    return game, kernel, _VALUES[game_id]


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("listed", [1000, 10, 5000])
def test_stored_stats_are_those_computed_from_the_table(game_id: str, listed: int) -> None:
    game, kernel, values = game_and_values(game_id)
    limits = Limits(stats_p_positions=listed)
    existing = game.stats(engine_context(StoredHeap(values, None), limits=limits, memo=DictMemo()))
    ctx = engine_context(StoredHeap(values, kernel.stats_part(values, 0)), limits=limits, memo=DictMemo())
    assert game.stored_stats(ctx) is not None  # answered from the statistics, not from the values
    assert game.stats(ctx) == existing
    assert existing["source"] == "table" and existing["computed_upto"] == SIZE


@pytest.mark.parametrize("game_id", GAMES)
@settings(max_examples=25, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=SIZE), max_size=6))
def test_statistics_combined_range_by_range_are_the_whole_tables(game_id: str, cuts: list[int]) -> None:
    _, kernel, values = game_and_values(game_id)
    assert kernel.stores_stats  # the worker asks it for them
    stops = sorted({*cuts, SIZE} - {0})
    start = 0
    stats: dict[str, Any] | None = None
    for stop in stops:
        part = kernel.stats_part(values[:stop], start)
        assert part is not None
        stats = part if stats is None else kernel.combine_stats(stats, part)
        start = stop
    assert stats == kernel.stats_part(values, 0)


def test_more_p_positions_to_list_than_are_kept_are_read_from_the_values() -> None:
    _, kernel, values = game_and_values("subtraction:1,3,4")
    stats = kernel.stats_part(values, 0)
    assert stats is not None and stats["p_count"] > 3
    cut = {**stats, "p_first": stats["p_first"][:3]}
    assert heap_stats.answer(cut, None, stats["p_count"]) is None
    assert heap_stats.answer(cut, None, 2) is not None  # a count only: the statistics say it
