"""The rare/common kernel of wide values: heap by heap, with a stamp per value instead of rows of bytes.

It has no limit on the values, so the driver takes it for values of 2^16 and more, where the rows of
the batched kernel (kinds.heaps.kernels.rare_common_fill) would no longer be small.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from kinds.heaps.kernels.rare_mask import parity_table


@numba.njit(cache=True, nogil=True)
def _room(g: int) -> int:
    """A stamp size with spare values of both parities above every XOR of values up to g."""
    need = 1
    while need <= g:
        need <<= 1
    return 4 * need


@numba.njit(cache=True, nogil=True)
def rare_common_extend_wide_nb(
    out: NDArray[np.uint32],
    start: int,
    whole: NDArray[np.int64],
    one: NDArray[np.int64],
    two: NDArray[np.int64],
    unequal: bool,
    mask: int,
    flip: int,
    heap_parity: int,
    capacity: int,
    known: bool = False,
) -> int:
    """The kernel of values of 2^16 and more.

    Fills out[start:] heap by heap; returns how many splits the common scans read. With `known`,
    out[start:] already holds the values and the check of step 2 is skipped (phase timings only).
    `two` must be non-empty and, when heap_parity is 1, hold numbers of a single parity.
    """
    size = capacity
    stamp = np.full(size, -1, dtype=np.int64)
    odd = parity_table(size, mask)
    need = np.zeros(size, dtype=np.uint8)
    rare_at = np.empty(max(len(out), 1), dtype=np.int64)
    nrare = 0
    # rare_at holds split parts only: heap 0 never is one, so it stays out even where rare_count
    # counts it as rare.
    for i in range(1, start):
        if (odd[out[i]] ^ flip ^ (heap_parity & i)) & 1:
            rare_at[nrare] = i
            nrare += 1
    scanned = 0
    for n in range(start, len(out)):
        for k in whole:
            if n == k:
                stamp[0] = n
        for k in one:
            if n > k:
                stamp[out[n - k]] = n
        # Values of parity `target` come only from splits with exactly one rare part.
        target = 1 ^ (heap_parity & (n - two[0]) & 1)
        for k in two:
            m = n - k
            for j in range(nrare):
                a = rare_at[j]
                b = m - a
                if b < 1:
                    break
                if unequal and a == b:
                    continue
                stamp[out[a] ^ out[b]] = n
        c = 0
        while not (odd[c] == target and stamp[c] != n):
            c += 1
        missing = 0
        for v in range(c):
            if stamp[v] != n:
                need[v] = 1
                missing += 1
        # Step 2: the other parity comes from common-common (and rare-rare) splits; read splits only
        # until nothing below c is missing. Any split is an option, so no rare-ness test is needed.
        if known:
            need[:c] = 0
            missing = 0
            c = int(out[n])
        if missing > 0:
            for k in two:
                m = n - k
                last = (m - 1) // 2 if unequal else m // 2
                # Splits from both ends in turn (a = 1, last, 2, last - 1, ...): small parts come from
                # the irregular start and large ones from the regular tail, and taking both finds the
                # missing values after about a third fewer splits than from one end (Grundy, 0.6).
                read = last
                lo = 1
                hi = last
                while lo <= hi:
                    if (lo - 1 + last - hi) & 1:
                        a = hi
                        hi -= 1
                    else:
                        a = lo
                        lo += 1
                    v = out[a] ^ out[m - a]
                    if need[v]:
                        need[v] = 0
                        stamp[v] = n
                        missing -= 1
                        if missing == 0:
                            read = lo - 1 + last - hi
                            break
                scanned += read
                if missing == 0:
                    break
            if missing > 0:
                need[:c] = 0
        g = c
        if missing > 0:
            g = 0
            while stamp[g] == n:
                g += 1
        out[n] = g
        if n > 0 and (odd[g] ^ flip ^ (heap_parity & n)) & 1:
            rare_at[nrare] = n
            nrare += 1
        if _room(g) > size:
            size = _room(g)
            bigger = np.full(size, -1, dtype=np.int64)
            bigger[: len(stamp)] = stamp
            stamp = bigger
            odd = parity_table(size, mask)
            need = np.zeros(size, dtype=np.uint8)
    return scanned
