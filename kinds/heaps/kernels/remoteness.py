"""Remoteness of single heaps of subtraction games, from their value sequence.

Steinhaus' rule: a position with no move has remoteness 0; a winning position is one more than its
quickest move to a losing position; a losing position is one more than its slowest move. For a single
heap of a subtraction game every option is a smaller heap, so one pass upwards computes them all,
O(n·|S|), where a search over positions would cost thousands of Python steps per request.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray


@numba.njit(cache=True, nogil=True)
def _fill_remoteness(values: NDArray[np.uint32], moves: NDArray[np.int64], out: NDArray[np.int64]) -> None:
    for n in range(values.shape[0]):
        best_win = -1
        slowest = -1
        for s in moves:
            if s > n:
                break
            r = out[n - s]
            if values[n - s] == 0 and (best_win < 0 or r < best_win):
                best_win = r
            if r > slowest:
                slowest = r
        if slowest < 0:
            out[n] = 0
        elif values[n] != 0:
            out[n] = 1 + best_win
        else:
            out[n] = 1 + slowest


def heap_remoteness(values: NDArray[np.uint32], moves: tuple[int, ...]) -> NDArray[np.int64]:
    """R(n) for every n < len(values); `values` are the (normal or misère) Grundy values g(n).

    A heap is losing exactly where its value is 0, in normal play (Grundy value) and in misère play
    (misère Grundy value) alike, so the same pass serves both conventions.
    """
    out = np.zeros(values.shape[0], dtype=np.int64)
    _fill_remoteness(values, np.array(sorted(moves), dtype=np.int64), out)
    return out


def heap_remoteness_reference(values: list[int], moves: tuple[int, ...]) -> list[int]:
    """Plain-Python reference of `heap_remoteness`."""
    out: list[int] = []
    for n, value in enumerate(values):
        children = [n - s for s in moves if s <= n]
        if not children:
            out.append(0)
        elif value != 0:
            out.append(1 + min(out[c] for c in children if values[c] == 0))
        else:
            out.append(1 + max(out[c] for c in children))
    return out
