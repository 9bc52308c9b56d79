"""The batched expansion (kinds.rules.fused.expand_wl_batched, its lookups in kinds.rules.lookup) against
the separate expansion (every move in arrays, then the fused solve) and the plain reference: the same
tables, with moves to later tiers, moves inside the tier (cycles) and rules that break the interface."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import pytest

from kinds.rules.lookup import find_in, fine_index
from kinds.rules.solve import _solve_wl_fused, expand, positions, solve_tier
from kinds.rules.tables import TierTable, merged
from nimbase_rules import LOSS, NOT_OVER, TIE, Kernels, Move, Rules, RulesError
from nimbase_rules.games.connect4 import Connect4

#: A loopy game on N positions: from v, moves to (3v + 1) % N, (5v + 2) % N and (v + 7) % N, except where
#: v % 11 == 0 (finished: a loss) or v % 13 == 0 (finished: a tie).
N = 500
STEPS = ((3, 1), (5, 2), (1, 7))


@numba.njit(cache=True)
def _ring_legal(code: int) -> bool:
    return 0 <= code < N


@numba.njit(cache=True)
def _ring_moves(code: int, to: Any, info: Any) -> int:
    if code % 11 == 0 or code % 13 == 0:
        return 0
    k = 0
    for a, b in STEPS:
        to[k] = (a * code + b) % N
        info[k] = 0
        k += 1
    return k


@numba.njit(cache=True)
def _ring_end(code: int) -> int:
    if code % 11 == 0:
        return LOSS
    return TIE if code % 13 == 0 else NOT_OVER


@numba.njit(cache=True)
def _ring_same(code: int) -> int:
    return code


@numba.njit(cache=True)
def _ring_tier(code: int) -> int:
    return 0


class _Ring(Rules):
    game_id = "ring"
    size = N
    name = description = position_syntax = "ring"
    examples = ("1",)
    max_moves = 3

    def __init__(self, compiled: bool) -> None:
        self.compiled = compiled

    def initial(self) -> int:
        return 1

    def parse(self, text: str) -> int:
        return int(text)

    def format(self, code: int) -> str:
        return str(code)

    def moves(self, code: int) -> list[Move]:
        if code % 11 == 0 or code % 13 == 0:
            return []
        return [Move(str(i), (a * code + b) % N) for i, (a, b) in enumerate(STEPS)]

    def end(self, code: int) -> int:
        return LOSS if code % 11 == 0 else TIE

    def kernels(self) -> Kernels | None:
        if not self.compiled:
            return None
        return Kernels(_ring_legal, _ring_moves, _ring_end, _ring_same, _ring_tier)


def _same(a: TierTable, b: TierTable) -> None:
    assert (a.codes == b.codes).all() and (a.result == b.result).all()
    assert (a.remoteness == b.remoteness).all()


def test_find_in_finds_each_code_of_a_range_and_no_other() -> None:
    rng = np.random.default_rng(22)
    for _ in range(500):
        codes = np.unique(rng.integers(0, 300, rng.integers(0, 80)))
        lo = int(rng.integers(0, codes.shape[0] + 1))
        hi = int(rng.integers(lo, codes.shape[0] + 1))
        for code in (-1, *rng.integers(0, 310, 12).tolist()):
            want = next((i for i in range(lo, hi) if codes[i] == code), -1)
            assert find_in(codes, int(code), lo, hi) == want, (codes, code, lo, hi)


def test_the_fine_index_puts_each_code_in_its_bucket() -> None:
    rng = np.random.default_rng(7)
    for size in (0, 1, 5, 1000):
        codes = np.unique(rng.integers(0, 1 << 40, size))
        shift, starts = fine_index(codes)
        assert starts.dtype == np.int32 and starts[-1] == codes.shape[0]
        assert starts.shape[0] <= 2 * codes.shape[0] + 3
        for k in range(starts.shape[0] - 1):
            assert ((codes[starts[k] : starts[k + 1]] >> shift) == k).all()


def _separately(rules: Rules, tier: int, later: TierTable) -> TierTable:
    """The tier by the separate expansion (every move in arrays) and the fused solve of its graph."""
    codes = positions(rules, tier)
    return _solve_wl_fused(rules, tier, codes, *expand(rules, codes), later)


@pytest.mark.parametrize("rules", [Connect4(4, 4), Connect4(5, 4)])
def test_connect4_tiers_batched_as_separately(rules: Connect4) -> None:
    """Every tier (5 x 4: those from 12 pieces on) solved by both expansions from the same later tiers."""
    solved: dict[int, TierTable] = {}
    for tier in rules.tiers():
        if rules.width == 5 and tier < 12:
            break
        later = merged([solved[t] for t in rules.tier_moves_to(tier)])
        batched = solve_tier(rules, tier, later)
        _same(batched, _separately(rules, tier, later))
        solved[tier] = batched


def test_a_loopy_game_batched_as_separately_and_as_the_plain_reference() -> None:
    batched = solve_tier(_Ring(True), 0, merged([]))
    _same(batched, _separately(_Ring(True), 0, merged([])))
    _same(batched, solve_tier(_Ring(False), 0, merged([]), plain_positions=1 << 40))
    assert set(batched.result.tolist()) >= {-1, 0, 1}


def test_a_move_to_no_solved_position_fails_naming_it() -> None:
    rules = Connect4(4, 3)
    top = solve_tier(rules, 12, merged([]))
    broken = TierTable(12, top.codes[1:], top.result[1:], top.remoteness[1:])  # a position left out
    with pytest.raises(RulesError, match=r"leads to code \d+, which is neither in its tier"):
        solve_tier(rules, 11, broken)
