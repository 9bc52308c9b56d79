"""Octal games: kernels against a naive oracle, the Guy-Smith certification, code parsing."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidGameId
from engine.periods import Period
from kinds.heaps.kernels.guy_smith import certify_octal, certify_octal_reference, observe_period
from kinds.heaps.kernels.octal import direct_extend, reference_values
from kinds.heaps.kernels.rare_common import WARMUP, rare_common_chunk, sparse_choice, sparse_extend
from kinds.heaps.kernels.rare_mask import Sparseness
from kinds.heaps.octal import OctalGame, parse_octal_code

EMPTY = np.zeros(0, dtype=np.uint32)


def naive_values(code: str, stop: int) -> list[int]:
    """g(0..stop-1) from the digits' meaning alone, every option listed (the O(n^2) oracle)."""
    head, tail = code.split(".")
    digits = [int(head)] + [int(d) for d in tail]
    g: list[int] = []
    for n in range(stop):
        options = set()
        for k, d in enumerate(digits):
            if k > n:
                break
            if d & 1 and k > 0 and n == k:
                options.add(0)
            if d & 2 and k > 0 and n > k:
                options.add(g[n - k])
            if d & 4:
                for a in range(1, n - k):
                    options.add(g[a] ^ g[n - k - a])
        v = 0
        while v in options:
            v += 1
        g.append(v)
    return g


codes = st.builds(
    lambda d0, tail: f"{d0}.{''.join(map(str, tail))}",
    st.sampled_from([0, 4]),
    st.lists(st.integers(0, 7), min_size=1, max_size=4),
)


@settings(max_examples=60, deadline=None)
@given(code=codes, stop=st.integers(0, 160), cut=st.integers(0, 160))
def test_kernels_match_naive_oracle(code: str, stop: int, cut: int) -> None:
    game = OctalGame(code)
    expected = naive_values(code, stop)
    assert reference_values(stop, game.rules) == expected
    assert direct_extend(EMPTY, stop, game.rules).tolist() == expected
    prefix = np.array(expected[: min(cut, stop)], dtype=np.uint32)
    assert game.kernel().extend(prefix, stop).tolist() == expected


