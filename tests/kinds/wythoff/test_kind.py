"""Wythoff's game: seed 004's P-positions, the closed form, the table, options and parsing."""

from __future__ import annotations

from decimal import Decimal, getcontext
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidPosition, LimitExceeded
from kinds.wythoff.kernels.table import table_tile, wythoff_table, wythoff_table_reference
from kinds.wythoff.kind import (
    format_pairs,
    is_p_pair,
    live_pair_value,
    p_pair_of_rank,
    pair_options,
    pair_value,
    parse_pairs,
)
from tests.facts import load_facts

MAX = 2**63 - 1


def test_p_positions_of_seed_004() -> None:
    ranks = load_facts("literature")["wythoff"]["p_positions_rank_0_to_8"]
    assert [list(p_pair_of_rank(n)) for n in range(len(ranks))] == ranks
    assert all(is_p_pair(a, b) and is_p_pair(b, a) for a, b in ranks)


def test_closed_form_matches_table_zeros() -> None:
    table = wythoff_table(300)
    zeros = {(int(a), int(b)) for a, b in zip(*np.nonzero(table == 0), strict=True)}
    assert zeros == {(a, b) for a in range(300) for b in range(300) if is_p_pair(a, b)}


@settings(max_examples=300, deadline=None)
@given(n=st.integers(0, 3 * 10**18))
def test_floor_n_phi_is_exact(n: int) -> None:
    getcontext().prec = 80
    phi = (1 + Decimal(5).sqrt()) / 2
    a, b = p_pair_of_rank(n)
    assert a == int(n * phi) and b == int(n * phi * phi)
    assert is_p_pair(a, b) and not is_p_pair(a, b + 1) and not is_p_pair(a + 1, b)


def test_ranks_cover_every_pile_once() -> None:
    seen = [x for n in range(1, 3000) for x in p_pair_of_rank(n)]
    assert sorted(seen)[:4000] == list(range(1, 4001))


def test_near_the_largest_pile() -> None:
    n = 3 * 10**18
    a, b = p_pair_of_rank(n)
    assert b <= MAX and is_p_pair(a, b)
    assert not is_p_pair(MAX, MAX)


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(0, 28), cols=st.integers(0, 28))
def test_table_matches_reference(rows: int, cols: int) -> None:
    assert wythoff_table(rows, cols).tolist() == wythoff_table_reference(rows, cols)


@pytest.mark.parametrize(("rows", "cols"), [(130, 70), (70, 130), (64, 64), (1, 300), (129, 65)])
def test_tiled_kernel_matches_the_reference(rows: int, cols: int) -> None:
    # Blocks of 64 x 64 cells, cut at the edges.
    assert wythoff_table(rows, cols).tolist() == wythoff_table_reference(rows, cols)


def test_table_is_row_major_uint32_and_tiles() -> None:
    table = wythoff_table(100)
    assert table.dtype == np.uint32 and table.flags.c_contiguous
    assert np.array_equal(table, table.T)
    assert np.array_equal(table_tile(table, 1, 2, 32), table[32:64, 64:96])
    assert table_tile(table, 3, 3, 32).shape == (4, 4)


@cache
def _is_p(pairs: tuple[tuple[int, int], ...]) -> bool:
    for i, (a, b) in enumerate(pairs):
        for option in pair_options(a, b):
            if _is_p(tuple(sorted((*pairs[:i], *pairs[i + 1 :], option)))):
                return False
    return True


def test_options_are_every_move_once() -> None:
    for a in range(12):
        for b in range(12):
            moves = {(a - k, b) for k in range(1, a + 1)} | {(a, b - k) for k in range(1, b + 1)}
            moves |= {(a - k, b - k) for k in range(1, min(a, b) + 1)}
            options = list(pair_options(a, b))
            assert len(options) == len(set(options))
            assert set(options) == {(min(p), max(p)) for p in moves}


def test_sums_are_p_exactly_at_nim_sum_zero() -> None:
    table = wythoff_table(8)
    pairs = [(a, b) for a in range(8) for b in range(a, 8)]
    for i, p in enumerate(pairs):
        for q in pairs[i:]:
            total = int(table[p]) ^ int(table[q])
            assert _is_p(tuple(sorted((p, q)))) == (total == 0), (p, q)
    assert _is_p(((1, 2),)) and _is_p(((3, 5), (4, 7)))


def test_pair_values_from_table_closed_forms_and_live() -> None:
    table = wythoff_table(64)
    assert pair_value(0, 10**18) == 10**18 and pair_value(*p_pair_of_rank(10**17)) == 0
    assert pair_value(5, 9, table) == int(table[5, 9]) and pair_value(5, 900, table) is None
    big = wythoff_table(200)
    assert live_pair_value(150, 37) == int(big[150, 37])
    with pytest.raises(LimitExceeded, match="up to 99"):
        live_pair_value(5, 100, max_side=100)


def test_parse_and_format() -> None:
    assert parse_pairs("5,3 0,0 1,2  2,1") == ((1, 2), (1, 2), (3, 5))
    assert parse_pairs("") == () and format_pairs(parse_pairs("7,4 0,3")) == "0,3 4,7"
    assert parse_pairs(f"{MAX},0") == ((0, MAX),)


@pytest.mark.parametrize("text", ["3", "3,", "3,x", "-1,2", "1,2,3", "1.5,2", f"{MAX + 1},1", "3;5"])
def test_parse_rejects_bad_pairs(text: str) -> None:
    with pytest.raises(InvalidPosition) as info:
        parse_pairs(text)
    assert repr(text.split()[0]) in str(info.value)


def test_parse_rejects_too_many_pairs() -> None:
    with pytest.raises(InvalidPosition, match="too many pairs"):
        parse_pairs("1,2 " * 100_001)
