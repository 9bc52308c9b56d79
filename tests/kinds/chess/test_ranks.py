"""The second metric's ranks beside DTM (kinds.chess.ranks) against a plain count of a table's pairs: each
DTM value's second codes most frequent first (ties by code), whichever way the pairs are counted; ranks
read back from their bytes; a rank or DTM value naming no pair is refused."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from kinds.chess import ranks as chess_ranks
from kinds.chess.ranks import BadRanks, Ranks


def reference(dtm: np.ndarray, second: np.ndarray) -> dict[int, list[int]]:
    """Per DTM value, its second codes by count (most first), then by code."""
    counted = Counter(zip(dtm.tolist(), second.tolist(), strict=True))
    out: dict[int, list[int]] = {}
    for (d, s), _ in sorted(counted.items(), key=lambda item: (item[0][0], -item[1], item[0][1])):
        out.setdefault(d, []).append(s)
    return out


def table(seed: int, count: int, wide: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if wide:  # any int16 and uint16: counted by sorting
        return (
            rng.integers(-32768, 32768, count).astype(np.int16),
            rng.integers(0, 65536, count).astype(np.uint16),
        )
    dtm = rng.integers(-40, 40, count).astype(np.int16)  # few values, skewed pairs: counted densely
    return dtm, ((dtm.astype(np.int64) ** 2 + rng.geometric(0.4, count)) % 300).astype(np.uint16)


@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("count", [0, 1, 5000])
def test_ranks_of_a_table(monkeypatch: pytest.MonkeyPatch, wide: bool, count: int) -> None:
    monkeypatch.setattr(chess_ranks, "_PIECE", 777)  # counted a piece at a time
    dtm, second = table(count, count, wide)
    ranks = Ranks.of_table(dtm, lambda lo, hi: second[lo:hi])
    expected = reference(dtm, second)
    found = {
        ranks.least + g: ranks.seconds[ranks.starts[g] : ranks.starts[g] + ranks.counts[g]].tolist()
        for g in range(len(ranks.counts))
        if ranks.counts[g]
    }
    assert found == expected
    rank = ranks.rank(dtm, second)
    assert [expected[d].index(s) for d, s in zip(dtm.tolist(), second.tolist(), strict=True)] == rank.tolist()
    again = Ranks.from_bytes(ranks.to_bytes())
    assert np.array_equal(again.second(dtm, rank), second)
    assert np.array_equal(ranks.second(dtm, rank), second)


def test_ranks_counted_densely_then_by_sorting(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table whose later pieces hold more combinations than are counted densely: the pairs counted so
    far go on by sorting, with the same ranks."""
    monkeypatch.setattr(chess_ranks, "_PIECE", 777)
    monkeypatch.setattr(chess_ranks, "_DENSE_PAIRS", 80 * 150)
    dtm, second = table(7, 5000, False)
    second = np.where(np.arange(5000) < 2500, second % 100, second).astype(np.uint16)
    ranks = Ranks.of_table(dtm, lambda lo, hi: second[lo:hi])
    expected = reference(dtm, second)
    assert [expected[d].index(s) for d, s in zip(dtm.tolist(), second.tolist(), strict=True)] == (
        ranks.rank(dtm, second).tolist()
    )
    assert sum(len(v) for v in expected.values()) == len(ranks.seconds)


def test_pairs_and_bytes_not_of_the_ranks_are_refused() -> None:
    dtm, second = table(3, 1000, False)
    ranks = Ranks.of_table(dtm, lambda lo, hi: second[lo:hi])
    with pytest.raises(ValueError, match="not built from"):
        ranks.rank(np.array([5], np.int16), np.array([9999], np.uint16))
    with pytest.raises(ValueError, match="not built from"):  # within the lookup's span, not a pair
        ranks.rank(np.array([0, 0], np.int16), np.array([1, 0], np.uint16))
    with pytest.raises(ValueError, match="not built from"):
        ranks.rank(np.array([-41], np.int16), np.array([1], np.uint16))
    with pytest.raises(BadRanks, match="a DTM value the ranks do not hold"):
        ranks.second(np.array([100], np.int16), np.zeros(1, np.uint16))
    with pytest.raises(BadRanks, match="a rank past"):
        ranks.second(np.array([0], np.int16), np.array([1000], np.uint16))
    data = ranks.to_bytes()
    with pytest.raises(BadRanks, match="do not hold"):
        Ranks.from_bytes(data[:-2])
    with pytest.raises(BadRanks, match="shorter than their header"):
        Ranks.from_bytes(data[:5])
    broken = bytearray(data)
    broken[12] ^= 1  # the first DTM value's count
    with pytest.raises(BadRanks, match="do not add up"):
        Ranks.from_bytes(bytes(broken))
