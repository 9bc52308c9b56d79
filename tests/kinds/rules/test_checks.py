"""The round trip a tier's job checks before it solves (kinds.rules.checks): a deterministic sample of
the tier (its first and last positions and a few hundred spread over it), the shipped games passing it,
a misspelt encoding failing it naming the position."""

from __future__ import annotations

import numpy as np
import pytest

from engine.registry import parse_game_id
from kinds.rules.checks import SPREAD, check_round_trip, sample
from kinds.rules.kind import RulesGame, TierKernel
from kinds.rules.solve import positions
from nimbase_rules import LOSS, Move, Rules, RulesError


class Counting(Rules):
    """Take one or two of `size - 1` tokens, without tiers; codes in `misspelt` are written wrongly."""

    name = description = position_syntax = "counting"
    examples = ("9",)

    def __init__(self, size: int, misspelt: frozenset[int] = frozenset()) -> None:
        self.game_id = f"counting:{size}"  # tiers' positions are kept by game id
        self.size = size
        self.misspelt = misspelt

    def initial(self) -> int:
        return self.size - 1

    def parse(self, text: str) -> int:
        return int(text)

    def format(self, code: int) -> str:
        return f"{code}!" if code in self.misspelt else str(code)

    def moves(self, code: int) -> list[Move]:
        return [Move(f"-{k}", code - k) for k in (1, 2) if k <= code]

    def end(self, code: int) -> int:
        return LOSS


def test_the_sample_holds_the_ends_and_a_spread_the_same_each_time() -> None:
    codes = np.arange(0, 3_000_000, 3, dtype=np.int64)
    picked = sample(codes, 7)
    assert picked[0] == codes[0] and picked[-1] == codes[-1]
    assert SPREAD <= len(picked) <= SPREAD + 2 and np.all(np.diff(picked) > 0)
    assert np.isin(picked, codes).all()
    slices = np.searchsorted(picked, np.linspace(0, codes[-1], 17)[1:-1])
    assert np.all(np.diff(slices) > 0)  # some in each sixteenth of the tier
    assert np.array_equal(sample(codes, 7), picked)  # seeded by the tier
    assert not np.array_equal(sample(codes, 8), picked)
    assert np.array_equal(sample(codes[:100], 7), codes[:100])  # a small tier whole
    assert len(sample(codes, -3)) >= SPREAD  # negative tiers seed too


def test_shipped_games_round_trip_on_their_tiers() -> None:
    for game_id in ("tictactoe", "connect4:4x4", "dots-and-boxes:2x2"):
        game = parse_game_id(game_id)
        assert isinstance(game, RulesGame)
        rules = game.rules
        for tier in rules.tiers():
            assert check_round_trip(rules, tier, positions(rules, tier)) >= 1


@pytest.mark.parametrize("misspelt", [0, 99_999, 5_000])
def test_a_misspelt_position_is_named(misspelt: int) -> None:
    wrong = frozenset({misspelt}) if misspelt != 5_000 else frozenset(range(0, 100_000, 50))
    rules = Counting(100_000, wrong)
    with pytest.raises(RulesError) as raised:
        check_round_trip(rules, 0, positions(rules, 0))
    first = min(c for c in sample(np.arange(100_000, dtype=np.int64), 0).tolist() if c in wrong)
    assert f"position '{first}!' (code {first}, tier 0) does not round-trip" in str(raised.value)
    assert "does not parse" in str(raised.value)


def test_the_job_checks_before_it_solves() -> None:
    rules = Counting(10, frozenset({9}))
    with pytest.raises(RulesError, match=r"position '9!' \(code 9, tier 0\)"):
        TierKernel(rules, 0).make()
    assert TierKernel(Counting(10), 0).make()
