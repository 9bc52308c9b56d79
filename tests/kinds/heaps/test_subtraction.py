"""Subtraction games: kernels and certified periods against brute force, and seed 004's facts."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterable
from functools import cache, reduce
from operator import xor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidGameId
from engine.periods import Period
from engine.search import solve
from kinds.heaps.kernels.periodicity import certify_local, certify_local_reference
from kinds.heaps.kernels.subtraction import SubtractionKernel, subtraction_reference, subtraction_values
from kinds.heaps.subtraction import SubtractionGame
from tests.engine.contexts import heap_context
from tests.facts import load_facts

LITERATURE = load_facts("literature")
EMPTY = np.empty(0, dtype=np.uint32)

sets = st.lists(st.integers(min_value=1, max_value=12), min_size=1, max_size=6).map(
    lambda xs: tuple(sorted(set(xs)))
)


def nim_sum(values: Iterable[int]) -> int:
    """Bitwise XOR of the values: the oracle the kind's sums are compared with."""
    return reduce(xor, values, 0)


def oracle_values(moves: tuple[int, ...], misere: bool, stop: int) -> list[int]:
    """Direct recursive mex, written independently of the kernels."""

    @cache
    def g(n: int) -> int:
        options = {g(n - s) for s in moves if s <= n}
        if misere and not options:
            return 1
        return min(set(range(len(options) + 1)) - options)

    return [g(n) for n in range(stop)]


def brute_period_holds(values: list[int], start: int, period: int) -> bool:
    return all(values[n] == values[n + period] for n in range(start, len(values) - period))


@given(sets, st.booleans(), st.integers(min_value=0, max_value=300))
@settings(max_examples=150, deadline=None)
def test_kernels_match_oracle(moves: tuple[int, ...], misere: bool, stop: int) -> None:
    expected = oracle_values(moves, misere, stop)
    assert subtraction_reference(moves, misere, stop) == expected
    assert subtraction_values(moves, misere, EMPTY, stop).tolist() == expected


@given(sets, st.booleans(), st.integers(0, 200), st.integers(0, 200))
@settings(max_examples=80, deadline=None)
def test_extend_is_incremental(moves: tuple[int, ...], misere: bool, first: int, second: int) -> None:
    kernel = SubtractionKernel(moves, misere)
    part = kernel.extend(EMPTY, first)
    whole = kernel.extend(part, second)
    assert whole.dtype == np.uint32
    assert whole.tolist() == kernel.reference(second)


def test_large_set_values_reach_64() -> None:
    moves = tuple(range(1, 65))
    values = subtraction_values(moves, False, EMPTY, 200)
    assert values.tolist() == subtraction_reference(moves, False, 200)
    assert int(values.max()) == 64


def test_take_1_to_3_literature() -> None:
    fact = LITERATURE["subtraction"]
    assert "(k+1)m" in fact["take_1_to_k"]
    normal = SubtractionGame((1, 2, 3)).kernel().extend(EMPTY, 400).tolist()
    misere = SubtractionGame((1, 2, 3), misere=True).kernel().extend(EMPTY, 400).tolist()
    assert [n for n, v in enumerate(normal) if v == 0] == list(range(0, 400, 4))
    assert [n for n, v in enumerate(misere) if v == 0] == list(range(1, 400, 4))
    assert [n for n in range(13) if misere[n] == 0] == [1, 5, 9]
    game = SubtractionGame((1, 2, 3), misere=True)
    outcomes = [solve(game, (n,), max_states=1000).outcome for n in range(40)]
    assert [n for n, o in enumerate(outcomes) if o == "P"] == list(range(1, 40, 4))


@pytest.mark.parametrize("k", [1, 2, 3, 5, 9])
def test_formula_for_take_1_to_k(k: int) -> None:
    game = SubtractionGame(range(1, k + 1))
    values = game.kernel().extend(EMPTY, 200).tolist()
    assert [game.formula_value(n) for n in range(200)] == values
    assert game.formula_value(2**63 - 1) == (2**63 - 1) % (k + 1)
    assert SubtractionGame(range(1, k + 1), misere=True).formula_value(5) is None
    assert SubtractionGame((1, 3, 4)).formula_value(5) is None


def test_game_ids_and_options() -> None:
    game = SubtractionGame((4, 1, 3, 3))
    assert game.game_id == "subtraction:1,3,4"
    assert SubtractionGame((1, 3, 4), misere=True).game_id == "subtraction:1,3,4:misere"
    assert list(game.heap_options(4)) == [(3,), (1,), ()]
    assert list(game.heap_options(2)) == [(1,)]
    assert list(game.heap_options(0)) == []
    assert [game.option_count(n) for n in range(6)] == [0, 1, 1, 2, 3, 3]
    for bad in [(), (0, 2), (1, 10**6 + 1), tuple(range(1, 66))]:
        with pytest.raises(InvalidGameId):
            SubtractionGame(bad)


def assert_minimal_and_true(period: Period, long_values: list[int]) -> None:
    """The period holds on a much longer prefix, and no smaller period or preperiod does."""
    p, pre = period.period, period.preperiod
    assert period.certified and period.saltus == 0
    assert brute_period_holds(long_values, pre, p)
    if pre > 0:
        assert long_values[pre - 1] != long_values[pre - 1 + p]
    tail = len(long_values) // 2
    for smaller in range(1, p):
        assert not brute_period_holds(long_values, tail, smaller)


