"""The product of a sum's heaps in the quotient: one table lookup per heap.

`fold_kernel` (numba, cache=True) folds many sums at once from flat arrays; `fold_reference` is its
plain-Python reference, which the tests compare it with. `fold` answers one sum.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np
from numpy.typing import NDArray

from kinds.heaps.misere.monoid import Quotient

#: Sums shorter than this are folded in Python (a kernel call costs more).
KERNEL_FROM = 64


@numba.njit(cache=True, nogil=True)
def fold_kernel(
    table: NDArray[np.int32], elements: NDArray[np.int32], offsets: NDArray[np.int64]
) -> NDArray[np.int32]:
    """out[i] = product of elements[offsets[i]:offsets[i+1]] in `table` (identity 0)."""
    out = np.zeros(len(offsets) - 1, dtype=np.int32)
    for i in range(len(offsets) - 1):
        z = 0
        for j in range(offsets[i], offsets[i + 1]):
            z = table[z, elements[j]]
        out[i] = z
    return out


def fold_reference(table: NDArray[np.int32], elements: Sequence[int], offsets: Sequence[int]) -> list[int]:
    """Plain-Python reference of `fold_kernel`."""
    out: list[int] = []
    for i in range(len(offsets) - 1):
        z = 0
        for j in range(offsets[i], offsets[i + 1]):
            z = int(table[z][elements[j]])
        out.append(z)
    return out


def elements_of(q: Quotient, heaps: Sequence[int]) -> NDArray[np.int32]:
    """Phi of each heap (every heap must be covered: at most the bound, or the quotient certified)."""
    array = np.asarray(heaps, dtype=np.int64)
    if q.period is None or not len(array) or int(array.max()) <= q.bound:
        return q.phi[array]
    pre, per = q.period.preperiod, q.period.period
    folded = np.where(array > q.bound, pre + (array - pre) % per, array)
    return q.phi[folded]


def fold(q: Quotient, heaps: Sequence[int]) -> int:
    """The element of the sum `heaps` (every heap covered)."""
    if len(heaps) >= KERNEL_FROM:
        offsets = np.array([0, len(heaps)], dtype=np.int64)
        return int(fold_kernel(q.table, elements_of(q, heaps), offsets)[0])
    z = 0
    rows, phi = q.rows, q.phi_list
    size = len(phi)
    if q.period is None:
        for h in heaps:
            z = rows[z][phi[h]]
        return z
    pre, per = q.period.preperiod, q.period.period
    for h in heaps:
        z = rows[z][phi[h] if h < size else phi[pre + (h - pre) % per]]
    return z
