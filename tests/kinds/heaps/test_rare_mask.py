"""The rare mask chosen by a Walsh-Hadamard transform, and the rare/common kernel under any mask.

The transform is checked against direct counting, the chosen classification against a search of
every mask, and the kernel (batched step 1, chunked step 2, uint8/uint16 copies, more room, the
kernel of wide values past 2^16) against the direct kernel and the plain definition at random larger n.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kinds.heaps.kernels.rare_common as rc
from bench.rare_common_phases import phase_split
from kinds.heaps.grundy import GRUNDY_RULES
from kinds.heaps.kernels.octal import SplitRules, direct_extend, reference_values
from kinds.heaps.kernels.rare_common import rare_common_chunk, sparse_extend
from kinds.heaps.kernels.rare_mask import (
    Sparseness,
    choose_sparseness,
    choose_sparseness_direct,
    odd_counts,
    rare_count,
    walsh_hadamard,
)
from kinds.heaps.octal import OctalGame

EMPTY = np.zeros(0, dtype=np.uint32)


def popcount_parity(x: int) -> int:
    return x.bit_count() & 1


@settings(max_examples=60, deadline=None)
@given(bits=st.integers(0, 7), seed=st.integers(0, 2**32 - 1))
def test_walsh_hadamard_matches_direct_sums(bits: int, seed: int) -> None:
    counts = np.random.default_rng(seed).integers(0, 1000, 1 << bits).astype(np.int64)
    expected = [
        sum(int(c) * (-1) ** popcount_parity(s & x) for x, c in enumerate(counts)) for s in range(1 << bits)
    ]
    assert walsh_hadamard(counts).tolist() == expected


def test_walsh_hadamard_needs_a_power_of_two() -> None:
    with pytest.raises(ValueError, match="power-of-two"):
        walsh_hadamard(np.zeros(6, dtype=np.int64))


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(0, 300), min_size=1, max_size=80),
    bits=st.integers(1, 9),
)
def test_odd_counts_match_direct_counting(values: list[int], bits: int) -> None:
    # Key of heap n: the low `bits` bits of g(n), with n's parity as bit `bits`.
    keys = [(v & ((1 << bits) - 1)) | ((n & 1) << bits) for n, v in enumerate(values)]
    odd = odd_counts(np.array(values, dtype=np.uint32), bits)
    assert odd.tolist() == [sum(popcount_parity(s & k) for k in keys) for s in range(1 << (bits + 1))]


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.integers(0, 31), min_size=1, max_size=120),
    two=st.sampled_from([(0,), (1,), (2,), (1, 3), (2, 3), (0, 1, 2)]),
)
def test_choice_equals_a_search_of_every_mask(values: list[int], two: tuple[int, ...]) -> None:
    array = np.array(values, dtype=np.uint32)
    chosen = choose_sparseness(array, two)
    assert chosen == choose_sparseness_direct(array, two)
    assert chosen.rare == rare_count(array, chosen)
    if len({k & 1 for k in two}) > 1:
        assert chosen.heap_parity == 0


def test_heap_parity_bit_is_used_where_it_helps() -> None:
    # Values that alternate in class with the heap size: the parity bit makes (almost) nothing rare.
    values = np.array([(n & 1) * 3 for n in range(200)], dtype=np.uint32)
    chosen = choose_sparseness(values, (1,))
    assert chosen.heap_parity == 1 and chosen.rare == 0
    assert choose_sparseness(values, (1, 2)).heap_parity == 0


@pytest.mark.parametrize(("code", "stop"), [("grundy", 6000), ("0.6", 6000), ("0.56", 6000), ("0.376", 6000)])
def test_chosen_mask_gives_the_same_values(code: str, stop: int) -> None:
    rules = GRUNDY_RULES if code == "grundy" else OctalGame(code).rules
    direct = direct_extend(EMPTY, stop, rules)
    how = choose_sparseness(direct[: stop // 2], rules.two)
    assert rare_common_chunk(direct[:1024], stop, rules, how).tolist() == direct.tolist()
    assert np.array_equal(sparse_extend(EMPTY, stop, rules, chunk=1000), direct)


@settings(max_examples=25, deadline=None)
@given(
    code=st.sampled_from(["grundy", "0.6", "0.16", "4.7", "0.376", "0.26"]),
    first=st.integers(1, 511),
    second=st.integers(1, 511),
    parity=st.integers(0, 1),
    cut=st.integers(1, 700),
)
def test_changing_the_mask_midway_reclassifies(
    code: str, first: int, second: int, parity: int, cut: int
) -> None:
    rules = GRUNDY_RULES if code == "grundy" else OctalGame(code).rules
    expected = direct_extend(EMPTY, 900, rules)
    parity &= int(len({k & 1 for k in rules.two}) == 1)
    a = Sparseness(first, 1 ^ (parity & rules.two[0] & 1), parity)
    b = Sparseness(second, 1, 0)
    part = rare_common_chunk(EMPTY, cut, rules, a)
    assert rare_common_chunk(part, 900, rules, b).tolist() == expected.tolist()


def test_values_past_255_move_to_uint16_copies() -> None:
    # 0.6 reaches 256 at heap 10,344: the kernel runs out of uint8 room there and goes on in uint16.
    rules = OctalGame("0.6").rules
    direct = direct_extend(EMPTY, 12000, rules)
    assert int(direct[:10344].max()) < 256 <= int(direct[10344])
    how = choose_sparseness(direct[:8192], rules.two)
    assert np.array_equal(rare_common_chunk(direct[:8192], 12000, rules, how), direct)


def test_values_past_the_room_take_the_kernel_of_wide_values(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = OctalGame("0.6").rules
    direct = direct_extend(EMPTY, 3000, rules)
    monkeypatch.setattr(rc, "MAX_ROOM", 32)
    how = choose_sparseness(direct[:2000], rules.two)
    assert np.array_equal(rare_common_chunk(direct[:100], 3000, rules, how), direct)


def test_the_kernel_of_wide_values_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    new = sparse_extend(EMPTY, 40000, GRUNDY_RULES)
    how = choose_sparseness(new[:20000], (0,))
    monkeypatch.setattr(rc, "MAX_ROOM", 4)  # below every room: each chunk by the kernel of wide values
    assert np.array_equal(sparse_extend(EMPTY, 40000, GRUNDY_RULES), new)
    assert np.array_equal(rare_common_chunk(new[:20000], 40000, GRUNDY_RULES, how), new)


def mex_at(values: np.ndarray, n: int, rules: SplitRules) -> int:
    """g(n) by the definition from values[:n] (numpy, O(n)): the oracle at large n."""
    seen: set[int] = set()
    for k in rules.whole:
        if n == k:
            seen.add(0)
    for k in rules.one:
        if n > k:
            seen.add(int(values[n - k]))
    for k in rules.two:
        m = n - k
        a = np.arange(1, m // 2 + 1)
        if rules.unequal:
            a = a[a != m - a]
        seen.update(np.unique(values[a] ^ values[m - a]).tolist())
    g = 0
    while g in seen:
        g += 1
    return g


@pytest.mark.parametrize(("code", "stop"), [("grundy", 1 << 18), ("0.6", 1 << 17), ("0.376", 1 << 17)])
def test_random_large_heaps_obey_the_definition(code: str, stop: int) -> None:
    rules = GRUNDY_RULES if code == "grundy" else OctalGame(code).rules
    values = sparse_extend(EMPTY, stop, rules)
    assert values[:1500].tolist() == reference_values(1500, rules)
    rng = np.random.default_rng(stop)
    for n in [*rng.integers(1500, stop, 150).tolist(), stop - 1]:
        assert int(values[n]) == mex_at(values, n, rules), n


def test_phase_split_reproduces_the_values_and_counts_the_rare_heaps() -> None:
    """`phase_split` (the bench's phase timings) runs both kernels again on values it is given: what
    they compute is checked here, never how long they take (benches measure time; tests do not)."""
    values = direct_extend(EMPTY, 30000, GRUNDY_RULES)  # the direct kernel: the oracle, not the kernel timed
    how = choose_sparseness(values[:20000], (0,))
    split = phase_split(values, 20000, GRUNDY_RULES, how)  # raises where its whole run differs from `values`
    # No value reaches the room of those below 20000 (256), so step 2 finds each rare heap's value missing,
    # and only theirs (20000 is even: the slice keeps each heap's parity).
    assert int(values.max()) < 256
    assert split.stats[4] == rare_count(values[20000:], how) > 0
    assert split.stats[3] >= split.stats[4]  # heaps sent to step 2, which it found rare or not
    assert split.stats[0] >= 9000 * (how.rare - 1)  # every heap paired with (nearly) every rare part
