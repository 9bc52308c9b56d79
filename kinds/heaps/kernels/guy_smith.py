"""Periods of octal games proved by the Guy-Smith theorem, and merely observed regularities.

Guy-Smith: for an octal game whose moves remove at most t tokens (t = index of the last non-zero
digit of d0.d1...dt), if g(n + p) = g(n) for all e <= n < 2*e + p + t, then for all n >= e, where e is
at least 1. Proof sketch (by induction on n >= 2*e + p + t): every option of n + p that splits off k
tokens leaves a larger part b >= e + p, so b - p is an option part of n with g(b - p) = g(b), and
conversely; single-heap options n + p - k map to n - k >= e the same way. The part b - p must be a
heap, not nothing: with e = 0 a split of n + p into a and b = p would map to "a and an empty heap",
which is not a split, and the theorem fails (0.4, values 0, 0, 0 and then 1 at heap 3, would be
"proved" all zeros from three values). So a period seen from n0 is proved with e = max(n0, 1), and it
holds from n0 because the values from n0 to e were compared too. The argument uses d0 = 4
(split without removing, k = 0) just as well, so every finite octal code qualifies. It breaks for
Grundy's game, whose splits must be unequal (shifting one part by p can make the parts equal): that
game only gets `observe_period`, which is never used to answer a position.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from engine.periods import Period

#: An observed period must repeat at least this many times in the computed values...
OBSERVE_REPEATS = 3
#: ...and cover at least this fraction of them.
OBSERVE_COVER = 0.5


@numba.njit(cache=True, nogil=True)
def _first_period(
    values: NDArray[np.uint32], t: int, certify: bool, repeats: int, cover: float
) -> NDArray[np.int64]:
    """[period, preperiod] of the smallest period the criterion accepts, or [-1, -1].

    For each p the values are compared from the end backwards to the last n with
    values[n] != values[n + p] (the preperiod for p is n + 1). Once some p has a long periodic tail
    (from n0), every multiple q of p repeats from n0 on as well, so the scan for q starts below n0
    (`below[q]`): without that, the multiples of a short period (0.376: period 4 from 2,268,248) would
    each re-read the whole tail, quadratic in the number of values.
    """
    size = len(values)
    top = size // 2 + 1 if certify else size // max(repeats, 1) + 1
    below = np.full(top + 1, size, dtype=np.int64)
    for p in range(1, size):
        if certify and 2 * p + t + 2 > size:  # even from e = 1 the proof needs more values
            break
        if not certify and repeats * p > size:
            break
        n = min(size - 1 - p, below[p] if p <= top else size)
        while n >= 0 and values[n] == values[n + p]:
            n -= 1
        n0 = n + 1
        proved = certify and 2 * max(n0, 1) + 2 * p + t <= size
        seen = not certify and size - n0 >= repeats * p and size - n0 >= cover * size
        if proved or seen:
            out = np.empty(2, dtype=np.int64)
            out[0] = p
            out[1] = n0
            return out
        # values[m] == values[m + q] for n0 <= m < size - q when q is a multiple of p.
        if n0 < size - 2 * p:
            for q in range(2 * p, top + 1, p):
                if n0 - 1 < below[q]:
                    below[q] = n0 - 1
    out = np.full(2, -1, dtype=np.int64)
    return out


def certify_octal(values: NDArray[np.uint32], t: int) -> Period | None:
    """The minimal period and preperiod that `values` = g(0..len-1) prove by Guy-Smith, or None.

    The smallest p with a proof is the true minimal period (the minimal period's own condition is
    the weakest), and its preperiod is exact: mismatches of the true values only lie before it.
    """
    if t < 0:
        raise ValueError(f"t must be non-negative, got {t}")
    found = _first_period(np.ascontiguousarray(values, dtype=np.uint32), t, True, 0, 0.0)
    if found[0] < 0:
        return None
    return Period(preperiod=int(found[1]), period=int(found[0]), saltus=0, certified=True)


def observe_period(values: NDArray[np.uint32]) -> Period | None:
    """A period the values show (repeating OBSERVE_REPEATS times over half of them), uncertified."""
    found = _first_period(
        np.ascontiguousarray(values, dtype=np.uint32), 0, False, OBSERVE_REPEATS, OBSERVE_COVER
    )
    if found[0] < 0:
        return None
    return Period(preperiod=int(found[1]), period=int(found[0]), saltus=0, certified=False)


def certify_octal_reference(values: list[int], t: int) -> Period | None:
    """Plain-Python reference of `certify_octal`, straight from the theorem's statement."""
    size = len(values)
    for p in range(1, size + 1):
        for n0 in range(size):
            e = max(n0, 1)  # the theorem's range starts at a heap (see the module's docstring)
            if 2 * e + 2 * p + t > size:
                break
            if all(values[n + p] == values[n] for n in range(n0, 2 * e + p + t)) and all(
                values[n + p] == values[n] for n in range(n0, size - p)
            ):
                return Period(preperiod=n0, period=p, saltus=0, certified=True)
    return None
