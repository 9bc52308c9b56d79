"""Whole-table statistics of a single-heap sequence g(0..n-1), stored by the worker beside the table and
combined as the table grows, so GetStats of a table of 2^23 values reads a few kilobytes, not the table.

What GetStats reports of a prefix (kinds.heaps.base: `max_value`, `max_value_at`, the P-positions, the
rare/common figures) depends on the values only through how many heaps n have each pair (g(n), n & 1),
the first and last such n, and the first P-positions; those add up over consecutive ranges:
- a range's statistics (`part`) hold, for each pair, its count, first and last heap, the P-positions'
  count and the first STORED_P_POSITIONS of them;
- two consecutive ranges' (`combine`) add the counts, keep the earlier first and the later last heap, and
  the first P-positions of both in order, cut again;
- the rare/common classification is chosen from the pairs' counts (one Walsh-Hadamard transform,
  kinds.heaps.kernels.rare_mask), its rare count and last rare heap read off the pairs.
The observed (uncertified) period is the one thing that depends on the whole sequence: the worker looks
for it over all values at each step, as it looks for a certified one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from engine.periods import Period
from kinds.heaps.kernels.rare_mask import Sparseness, choose_sparseness_counted

#: The first P-positions a table's statistics keep (GetStats lists them up to
#: NIMBASE_LIMITS_STATS_P_POSITIONS, 1,000 by default; a limit set above this is answered from the values).
STORED_P_POSITIONS = 10_000
#: The shape's version, stored with it: statistics of another shape are not read (the table is then
#: summarised from its values, as before statistics were stored).
VERSION = 1


@runtime_checkable
class SummarisesHeaps(Protocol):
    """A single-heap sequence kernel whose stored statistics are this module's (`part`, `combine`)."""

    def heap_stats(self, stats: Mapping[str, Any], listed: int) -> dict[str, Any] | None:
        """GetStats' figures from the stored statistics (`answer`), None where they cannot say."""
        ...


def part(values: NDArray[np.uint32], start: int, observed: Period | None) -> dict[str, Any]:
    """The statistics of heaps start..len(values)-1 (`values` from heap 0), with the period `observed`
    over all of them (None: none)."""
    piece = values[start:]
    heaps = np.arange(start, len(values), dtype=np.int64)
    keys = piece.astype(np.int64) * 2 + (heaps & 1)
    unique, first, counts = np.unique(keys, return_index=True, return_counts=True)
    _, from_end = np.unique(keys[::-1], return_index=True)
    last = len(keys) - 1 - from_end
    zeros = np.flatnonzero(piece == 0)
    return {
        "version": VERSION,
        "upto": len(values),
        "pairs": [
            [int(k) >> 1, int(k) & 1, int(c), start + int(f), start + int(la)]
            for k, c, f, la in zip(unique, counts, first, last, strict=True)
        ],
        "p_count": len(zeros),
        "p_first": (zeros[:STORED_P_POSITIONS] + start).tolist(),
        "observed": None if observed is None else observed.as_dict(),
    }


def combine(earlier: Mapping[str, Any], later: Mapping[str, Any]) -> dict[str, Any]:
    """The statistics of two consecutive ranges together (`later` the range just after `earlier`)."""
    pairs: dict[tuple[int, int], list[int]] = {(v, p): [c, f, la] for v, p, c, f, la in earlier["pairs"]}
    for v, p, c, f, la in later["pairs"]:
        known = pairs.get((v, p))
        pairs[(v, p)] = [c, f, la] if known is None else [known[0] + c, known[1], la]
    return {
        "version": VERSION,
        "upto": later["upto"],
        "pairs": [[v, p, *rest] for (v, p), rest in sorted(pairs.items())],
        "p_count": earlier["p_count"] + later["p_count"],
        "p_first": [*earlier["p_first"], *later["p_first"]][:STORED_P_POSITIONS],
        "observed": later["observed"],
    }


def readable(stats: Mapping[str, Any]) -> bool:
    """Whether `stats` are of this module's shape (else the table is summarised from its values)."""
    return stats.get("version") == VERSION and "pairs" in stats


def answer(stats: Mapping[str, Any], two: tuple[int, ...] | None, listed: int) -> dict[str, Any] | None:
    """GetStats' figures of the table (`kinds.heaps.base.HeapGame.prefix_stats` without game, period and
    source): `two` the split moves' token counts where the rare/common figures apply (None: they do not),
    P-positions listed up to `listed`. None where the statistics cannot say (P-positions to list beyond
    those kept): the caller then reads the values."""
    count = int(stats["p_count"])
    first: list[int] = list(stats["p_first"])
    if count <= listed and count > len(first):
        return None
    table = np.array(stats["pairs"], dtype=np.int64).reshape(-1, 5)
    values, parities, counts, firsts, lasts = table.T
    size = int(stats["upto"])
    out: dict[str, Any] = {
        "computed_upto": size,
        "max_value": None,
        "max_value_at": None,
        "p_positions": first[:count] if count <= listed else count,
        "p_positions_count": count,
        "rare_mask": None,
        "rare_count": None,
        "last_rare_at": None,
    }
    if size:
        top = int(values.max())
        out.update(max_value=top, max_value_at=int(firsts[values == top].min()))
    if two and size:
        how = choose_sparseness_counted(values, parities, counts, two)
        rare = _rare(values, parities, how)
        out.update(
            rare_mask=how.mask,
            rare_count=int(counts[rare].sum()),
            last_rare_at=int(lasts[rare].max()) if rare.any() else None,
        )
    return out


def _rare(values: NDArray[np.int64], parities: NDArray[np.int64], how: Sparseness) -> NDArray[np.bool_]:
    """Which pairs (g, n & 1) are rare under `how` (kinds.heaps.kernels.rare_mask.rare_flags, per pair)."""
    odd = np.bitwise_count(values & how.mask).astype(np.int64) & 1
    flags: NDArray[np.bool_] = ((odd ^ how.flip ^ (how.heap_parity & parities)) & 1).astype(np.bool_)
    return flags
