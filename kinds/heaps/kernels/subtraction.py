"""Single-heap values of subtraction games, normal (Grundy) or misère (misère Grundy).

g(n) = mex{g(n-s) : s in S, s <= n}; misère: g-(n) = 1 where no move exists, else the same mex.
Values never exceed |S| <= 64, so the mex runs over one 64-bit mask kept in a register: the
kernel is O(n·|S|) with no allocation, about as fast as the memory it writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

from engine.kind import SequenceKernel
from engine.periods import Period
from kinds.heaps import stats as heap_stats
from kinds.heaps.kernels.periodicity import certify_local
from kinds.heaps.kernels.remoteness import heap_remoteness


@numba.njit(cache=True, nogil=True)
def _fill(out: NDArray[np.uint32], start: int, moves: NDArray[np.int64], misere: bool) -> None:
    """Compute out[start:] in place from out[:start]; `moves` ascending."""
    one = np.uint64(1)
    for n in range(start, out.shape[0]):
        mask = np.uint64(0)
        has_move = False
        for i in range(moves.shape[0]):
            s = moves[i]
            if s > n:
                break
            has_move = True
            v = out[n - s]
            if v < 64:
                mask |= one << np.uint64(v)
        if misere and not has_move:
            out[n] = 1
            continue
        g = 0
        while mask & one:
            mask >>= one
            g += 1
        out[n] = g


def subtraction_values(
    moves: tuple[int, ...], misere: bool, prefix: NDArray[np.uint32], stop: int
) -> NDArray[np.uint32]:
    """The first `stop` values, reusing `prefix` (the first len(prefix), already correct)."""
    if len(moves) > 64:
        raise ValueError(f"at most 64 moves are supported, got {len(moves)}")
    have = int(prefix.shape[0])
    if stop <= have:
        return np.array(prefix[:stop], dtype=np.uint32)
    out = np.empty(stop, dtype=np.uint32)
    out[:have] = prefix
    _fill(out, have, np.array(sorted(moves), dtype=np.int64), misere)
    return out


def subtraction_reference(moves: tuple[int, ...], misere: bool, stop: int) -> list[int]:
    """Plain-Python reference of `subtraction_values`."""
    values: list[int] = []
    for n in range(stop):
        options = {values[n - s] for s in moves if s <= n}
        if misere and not options:
            values.append(1)
            continue
        g = 0
        while g in options:
            g += 1
        values.append(g)
    return values


class SubtractionKernel(SequenceKernel):
    """Sequence kernel of one subtraction game; periods certified by a repeated window of max(S)."""

    stores_stats = True

    def __init__(self, moves: tuple[int, ...], misere: bool) -> None:
        if not moves or min(moves) < 1:
            raise ValueError(f"a subtraction set needs positive elements, got {moves!r}")
        self.moves = tuple(sorted(set(moves)))
        self.misere = misere

    def extend(self, prefix: NDArray[np.uint32], stop: int) -> NDArray[np.uint32]:
        return subtraction_values(self.moves, self.misere, prefix, stop)

    def certify(self, values: NDArray[np.uint32]) -> Period | None:
        return certify_local(values, self.moves[-1])

    def reference(self, stop: int) -> list[int]:
        return subtraction_reference(self.moves, self.misere, stop)

    def stats_part(self, values: NDArray[np.uint32], start: int) -> dict[str, Any] | None:
        return heap_stats.part(values, start, self.observe(values))

    def combine_stats(self, earlier: Mapping[str, Any], later: Mapping[str, Any]) -> dict[str, Any]:
        return heap_stats.combine(earlier, later)

    def heap_stats(self, stats: Mapping[str, Any], listed: int) -> dict[str, Any] | None:
        """GetStats' figures from the stored statistics (kinds.heaps.stats): no rare/common ones."""
        return heap_stats.answer(stats, None, listed)

    gives_remoteness = True

    def remoteness(self, values: NDArray[np.uint32]) -> NDArray[np.int64]:
        """Every option of a single heap is a smaller heap, so one upward pass finds them all."""
        return heap_remoteness(values, self.moves)
