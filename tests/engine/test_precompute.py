"""Precompute requests become jobs the same way for every caller."""

from __future__ import annotations

import pytest

from engine.errors import InvalidArgument, NotApplicable
from engine.precompute import MAX_UPTO, MAX_WYTHOFF_SIDE, JobPlan, plan_job
from engine.registry import parse_game_id
from kinds.wythoff.kernels.tile_order import TILE_VALUES


def test_heap_games_count_heap_sizes() -> None:
    # Their kernels store each table's statistics beside it (`stats`).
    assert plan_job(parse_game_id("subtraction:3,1,4"), 1000) == JobPlan(
        "subtraction:1,3,4", "heap", 1000, False, stats=True
    )
    assert plan_job(parse_game_id("grundy"), 5, fill=True) == JobPlan("grundy", "heap", 5, True, stats=True)


def test_wythoff_counts_the_side_of_its_table() -> None:
    plan = JobPlan("wythoff", "pairs", 16 * TILE_VALUES, True, stats=True)  # its statistics stored beside it
    assert plan_job(parse_game_id("wythoff"), 1024) == plan
    assert plan_job(parse_game_id("wythoff"), 257).values == 4 * TILE_VALUES


@pytest.mark.parametrize(
    ("game", "upto", "error"),
    [
        ("nim", 10, NotApplicable),
        ("subtraction:1,2", 0, InvalidArgument),
        ("subtraction:1,2", MAX_UPTO + 1, InvalidArgument),
        ("wythoff", MAX_WYTHOFF_SIDE + 1, InvalidArgument),
    ],
)
def test_requests_that_cannot_be_jobs(game: str, upto: int, error: type[Exception]) -> None:
    with pytest.raises(error, match=str(upto) if error is InvalidArgument else "closed form"):
        plan_job(parse_game_id(game), upto)
