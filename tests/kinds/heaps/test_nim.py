"""Nim: options, closed forms, Bouton's rules and winning moves, against brute force and seed 004."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterable
from functools import cache, reduce
from operator import xor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.search import solve
from kinds.heaps.base import MAX_HEAP
from kinds.heaps.nim import NimGame, misere_nim_is_p
from tests.engine.contexts import heap_context
from tests.facts import load_facts

LITERATURE = load_facts("literature")
NIM_FACTS = LITERATURE["nim"]
#: A limit no move list reaches.
EVERY = sys.maxsize


def nim_sum(values: Iterable[int]) -> int:
    """Bitwise XOR of the values: the oracle the kind's sums are compared with."""
    return reduce(xor, values, 0)


def outcome_of(game: NimGame, heaps: tuple[int, ...]) -> str | None:
    """The outcome the kind answers, its single heaps valued by its own closed form."""
    return game.value(heaps, heap_context(game.formula_value)).outcome


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
    assert outcome_of(NimGame(True), pos) == ("P" if expected else "N")
    assert (solve(NimGame(True), pos, max_states=100_000).outcome == "P") == expected


@given(st.lists(st.integers(min_value=0, max_value=6), max_size=4))
@settings(max_examples=80, deadline=None)
def test_normal_nim_sum_rule(heaps: list[int]) -> None:
    pos = tuple(sorted(h for h in heaps if h))
    expected = oracle_outcome(pos, False)
    value = NimGame(False).value(pos, heap_context(lambda n: n))
    assert value.grundy == nim_sum(pos)
    assert (value.outcome == "P") == expected
    assert (solve(NimGame(False), pos, max_states=100_000).outcome == "P") == expected


def test_marienbad_counts() -> None:
    start = NIM_FACTS["marienbad"]["start"]
    positions = list(itertools.product(*(range(h + 1) for h in start)))
    assert len(positions) == NIM_FACTS["marienbad"]["positions_componentwise_below_start"]
    normal = [tuple(sorted(h for h in p if h)) for p in positions]
    by_formula_normal = sum(1 for p in normal if outcome_of(NimGame(False), p) == "P")
    by_formula_misere = sum(1 for p in normal if outcome_of(NimGame(True), p) == "P")
    assert by_formula_normal == NIM_FACTS["marienbad"]["p_positions_normal"]
    assert by_formula_misere == NIM_FACTS["marienbad"]["p_positions_misere"]
    for misere, expected in ((False, by_formula_normal), (True, by_formula_misere)):
        game = NimGame(misere)
        found = sum(1 for p in normal if solve(game, p, max_states=10_000).outcome == "P")
        assert found == expected


def test_literature_examples() -> None:
    examples = NIM_FACTS["examples"]
    game = NimGame(False)
    for example in examples:
        assert (
            game.value(tuple(sorted(example["heaps"])), heap_context(lambda n: n)).grundy
            == example["nim_sum"]
        )
    with_move = next(e for e in examples if "a_winning_move" in e)
    pos = tuple(sorted(with_move["heaps"]))
    moves = [text for text, _, _ in game.winning_moves(pos, heap_context(lambda n: n), EVERY)]
    assert with_move["a_winning_move"] in moves


@given(st.lists(st.integers(min_value=0, max_value=12), max_size=5))
@settings(max_examples=100, deadline=None)
def test_winning_moves_match_enumeration(heaps: list[int]) -> None:
    game = NimGame(False)
    pos = tuple(sorted(h for h in heaps if h))
    every = list(game.every_move(pos))
    assert len(every) == game.count_moves(pos)
    expected = [move for move in every if nim_sum(move[2]) == 0]
    assert game.winning_moves(pos, heap_context(lambda n: n), EVERY) == expected
    assert game.winning_moves(pos, heap_context(lambda n: n), 1) == expected[:1]
    misere = NimGame(True)
    winning = [move for move in misere.every_move(pos) if oracle_outcome(move[2], True)]
    assert sorted(misere.winning_moves(pos, heap_context(misere.formula_value), EVERY)) == sorted(winning)


def test_winning_move_on_huge_heaps() -> None:
    pos = (5, MAX_HEAP)
    for game in (NimGame(False), NimGame(True)):  # misère: Bouton's rule, with a heap above 1 left
        moves = game.winning_moves(pos, heap_context(game.formula_value), EVERY)
        assert [(text, child) for text, _, child in moves] == [(f"{MAX_HEAP} -> 5", (5, 5))]
    assert NimGame(False).winning_moves((7, 7), heap_context(lambda n: n), EVERY) == []
