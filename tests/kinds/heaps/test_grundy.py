"""Grundy's game: seed 003's facts, the kernels against a naive oracle, sums by brute force."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinds.heaps.grundy import GRUNDY_RULES, GrundyGame
from kinds.heaps.kernels.octal import direct_extend
from kinds.heaps.kernels.rare_common import rare_common_chunk
from kinds.heaps.kernels.rare_mask import Sparseness, choose_sparseness, last_rare_at, rare_count
from tests.facts import load_facts

EMPTY = np.zeros(0, dtype=np.uint32)


def naive_values(stop: int) -> list[int]:
    """g(n) = mex of g(a) ^ g(n - a) over 1 <= a < n - a (the O(n^2) oracle)."""
    g: list[int] = []
    for n in range(stop):
        options = {g[a] ^ g[n - a] for a in range(1, n) if a != n - a}
        v = 0
        while v in options:
            v += 1
        g.append(v)
    return g


@pytest.fixture(scope="module")
def facts() -> dict[str, object]:
    data: dict[str, object] = load_facts("literature")["grundy_game"]
    return data


@pytest.fixture(scope="module")
def values() -> list[int]:
    out: list[int] = GrundyGame().kernel().extend(EMPTY, 1300).tolist()
    return out


def test_kernel_matches_oracle_and_reference(values: list[int]) -> None:
    oracle = naive_values(1300)
    assert values == oracle
    assert GrundyGame().kernel().reference(400) == oracle[:400]


def test_p_positions_of_seed_003(facts: dict[str, object], values: list[int]) -> None:
    expected = facts["p_positions_single_heap_up_to_1222"]
    assert [n for n in range(1223) if values[n] == 0] == expected


def test_types_are_grundy_values(facts: dict[str, object], values: list[int]) -> None:
    types = facts["types_are_grundy_values"]
    assert isinstance(types, dict)
    for heap, grundy in types.items():
        assert values[int(heap)] == grundy


def test_losing_sums_have_nim_sum_zero(facts: dict[str, object], values: list[int]) -> None:
    sums = facts["losing_sums_from_the_seed"]
    assert isinstance(sums, list)
    for text in sums:
        total = 0
        for heap in text.split("+"):
            total ^= values[int(heap)]
        assert total == 0, text


@cache
def _is_p(heaps: tuple[int, ...]) -> bool:
    game = GrundyGame()
    for i, h in enumerate(heaps):
        for option in game.heap_options(h):
            if _is_p(tuple(sorted((*heaps[:i], *heaps[i + 1 :], *option)))):
                return False
    return True


def test_sums_are_p_exactly_at_nim_sum_zero(values: list[int]) -> None:
    for a in range(1, 16):
        for b in range(a, 16):
            for c in range(b, 12):
                assert _is_p((a, b, c)) == (values[a] ^ values[b] ^ values[c] == 0), (a, b, c)
    assert _is_p((3, 5, 13)) and _is_p((7, 4))


def test_heap_options() -> None:
    game = GrundyGame()
    assert list(game.heap_options(6)) == [(1, 5), (2, 4)]
    assert list(game.heap_options(2)) == [] and game.option_count(2) == 0
    assert all(game.option_count(n) == len(list(game.heap_options(n))) for n in range(40))


@settings(max_examples=40, deadline=None)
@given(
    stop=st.integers(1, 700),
    cut=st.integers(0, 700),
    mask=st.integers(1, 255),
    flip=st.integers(0, 1),
    heap_parity=st.integers(0, 1),
)
def test_rare_common_exact_for_any_classification(
    stop: int, cut: int, mask: int, flip: int, heap_parity: int
) -> None:
    expected = naive_values(stop)
    prefix = np.array(expected[: min(cut, stop)], dtype=np.uint32)
    how = Sparseness(mask, flip, heap_parity)
    assert rare_common_chunk(prefix, stop, GRUNDY_RULES, how).tolist() == expected


def test_sparse_driver_matches_direct_over_several_chunks() -> None:
    direct = direct_extend(EMPTY, 12000, GRUNDY_RULES)
    kernel = GrundyGame().kernel()
    grown = kernel.extend(EMPTY, 3000)
    grown = kernel.extend(grown, 12000)
    assert np.array_equal(grown, direct)
    how = choose_sparseness(direct, GRUNDY_RULES.two)
    assert rare_count(direct, how) == how.rare
    assert how.rare < len(direct) // 10  # the sparse space the method relies on is really there


def test_rare_counts_include_heap_0() -> None:
    # The published tables' convention: heap 0 is classified like any heap. Under mask 0xfe with
    # flip 1 (rare = even popcount of g & 0xfe), g(0) = 0 is rare, so it counts.
    values = direct_extend(EMPTY, 3000, GRUNDY_RULES)
    how = Sparseness(0xFE, 1, 0)
    plain = [n for n in range(len(values)) if bin(int(values[n]) & 0xFE).count("1") % 2 == 0]
    assert plain[0] == 0
    assert rare_count(values, how) == len(plain)
    assert last_rare_at(values, how) == plain[-1]
    assert rare_count(EMPTY[:0], how) == 0 and last_rare_at(EMPTY, how) is None
    assert rare_count(values[:1], how) == 1 and last_rare_at(values[:1], how) == 0
    chosen = choose_sparseness(values, GRUNDY_RULES.two)
    assert chosen.rare == rare_count(values, chosen)


def test_nothing_is_certified() -> None:
    kernel = GrundyGame().kernel()
    values = kernel.extend(EMPTY, 5000)
    assert kernel.certify(values) is None
    assert kernel.observe(values) is None
