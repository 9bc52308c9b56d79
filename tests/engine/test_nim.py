"""Nim: options, closed forms, Bouton's rules and winning moves, against brute force and seed 004."""

from __future__ import annotations

import itertools
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.games.base import MAX_HEAP
from engine.games.nim import NimGame
from engine.search import solve
from engine.sums import (
    count_sum_moves,
    format_move,
    iter_sum_moves,
    misere_nim_is_p,
    nim_sum,
    winning_moves_normal,
)
from tests.facts import load_facts

LITERATURE = load_facts("literature")
NIM_FACTS = LITERATURE["nim"]


@cache
def oracle_value(n: int, misere: bool) -> int:
    """Direct recursive mex over the heaps 0..n-1 (misère: 1 at a heap with no move)."""
    options = {oracle_value(m, misere) for m in range(n)}
    if misere and not options:
        return 1
    return min(set(range(len(options) + 1)) - options)


@cache
def oracle_outcome(heaps: tuple[int, ...], misere: bool) -> bool:
    """True when the player to move loses, by exhaustive search over every move."""
    children = {
        tuple(sorted(heaps[:i] + ((m,) if m else ()) + heaps[i + 1 :]))
        for i, h in enumerate(heaps)
        for m in range(h)
    }
    if not children:
        return not misere
    return not any(oracle_outcome(c, misere) for c in children)


def test_ids() -> None:
    assert NimGame(False).game_id == "nim"
    assert NimGame(True).game_id == "nim:misere"
    assert NimGame(False).kernel() is None


def test_options_are_lazy_and_ordered() -> None:
    game = NimGame(False)
    assert list(game.heap_options(4)) == [(3,), (2,), (1,), ()]
    assert list(game.heap_options(0)) == []
    huge = game.heap_options(MAX_HEAP)
    assert next(huge) == (MAX_HEAP - 1,)
    assert game.option_count(MAX_HEAP) == MAX_HEAP
    assert all(game.option_count(n) == len(list(game.heap_options(n))) for n in range(20))


@pytest.mark.parametrize("misere", [False, True])
def test_formula_matches_oracle(misere: bool) -> None:
    game = NimGame(misere)
    for n in range(40):
        assert game.formula_value(n) == oracle_value(n, misere)


@given(st.lists(st.integers(min_value=0, max_value=6), max_size=4))
@settings(max_examples=80, deadline=None)
def test_bouton_misere_against_search_and_oracle(heaps: list[int]) -> None:
    pos = tuple(sorted(h for h in heaps if h))
    expected = oracle_outcome(pos, True)
    assert misere_nim_is_p(pos) == expected
    assert (solve(NimGame(True), pos, max_states=100_000).outcome == "P") == expected


@given(st.lists(st.integers(min_value=0, max_value=6), max_size=4))
@settings(max_examples=80, deadline=None)
def test_normal_nim_sum_rule(heaps: list[int]) -> None:
    pos = tuple(sorted(h for h in heaps if h))
    expected = oracle_outcome(pos, False)
    assert (nim_sum(pos) == 0) == expected
    assert (solve(NimGame(False), pos, max_states=100_000).outcome == "P") == expected


def test_marienbad_counts() -> None:
    start = NIM_FACTS["marienbad"]["start"]
    positions = list(itertools.product(*(range(h + 1) for h in start)))
    assert len(positions) == NIM_FACTS["marienbad"]["positions_componentwise_below_start"]
    normal = [tuple(sorted(h for h in p if h)) for p in positions]
    by_formula_normal = sum(1 for p in normal if nim_sum(p) == 0)
    by_formula_misere = sum(1 for p in normal if misere_nim_is_p(p))
    assert by_formula_normal == NIM_FACTS["marienbad"]["p_positions_normal"]
    assert by_formula_misere == NIM_FACTS["marienbad"]["p_positions_misere"]
    for misere, expected in ((False, by_formula_normal), (True, by_formula_misere)):
        game = NimGame(misere)
        found = sum(1 for p in normal if solve(game, p, max_states=10_000).outcome == "P")
        assert found == expected


def test_literature_examples() -> None:
    examples = NIM_FACTS["examples"]
    for example in examples:
        assert nim_sum(example["heaps"]) == example["nim_sum"]
    with_move = next(e for e in examples if "a_winning_move" in e)
    pos = tuple(sorted(with_move["heaps"]))
    moves = [m for m, _ in winning_moves_normal(NimGame(False), pos, lambda n: n)]
    assert with_move["a_winning_move"] in moves


@given(st.lists(st.integers(min_value=0, max_value=12), max_size=5))
@settings(max_examples=100, deadline=None)
def test_winning_moves_match_enumeration(heaps: list[int]) -> None:
    game = NimGame(False)
    pos = tuple(sorted(h for h in heaps if h))
    every = list(iter_sum_moves(game, pos))
    assert len(every) == count_sum_moves(game, pos)
    expected = [(m, p) for m, p in every if nim_sum(p) == 0]
    assert winning_moves_normal(game, pos, lambda n: n) == expected
    assert winning_moves_normal(game, pos, lambda n: n, limit=1) == expected[:1]


def test_winning_move_on_huge_heaps() -> None:
    pos = (5, MAX_HEAP)
    moves = winning_moves_normal(NimGame(False), pos, lambda n: n)
    assert moves == [(format_move(MAX_HEAP, (5,)), (5, 5))]
    assert winning_moves_normal(NimGame(False), (7, 7), lambda n: n) == []
    with pytest.raises(ValueError, match="nim:misere"):
        winning_moves_normal(NimGame(True), pos, lambda n: n)
