"""The direct mex kernel for octal-style heap games, and its plain-Python reference.

A rule set is three sorted arrays of token counts k: `whole` (a heap of exactly k may be removed),
`one` (removing k from a heap larger than k leaves one heap), `two` (removing k leaves two non-empty
heaps; k = 0 splits without removing), plus `unequal` (the two heaps of a split must differ, as in
Grundy's game). Every option of a heap of size n then has one of the values 0, g(n-k) or
g(a) ^ g(b) with a + b = n - k, so g(n) is a mex over O(n) values: O(n^2) for a whole table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True, slots=True)
class SplitRules:
    """The moves of one heap, as the kernels need them."""

    whole: tuple[int, ...]
    one: tuple[int, ...]
    two: tuple[int, ...]
    unequal: bool = False

    def arrays(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """The move lists as int64 arrays (numba needs typed, non-empty-safe arrays)."""
        return (
            np.array(self.whole, dtype=np.int64),
            np.array(self.one, dtype=np.int64),
            np.array(self.two, dtype=np.int64),
        )


def checked_prefix(prefix: NDArray[np.uint32], stop: int) -> NDArray[np.uint32]:
    """The prefix as a contiguous uint32 array, or a ValueError naming a bad `stop`."""
    if stop < 0:
        raise ValueError(f"stop must be non-negative, got {stop}")
    return np.ascontiguousarray(prefix, dtype=np.uint32)


def value_capacity(values: NDArray[np.uint32]) -> int:
    """A power of two strictly above twice every value so far: room for every XOR and its mex."""
    top = int(values.max()) if len(values) else 0
    return 1 << (top.bit_length() + 1)


@numba.njit(cache=True, nogil=True)
def _grow(stamp: NDArray[np.int64], need: int) -> NDArray[np.int64]:
    """A stamp array of at least 2*need entries keeping the old stamps (values only ever grow)."""
    size = len(stamp)
    while size <= 2 * need:
        size *= 2
    out = np.full(size, -1, dtype=np.int64)
    out[: len(stamp)] = stamp
    return out


@numba.njit(cache=True, nogil=True)
def direct_extend_nb(
    out: NDArray[np.uint32],
    start: int,
    whole: NDArray[np.int64],
    one: NDArray[np.int64],
    two: NDArray[np.int64],
    unequal: bool,
    capacity: int,
) -> None:
    """Fill out[start:] by the definition: mark every option value of heap n, take the mex."""
    stamp = np.full(max(capacity, 2), -1, dtype=np.int64)
    for n in range(start, len(out)):
        for k in whole:
            if n == k:
                stamp[0] = n
        for k in one:
            if n > k:
                stamp[out[n - k]] = n
        for k in two:
            m = n - k
            for a in range(1, m // 2 + 1):
                b = m - a
                if unequal and a == b:
                    continue
                stamp[out[a] ^ out[b]] = n
        g = 0
        while stamp[g] == n:
            g += 1
        out[n] = g
        if 2 * (g + 1) >= len(stamp):
            stamp = _grow(stamp, g + 1)


def direct_extend(prefix: NDArray[np.uint32], stop: int, rules: SplitRules) -> NDArray[np.uint32]:
    """The first `stop` values by the direct O(n^2) method, continuing from `prefix`."""
    prefix = checked_prefix(prefix, stop)
    if stop <= len(prefix):
        return prefix[:stop].copy()
    out = np.zeros(stop, dtype=np.uint32)
    out[: len(prefix)] = prefix
    whole, one, two = rules.arrays()
    direct_extend_nb(out, len(prefix), whole, one, two, rules.unequal, value_capacity(prefix))
    return out


def reference_values(stop: int, rules: SplitRules) -> list[int]:
    """Plain-Python reference of `direct_extend`: the mex of every option, heap by heap."""
    g: list[int] = []
    for n in range(stop):
        seen: set[int] = set()
        for k in rules.whole:
            if n == k:
                seen.add(0)
        for k in rules.one:
            if n > k:
                seen.add(g[n - k])
        for k in rules.two:
            for a in range(1, (n - k) // 2 + 1):
                b = n - k - a
                if not (rules.unequal and a == b):
                    seen.add(g[a] ^ g[b])
        v = 0
        while v in seen:
            v += 1
        g.append(v)
    return g
