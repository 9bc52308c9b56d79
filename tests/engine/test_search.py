"""Bounded search: outcome and remoteness against an independent recursive oracle, and its limits."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.component_sum import apply_move
from engine.errors import DeadlineExceeded, LimitExceeded
from engine.search import ESTIMATE_CAP, SearchResult, estimate_states, solve
from kinds.heaps.base import GameInfo, HeapGame, HeapMove, Heaps
from kinds.heaps.nim import NimGame
from kinds.heaps.subtraction import SubtractionGame

Options = Callable[[int], list[int]]


def oracle(options: Options, misere: bool, heaps: tuple[int, ...]) -> tuple[str, int]:
    """Steinhaus remoteness by direct recursion over every move of every heap."""

    @cache
    def value(pos: tuple[int, ...]) -> tuple[bool, int]:
        children = {
            tuple(sorted(pos[:i] + pos[i + 1 :] + ((m,) if m else ())))
            for i, h in enumerate(pos)
            for m in options(h)
        }
        if not children:
            return (not misere, 0)
        results = [value(c) for c in children]
        wins = [r for is_p, r in results if is_p]
        if wins:
            return (False, 1 + min(wins))
        return (True, 1 + max(r for _, r in results))

    is_p, remoteness = value(heaps)
    return ("P" if is_p else "N", remoteness)


def nim_options(h: int) -> list[int]:
    return list(range(h))


def subtraction_options(moves: tuple[int, ...]) -> Options:
    return lambda h: [h - s for s in moves if s <= h]


heap_lists = st.lists(st.integers(min_value=0, max_value=7), max_size=4).map(
    lambda xs: tuple(sorted(x for x in xs if x))
)
sets = st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=3).map(
    lambda xs: tuple(sorted(set(xs)))
)


@given(heap_lists, st.booleans())
@settings(max_examples=100, deadline=None)
def test_nim_against_oracle(heaps: tuple[int, ...], misere: bool) -> None:
    got = solve(NimGame(misere), heaps, max_states=100_000)
    assert (got.outcome, got.remoteness) == oracle(nim_options, misere, heaps)


@given(heap_lists, sets, st.booleans())
@settings(max_examples=150, deadline=None)
def test_subtraction_against_oracle(heaps: tuple[int, ...], moves: tuple[int, ...], misere: bool) -> None:
    game = SubtractionGame(moves, misere)
    got = solve(game, heaps, max_states=estimate_states(game, heaps))
    assert (got.outcome, got.remoteness) == oracle(subtraction_options(moves), misere, heaps)


def test_terminal_positions() -> None:
    assert solve(NimGame(False), (), max_states=1) == SearchResult("P", 0)
    assert solve(NimGame(True), (), max_states=1) == SearchResult("N", 0)
    assert solve(NimGame(True), (1,), max_states=2) == SearchResult("P", 1)


def test_deep_position_needs_no_recursion() -> None:
    got = solve(SubtractionGame((1,)), (50_000,), max_states=50_001)
    assert got == SearchResult("P", 50_000)


def test_state_budget() -> None:
    game = SubtractionGame((1, 2), misere=True)
    with pytest.raises(LimitExceeded, match="more than 10 positions") as info:
        solve(game, (5, 6), max_states=10)
    assert "'5 6'" in str(info.value)
    assert info.value.code == "RESOURCE_EXHAUSTED"
    with pytest.raises(LimitExceeded):
        solve(NimGame(False), (2**63 - 1,), max_states=1000)


def test_deadline() -> None:
    game = SubtractionGame((1, 2, 3), misere=True)
    with pytest.raises(DeadlineExceeded) as info:
        solve(game, (20, 21, 22), max_states=10**6, deadline=time.monotonic() - 1.0)
    assert info.value.code == "DEADLINE_EXCEEDED"


@given(heap_lists, sets)
@settings(max_examples=60, deadline=None)
def test_estimate_is_an_upper_bound(heaps: tuple[int, ...], moves: tuple[int, ...]) -> None:
    for game in (NimGame(True), SubtractionGame(moves, misere=True)):
        bound = estimate_states(game, heaps)
        solve(game, heaps, max_states=bound)


class _SplitGame(HeapGame):
    """Grundy's game written here only to exercise the splitting bound."""

    game_id = "test-split"
    misere = False
    splits = True

    def info(self) -> GameInfo:
        return GameInfo("test-split", "split", "split a heap in two unequal heaps", "heaps", ())

    def heap_options(self, n: int) -> Iterator[Heaps]:
        for a in range(1, (n + 1) // 2):
            yield (a, n - a)


def test_estimate_for_splitting_games() -> None:
    game = _SplitGame()
    for heaps in [(7,), (5, 6), (10, 3, 4)]:
        solve(game, heaps, max_states=estimate_states(game, heaps))
    assert estimate_states(game, (1000,)) == ESTIMATE_CAP
    assert estimate_states(NimGame(False), (2**63 - 1,)) == ESTIMATE_CAP
    assert estimate_states(NimGame(False), (1,) * 100_000) == 100_001


def test_moves_of_heap_sums() -> None:
    game = _SplitGame()  # a heap game's move text and fields are HeapGame's, whatever the family
    assert game.move_text(7, (3,)) == "7 -> 3"
    assert game.move_text(7, (2, 4)) == "7 -> 2+4"
    assert game.move_text(7, ()) == "7 -> 0"
    assert apply_move((1, 3, 5), 2, (1, 2)) == (1, 1, 2, 3)
    assert apply_move((1, 3, 5), 0, ()) == (3, 5)
    assert game.move((1, 3, 5), 2, (1, 4)) == ("5 -> 1+4", HeapMove(5, (1, 4)), (1, 1, 3, 4))
    assert NimGame(False).move((1, 3, 5), 1, ()) == ("3 -> 0", HeapMove(3, ()), (1, 5))


def test_a_sum_of_many_heaps_stops_at_its_deadline_and_its_memory_bound() -> None:
    """100,000 heaps of 1: each expansion copies the whole position, so the deadline is checked by work
    done (it was checked every 1,024 expansions and ran 5 s past a 10 s deadline), and the positions held
    are bounded by their heaps as well as their count (it held gigabytes)."""
    game = SubtractionGame((1, 3, 4), misere=True)
    heaps = (1,) * 100_000
    with pytest.raises(LimitExceeded, match="heaps"):
        solve(game, heaps, max_states=10**5)  # 10^5 positions of 10^5 heaps: past the heaps they may hold
    start = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        solve(game, heaps, max_states=10**6, deadline=start + 0.5)
    assert time.monotonic() - start < 0.5 + 0.5  # stopped at the deadline, not seconds after it