@given(sets, st.booleans(), st.integers(min_value=1, max_value=400))
@settings(max_examples=150, deadline=None)
def test_certify_subtraction(moves: tuple[int, ...], misere: bool, length: int) -> None:
    kernel = SubtractionKernel(moves, misere)
    values = kernel.extend(EMPTY, length)
    got = kernel.certify(values)
    assert got == certify_local_reference(values.tolist(), max(moves))
    if got is None:
        k = max(moves)
        plain = values.tolist()
        windows = [tuple(plain[i : i + k]) for i in range(len(plain) - k + 1)]
        assert len(set(windows)) == len(windows)
    else:
        assert_minimal_and_true(got, kernel.extend(values, 4000).tolist())


def local_sequence(seed: int, k: int, alphabet: int, length: int) -> list[int]:
    """A random sequence whose each value is a fixed random function of the k values before it."""
    rng = random.Random(seed)
    rule: dict[tuple[int, ...], int] = {}
    values = [rng.randrange(alphabet) for _ in range(k)]
    while len(values) < length:
        window = tuple(values[-k:])
        if window not in rule:
            rule[window] = rng.randrange(alphabet)
        values.append(rule[window])
    return values[:length]


@given(st.integers(0, 10**9), st.integers(1, 4), st.integers(2, 3), st.integers(1, 300))
@settings(max_examples=200, deadline=None)
def test_certify_random_local_rules(seed: int, k: int, alphabet: int, length: int) -> None:
    long_values = local_sequence(seed, k, alphabet, 3000)
    values = long_values[:length]
    got = certify_local(np.array(values, dtype=np.uint32), k)
    assert got == certify_local_reference(values, k)
    if got is not None:
        assert_minimal_and_true(got, long_values)


def test_certify_edge_cases() -> None:
    assert certify_local(np.array([], dtype=np.uint32), 3) is None
    assert certify_local(np.array([1, 2, 3], dtype=np.uint32), 3) is None
    assert certify_local(np.array([5, 5], dtype=np.uint32), 1) == Period(0, 1)
    assert certify_local(np.array([1, 0, 2, 0, 2], dtype=np.uint32), 1) == Period(1, 2)
    with pytest.raises(ValueError):
        certify_local(np.array([1, 2], dtype=np.uint32), 0)


def test_certify_long_sequence() -> None:
    kernel = SubtractionKernel((1, 3, 4), False)
    values = kernel.extend(EMPTY, 10**6)
    assert kernel.certify(values) == Period(preperiod=0, period=7)
    misere = SubtractionKernel((1, 3, 4), True)
    got = misere.certify(misere.extend(EMPTY, 10**6))
    assert got is not None
    assert_minimal_and_true(got, misere.reference(2000))


@given(st.lists(st.integers(0, 9), min_size=0, max_size=3), sets)
@settings(max_examples=60, deadline=None)
def test_sum_is_p_exactly_when_nim_sum_zero(heaps: list[int], moves: tuple[int, ...]) -> None:
    game = SubtractionGame(moves)
    pos = tuple(sorted(h for h in heaps if h))
    values = oracle_values(moves, False, 10)
    by_search = solve(game, pos, max_states=100_000).outcome == "P"
    value = game.value(pos, heap_context(values.__getitem__))
    assert value.grundy == nim_sum(values[h] for h in pos)
    assert by_search == (value.outcome == "P")


@given(st.lists(st.integers(0, 15), max_size=4), sets)
@settings(max_examples=60, deadline=None)
def test_subtraction_moves_and_winning_moves(heaps: list[int], moves: tuple[int, ...]) -> None:
    game = SubtractionGame(moves)
    pos = tuple(sorted(h for h in heaps if h))
    values = oracle_values(moves, False, 16)
    every = list(game.every_move(pos))
    assert len(every) == game.count_moves(pos)
    assert len({p for _, _, p in every}) == len(every)
    expected = [move for move in every if nim_sum(values[h] for h in move[2]) == 0]
    assert game.winning_moves(pos, heap_context(values.__getitem__), sys.maxsize) == expected


@given(sets, st.integers(0, 40))
@settings(max_examples=60, deadline=None)
def test_misere_values_zero_exactly_at_p_positions(moves: tuple[int, ...], n: int) -> None:
    game = SubtractionGame(moves, misere=True)
    value = int(game.kernel().extend(EMPTY, n + 1)[n])
    assert (value == 0) == (solve(game, (n,), max_states=1000).outcome == "P")


@given(
    preperiod=st.integers(0, 50),
    period=st.integers(1, 30),
    ns=st.lists(st.integers(0, 10**12), min_size=1, max_size=50),
)
def test_period_reduces_arrays_as_it_reduces_heaps(preperiod: int, period: int, ns: list[int]) -> None:
    rule = Period(preperiod=preperiod, period=period, saltus=3)
    reduced, cycles = rule.reduce_many(np.array(ns, dtype=np.int64))
    assert reduced.tolist() == [rule.reduce(n) for n in ns]
    assert cycles.tolist() == [rule.cycles(n) for n in ns]