@settings(max_examples=60, deadline=None)
@given(
    code=codes.filter(lambda c: "4" in c or "5" in c or "6" in c or "7" in c),
    stop=st.integers(1, 300),
    mask=st.integers(1, 15),
    heap_parity=st.integers(0, 1),
    flip=st.integers(0, 1),
)
def test_rare_common_is_exact_under_any_classification(
    code: str, stop: int, mask: int, heap_parity: int, flip: int
) -> None:
    game = OctalGame(code)
    if not game.rules.two:
        return
    if len({k & 1 for k in game.rules.two}) > 1:
        heap_parity = 0
    how = Sparseness(mask, flip, heap_parity)
    expected = naive_values(code, stop)
    assert rare_common_chunk(EMPTY, stop, game.rules, how).tolist() == expected
    assert rare_common_chunk(np.array(expected[: stop // 3], np.uint32), stop, game.rules, how).tolist() == (
        expected
    )


def test_sparse_driver_matches_direct_on_a_sparse_game() -> None:
    # 0.16 is sparse: the driver goes rare/common after the warm-up; small chunks exercise re-choosing.
    rules = OctalGame("0.16").rules
    direct = direct_extend(EMPTY, 6000, rules)
    assert np.array_equal(sparse_extend(EMPTY, 6000, rules, chunk=700), direct)


@pytest.mark.parametrize(("code", "sparse_from"), [("0.56", WARMUP), ("0.6", 1 << 14)])
def test_sparse_path_is_chosen_for_0_56_and_0_6(code: str, sparse_from: int) -> None:
    # 0.56 is sparse from the warm-up on (46 rare heaps in all); 0.6's 1,584 rare heaps all lie below
    # 20,628, so the method pays off once there are a few times as many values.
    rules = OctalGame(code).rules
    values = direct_extend(EMPTY, sparse_from, rules)
    how = sparse_choice(values, rules.two)
    assert how is not None and how.rare <= len(values) // 8
    assert sparse_choice(values[: WARMUP - 1], rules.two) is None


@pytest.mark.parametrize("code", ["0.56", "0.6"])
def test_sparse_values_of_0_56_and_0_6_agree_with_the_references(code: str) -> None:
    rules = OctalGame(code).rules
    how = sparse_choice(direct_extend(EMPTY, 1 << 14, rules), rules.two)
    assert how is not None
    # The plain reference on a prefix, under the classification the driver uses at 2^14 values...
    expected = reference_values(1600, rules)
    assert rare_common_chunk(EMPTY, 1600, rules, how).tolist() == expected
    assert sparse_extend(EMPTY, 1600, rules, chunk=200).tolist() == expected
    # ...and the direct kernel (itself checked against the reference above) well into the sparse path,
    # grown in two calls as the worker does.
    direct = direct_extend(EMPTY, 30000, rules)
    assert np.array_equal(sparse_extend(sparse_extend(EMPTY, 5000, rules), 30000, rules), direct)


def test_0_56_is_certified_from_nothing() -> None:
    # Gangolli and Plambeck: period 144 and a long preperiod (OEIS A071436, last exception near
    # 326,640); Guy-Smith needs 2 * 326,640 + 2 * 144 + 2 values, so the kernel reaches 2^20.
    values, period = OctalGame("0.56").kernel().solve(1 << 21)
    assert period == Period(preperiod=326640, period=144, saltus=0, certified=True)
    assert len(values) == 1 << 20


def test_0_376_is_certified_period_4_from_2_268_248() -> None:
    # The target (Flammenkamp's table: period 4 from 2,268,248): Guy-Smith needs
    # 2 * 2,268,248 + 2 * 4 + 3 values. Without the shortcut for multiples of a period, every
    # multiple of 4 would re-read the whole periodic tail (quadratic: minutes per certification).
    kernel = OctalGame("0.376").kernel()
    need = 2 * 2268248 + 2 * 4 + 3
    values = kernel.extend(kernel.extend(EMPTY, 1 << 20), need)
    assert kernel.certify(values) == Period(preperiod=2268248, period=4, saltus=0, certified=True)
    assert kernel.certify(values[: need - 1]) is None


@settings(max_examples=200, deadline=None)
@given(
    head=st.lists(st.integers(0, 3), max_size=30),
    body=st.lists(st.integers(0, 3), min_size=1, max_size=5),
    size=st.integers(0, 90),
    t=st.integers(0, 3),
)
def test_certify_matches_reference_on_eventually_periodic_sequences(
    head: list[int], body: list[int], size: int, t: int
) -> None:
    values = (head + body * 90)[:size]
    assert certify_octal(np.array(values, dtype=np.uint32), t) == certify_octal_reference(values, t)


def test_heap_options_are_distinct_sorted_and_counted() -> None:
    for code in ("0.77", "4.7", "0.137", "0.16", "4.0", "0.0"):
        game = OctalGame(code)
        for n in range(0, 30):
            options = list(game.heap_options(n))
            assert len(options) == len(set(options)) == game.option_count(n)
            assert all(list(o) == sorted(o) and all(h > 0 for h in o) for o in options)


@settings(max_examples=200, deadline=None)
@given(
    code=st.sampled_from(["0.77", "4.7", "0.137", "0.16", "4.0", "0.0", "0.6", "0.54", "4.4"]),
    n=st.integers(0, 60),
)
def test_targets_are_the_options_of_the_target_value(code: str, n: int) -> None:
    """`targets` (splits by their smaller part first) gives, for each value, exactly the options of that
    value among every option (`heap_options`, which the brute force of this file checks)."""
    game, g = OctalGame(code), naive_values(code, 61)
    every = list(game.heap_options(n))
    for target in range(max(g) + 2):
        found = list(game.targets(n, g[n], target, g.__getitem__))
        assert len(found) == len(set(found))
        assert set(found) == {o for o in every if _xor(g[h] for h in o) == target}, (n, target)


def _xor(values: Iterable[int]) -> int:
    total = 0
    for value in values:
        total ^= value
    return total


@pytest.mark.parametrize(
    ("code", "heap"), [("0.77", 10**18), ("0.77", 10**18 + 5), ("0.07", 10**17 + 3), ("4.7", 10**12)]
)
def test_a_winning_split_of_a_heap_far_beyond_the_period_is_found_in_few_steps(code: str, heap: int) -> None:
    """Every value below a heap's is had by a split whose smaller part is below the preperiod and one
    period: `targets` finds each (the first of each value) within those few hundred splits, where going
    through the first count's splits would take half the heap."""
    game = OctalGame(code)
    values, period = game.kernel().solve(1 << 12)
    assert period is not None and period.certified
    bound = period.preperiod + period.period + game.t
    most = 2 * (bound * len(game.rules.two) + game.t + 1)  # two parts valued a split
    asked: list[int] = []

    def value_of(h: int) -> int:
        asked.append(h)
        assert len(asked) <= most, f"more than {most} heaps valued"
        return int(values[period.reduce(h)])

    value = int(values[period.reduce(heap)])
    for target in range(value):
        asked.clear()
        option = next(game.targets(heap, value, target, value_of))
        assert _xor(int(values[period.reduce(h)]) for h in option) == target
        assert sum(option) >= heap - game.t


@cache
def _position_is_p(code: str, heaps: tuple[int, ...]) -> bool:
    game = OctalGame(code)
    for i, h in enumerate(heaps):
        for option in game.heap_options(h):
            nxt = tuple(sorted((*heaps[:i], *heaps[i + 1 :], *option)))
            if _position_is_p(code, nxt):
                return False
    return True


@pytest.mark.parametrize("code", ["0.77", "0.07", "4.7", "0.16"])
def test_sum_is_p_exactly_when_nim_sum_is_zero(code: str) -> None:
    g = naive_values(code, 13)
    for a in range(13):
        for b in range(a, 13):
            for c in range(b, 9):
                heaps = tuple(h for h in (a, b, c) if h)
                assert _position_is_p(code, heaps) == (g[a] ^ g[b] ^ g[c] == 0), heaps


@pytest.mark.parametrize(
    ("text", "canonical"),
    [("0.77", "0.77"), (".77", "0.77"), ("0.70", "0.7"), ("4.7", "4.7"), ("0.0", "0.0"), ("0.000", "0.0")],
)
def test_parse_canonical(text: str, canonical: str) -> None:
    assert parse_octal_code(text) == canonical


@pytest.mark.parametrize("text", ["0.8", ".", "0.", "1.2.3", "0." + "1" * 33, "1.7", "2.7", "07", "", " 0.7"])
def test_parse_rejects_and_quotes(text: str) -> None:
    with pytest.raises(InvalidGameId) as info:
        parse_octal_code(text)
    assert repr(text) in str(info.value)


def test_game_id_and_t() -> None:
    game = OctalGame(".137")
    assert game.game_id == "octal:0.137" and game.t == 3
    assert OctalGame("4.0").t == 0


def test_kayles_and_dawsons_kayles_certified_from_nothing() -> None:
    # Well-known: Kayles has period 12 (last exception at 70), Dawson's Kayles period 34.
    values, period = OctalGame("0.77").kernel().solve(1 << 12)
    assert period is not None and period.certified
    assert (period.preperiod, period.period) == (71, 12)
    values, period = OctalGame("0.07").kernel().solve(1 << 12)
    assert period is not None and period.period == 34
    more = naive_values("0.07", 700)
    assert all(more[n] == more[period.reduce(n)] for n in range(700))
    assert values.tolist() == more[: len(values)]


@pytest.mark.parametrize("code", ["0.77", "0.07", "0.137", "4.7", "0.15", "0.3", "4.0", "0.0"])
def test_certified_period_holds_far_beyond_its_proof(code: str) -> None:
    game = OctalGame(code)
    values, period = game.kernel().solve(1 << 11)
    assert period is not None
    check = game.kernel().extend(values, 4 * len(values) + 64)
    assert all(int(check[n]) == int(check[period.reduce(n)]) for n in range(len(check)))
    assert certify_octal_reference(check[:600].tolist(), game.t) == certify_octal(check[:600], game.t)


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.integers(0, 2), min_size=0, max_size=40),
    t=st.integers(0, 3),
)
def test_certify_matches_reference_on_any_sequence(values: list[int], t: int) -> None:
    assert certify_octal(np.array(values, dtype=np.uint32), t) == certify_octal_reference(values, t)


