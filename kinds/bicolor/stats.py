"""Statistics of a stored two-heap family of bicolor Nim (its values for p = 0, 1, ...), made by the worker
beside the family's table and combined as the table grows (engine.kind.SequenceKernel.stats_part), so
GetStats reads a few numbers per family, not every family's values.

The largest value and the first p reaching it, and the P-positions (value 0: their count and the first
STORED_P_POSITIONS of them) add up over consecutive ranges; the period observed (certified or not) is
the one figure of the whole family, found over all its values at each step as the certificate is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.periods import Period

#: The first P-positions a family's statistics keep (GetStats lists them up to its listing limit).
STORED_P_POSITIONS = 1_000
#: The shape's version, stored with it: statistics of another shape are not read.
VERSION = 1


def part(values: NDArray[np.uint32], start: int, observed: Period | None) -> dict[str, Any]:
    """The statistics of p = start..len(values)-1 (`values` from p = 0), with the period `observed` over
    all of them (None: none)."""
    piece = values[start:]
    zeros = np.flatnonzero(piece == 0)
    top = int(piece.max()) if len(piece) else None
    return {
        "version": VERSION,
        "upto": len(values),
        "max_value": top,
        "max_value_at": None if top is None else start + int(np.argmax(piece)),
        "p_count": len(zeros),
        "p_first": (zeros[:STORED_P_POSITIONS] + start).tolist(),
        "observed": None if observed is None else observed.as_dict(),
    }


def combine(earlier: Mapping[str, Any], later: Mapping[str, Any]) -> dict[str, Any]:
    """The statistics of two consecutive ranges together (`later` the range just after `earlier`)."""
    top, at = earlier["max_value"], earlier["max_value_at"]
    if top is None or (later["max_value"] is not None and later["max_value"] > top):
        top, at = later["max_value"], later["max_value_at"]
    return {
        "version": VERSION,
        "upto": later["upto"],
        "max_value": top,
        "max_value_at": at,
        "p_count": earlier["p_count"] + later["p_count"],
        "p_first": [*earlier["p_first"], *later["p_first"]][:STORED_P_POSITIONS],
        "observed": later["observed"],
    }


def readable(stats: Mapping[str, Any] | None) -> bool:
    """Whether `stats` are of this module's shape (else GetStats leaves the family's figures out)."""
    return stats is not None and stats.get("version") == VERSION and "p_first" in stats


def answer(stats: Mapping[str, Any], listed: int) -> dict[str, Any]:
    """GetStats' figures of one family: P-positions listed up to `listed` where all of them are kept,
    else counted."""
    count = int(stats["p_count"])
    first: list[int] = list(stats["p_first"])
    return {
        "computed_upto": int(stats["upto"]),
        "max_value": stats["max_value"],
        "max_value_at": stats["max_value_at"],
        "p_positions": first if count <= min(listed, len(first)) else count,
        "p_positions_count": count,
        "period": stats["observed"],
    }
