"""Bicolor Nim's stored family statistics (kinds.bicolor.stats): those of a whole family equal what its
values show, read off the plain-Python reference; ranges cut anywhere combine to them; and GetStats
reports each stored family's figures from them, leaving out a family stored without them."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engine.kind import Context
from kinds.bicolor.kind import BicolorNim, FamilyKernel, parse_family
from tests.engine.contexts import DictMemo, StoredWords, engine_context

FAMILIES = ("f_3", "g'_2", "f^(2)_3")
STOP = 120


def kernel_of(name: str) -> FamilyKernel:
    return FamilyKernel(parse_family(name))


def values_of(name: str, stop: int = STOP) -> np.ndarray:
    return kernel_of(name).extend(np.zeros(0, dtype=np.uint32), stop)


@pytest.mark.parametrize("name", FAMILIES)
def test_a_whole_familys_statistics_are_what_its_values_show(name: str) -> None:
    kernel = kernel_of(name)
    assert kernel.stores_stats  # the worker asks it for them
    spec = parse_family(name)
    expected = kernel.reference(STOP)
    stats = kernel.stats_part(values_of(name), 0)
    assert stats is not None
    zeros = [p for p, v in enumerate(expected) if v == 0]
    assert stats["upto"] == STOP
    assert stats["max_value"] == max(expected)
    assert stats["max_value_at"] == expected.index(max(expected))
    assert stats["p_count"] == len(zeros) and stats["p_first"] == zeros
    observed = FamilyKernel(spec).observe(np.array(expected, dtype=np.uint32))
    assert stats["observed"] == (None if observed is None else observed.as_dict())


@pytest.mark.parametrize("cuts", [(1,), (17, 60), (59, 60, 119)])
def test_ranges_cut_anywhere_combine_to_the_whole(cuts: tuple[int, ...]) -> None:
    kernel = kernel_of("f_3")
    values = values_of("f_3")
    bounds = [0, *cuts, STOP]
    stats = None
    for start, stop in itertools.pairwise(bounds):
        part = kernel.stats_part(values[:stop], start)
        assert part is not None
        stats = part if stats is None else kernel.combine_stats(stats, part)
    assert stats == kernel.stats_part(values, 0)


def stored_context(with_stats: tuple[str, ...]) -> Context:
    words = StoredWords()
    for name in FAMILIES:
        values = values_of(name)
        words.words[("bicolor-nim", name)] = values
        if name in with_stats:
            part = kernel_of(name).stats_part(values, 0)
            assert part is not None
            words.stats[("bicolor-nim", name)] = part
    return engine_context(words, memo=DictMemo())


def test_get_stats_reports_each_stored_familys_figures() -> None:
    found = BicolorNim().stats(stored_context(with_stats=FAMILIES[:2]))
    assert found["families_stored"] == len(FAMILIES) and found["computed_upto"] == STOP
    families = found["families"]
    assert isinstance(families, dict) and set(families) == set(FAMILIES[:2])  # the third has none stored
    for name in FAMILIES[:2]:
        expected = kernel_of(name).reference(STOP)
        zeros = [p for p, v in enumerate(expected) if v == 0]
        figures = families[name]
        assert figures["computed_upto"] == STOP and figures["max_value"] == max(expected)
        assert figures["p_positions"] == zeros and figures["p_positions_count"] == len(zeros)
        period = kernel_of(name).certify(values_of(name))
        if period is not None:
            assert figures["period"] == period.as_dict()
