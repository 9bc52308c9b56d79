"""Certified periods of sequences with a window of locality k.

If g(n) is a fixed function of the k values before it for every n >= k (subtraction games with
k = max S, normal or misère), the window W(n) = g(n..n+k-1) determines W(n+1). So one repeated
window W(a) = W(a+p) proves g(m+p) = g(m) for every m >= a: a certificate, not a guess.

Finding it in O(len) time and O(1) memory: if any window repeats within the computed values, the
sequence is p-periodic from a with a+p <= L-k, so the *last* window W(L-k) repeats too, and its
nearest earlier occurrence lies exactly P back, P being the minimal eventual period (every
eventual period is a multiple of P, and the P-periodicity holds from a, hence at L-k-P >= a). A
rolling hash finds that occurrence scanning backwards; a scan further back while g(m-1) equals
g(m-1+P) then gives the minimal preperiod.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from engine.periods import Period

_HASH_BASE = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True, nogil=True)
def _nearest_repeat(values: NDArray[np.uint32], k: int, base: np.uint64) -> int:
    """Distance back to the nearest earlier occurrence of the last k-window, or 0 if none."""
    n: int = values.shape[0]
    last = n - k
    top = np.uint64(1)  # base ** (k - 1)
    for _ in range(k - 1):
        top = top * base
    target = np.uint64(0)
    for i in range(k - 1, -1, -1):
        target = target * base + np.uint64(values[last + i])
    h = target
    for j in range(last - 1, -1, -1):
        h = np.uint64(values[j]) + base * (h - np.uint64(values[j + k]) * top)
        if h == target:
            same = True
            for i in range(k):
                if values[j + i] != values[last + i]:
                    same = False
                    break
            if same:
                return last - j
    return 0


@numba.njit(cache=True, nogil=True)
def _scan_back(values: NDArray[np.uint32], start: int, period: int) -> int:
    """The least m <= start with g(n + period) = g(n) for m <= n < start."""
    m = start
    while m > 0 and values[m - 1] == values[m - 1 + period]:
        m -= 1
    return m


def certify_local(values: NDArray[np.uint32], k: int) -> Period | None:
    """The minimal certified period (and minimal preperiod) of a locality-k sequence, or None.

    None means no window of k values repeats within `values` yet: compute further and ask again.
    """
    if k < 1:
        raise ValueError(f"locality must be at least 1, got {k}")
    arr = np.ascontiguousarray(values, dtype=np.uint32)
    if arr.shape[0] < k + 1:
        return None
    period = int(_nearest_repeat(arr, k, _HASH_BASE))
    if period == 0:
        return None
    preperiod = int(_scan_back(arr, arr.shape[0] - k - period, period))
    return Period(preperiod=preperiod, period=period, saltus=0, certified=True)


def certify_local_reference(values: list[int], k: int) -> Period | None:
    """Plain-Python reference by a different route: the first repeated window, then minimise.

    The first repeat W(a) = W(a+p) certifies (a, p); the minimal period divides p and is found on
    one cycle of the periodic part; the minimal preperiod by scanning back.
    """
    if k < 1:
        raise ValueError(f"locality must be at least 1, got {k}")
    first: dict[tuple[int, ...], int] = {}
    for b in range(len(values) - k + 1):
        window = tuple(values[b : b + k])
        a = first.setdefault(window, b)
        if a == b:
            continue
        p = b - a
        cycle = values[a : a + p]
        period = min(
            d for d in range(1, p + 1) if p % d == 0 and all(cycle[i] == cycle[(i + d) % p] for i in range(p))
        )
        m = a
        while m > 0 and values[m - 1] == values[m - 1 + period]:
            m -= 1
        return Period(preperiod=m, period=period, saltus=0, certified=True)
    return None