def test_certify_needs_the_whole_guy_smith_window() -> None:
    values = naive_values("0.77", 200)
    period = certify_octal(np.array(values, dtype=np.uint32), 2)
    assert period is not None
    need = 2 * period.preperiod + 2 * period.period + 2
    assert certify_octal(np.array(values[:need], dtype=np.uint32), 2) == period
    assert certify_octal(np.array(values[: need - 1], dtype=np.uint32), 2) is None


@pytest.mark.parametrize("code", ["0.4", "0.04", "0.004", "4.0", "0.44"])
def test_a_split_game_is_not_certified_from_its_first_zeros(code: str) -> None:
    # 0.4: g = 0, 0, 0, 1, ...; with a preperiod of 0 the theorem's proof would map a split into a
    # part of p tokens to "a part and an empty heap", so three zeros proved nothing. A live request for
    # heap 1 or 2 of a fresh 0.4 once certified "all zeros" this way, and every later answer of the
    # process was 0.
    truth = naive_values(code, 400)
    for size in range(len(truth) // 4):
        period = certify_octal(np.array(truth[:size], dtype=np.uint32), OctalGame(code).t)
        if period is not None:
            assert all(truth[n] == truth[period.reduce(n)] for n in range(len(truth))), (size, period)


@settings(max_examples=80, deadline=None)
@given(code=codes)
def test_a_period_certified_from_any_prefix_holds(code: str) -> None:
    truth = naive_values(code, 360)
    t = OctalGame(code).t
    for size in range(0, 90):
        period = certify_octal(np.array(truth[:size], dtype=np.uint32), t)
        if period is not None:
            assert all(truth[n] == truth[period.reduce(n)] for n in range(len(truth))), (size, period)


def test_observed_periods_are_not_certified() -> None:
    values = np.array(naive_values("0.77", 400), dtype=np.uint32)
    observed = observe_period(values)
    assert observed is not None and not observed.certified and observed.period == 12
    assert observe_period(np.arange(100, dtype=np.uint32)) is None
