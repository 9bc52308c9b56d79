"""The batched rare/common kernel (`rare_common_fill_nb`) and its step 2 (`_check_nb`).

The method and its two steps are described in `kinds.heaps.kernels.rare_common`, which drives this kernel
and checks it against the direct one.

How the kernel spends its time (`rare_common_fill_nb`): values are kept in a compact copy (uint8 or
uint16) and a reversed one, so every read below is ascending and cache-friendly.

- Step 1 is batched: for each rare part a, the partners of `batch` consecutive heaps are consecutive
  values, read once and marked into one small byte row per heap (`seen`). The few pairs whose partner
  lies in the batch itself, or whose rare part was found in it, are added heap by heap.
- c and the missing values of the other class are read eight bytes at a time from the rows.
- Step 2 reads splits from both ends of every split move in turn (so a value that only one move gives
  is not looked for through every split of another: 0.376 got 14 times faster). While more than
  TAIL values are missing, it computes 256 split values at a time (vector code: indices are unsigned,
  numba's wrap-around of negative ones would keep LLVM from vectorizing) and clears their bytes in a
  table of missing values, then counts what is left; once at most TAIL are missing, each chunk of
  256 split values is compared with each missing value a machine word at a time. That is where the
  coupon collector's long tail (the last few values take most of the ~2,600 splits a heap of
  Grundy's game needs) went.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

from kinds.heaps.kernels.rare_mask import parity_table

#: The compact copies of the values (uint8 or uint16).
Compact = NDArray[np.unsignedinteger[Any]]

#: Splits per chunk of step 2 (from each end).
SPLIT_CHUNK = 256
#: Step 2 goes from clearing the values of whole chunks to comparing chunks with each missing value
#: once at most this many are missing (tuned on Grundy's game and 0.6: flat between 4 and 12).
TAIL = 6
#: Bytes of the `seen` rows of one batch of step 1 (kept within the L1 cache): the batch is this many
#: bytes over the row size (twice the room of the values), between 8 and 64 heaps.
BATCH_BYTES = 1 << 15


@numba.njit(cache=True, nogil=True, inline="always")
def _split_chunk(
    xb: Compact, vals: Compact, rev: Compact, lo: int, hi: int, m: int, last: int, side: int
) -> None:
    """xb[t] = the value of split t of the chunk read from the low end (side 0: parts lo.., partners
    descending) or the high end (side 1); both read ascending thanks to the reversed copy `rev`."""
    if side == 0:
        p = np.uint64(lo)
        r = np.uint64(last - m + lo)
    else:
        p = np.uint64(m - hi)
        r = np.uint64(last - hi)
    for t in range(SPLIT_CHUNK):
        ut = np.uint64(t)
        xb[ut] = vals[p + ut] ^ rev[r + ut]


@numba.njit(cache=True, nogil=True)
def _check_nb(
    vals: Compact,
    rev: Compact,
    nn: int,
    two: NDArray[np.int64],
    unequal: bool,
    need: NDArray[np.uint8],
    missing: int,
    c: int,
    tail: int,
    rem: NDArray[np.uint64],
    xb: Compact,
    bounds: NDArray[np.int64],
    lanes: NDArray[np.uint64],
    stats: NDArray[np.int64],
) -> int:
    """Step 2 for heap nn: read splits until no value marked in `need` is missing; returns how many
    still are (then they are all missing from the options). Found values are unmarked in `need`.

    Indices are unsigned: numba's wrap-around of negative indices would keep LLVM from vectorizing.
    """
    last = len(vals) - 1
    nk = len(two)
    words = xb.view(np.uint64)
    nwords = len(words)
    low = lanes[0]
    high = lanes[1]
    for q in range(nk):
        m = nn - two[q]
        bounds[2 * q] = 1
        bounds[2 * q + 1] = (m - 1) // 2 if unequal else m // 2
    nrem = -1
    one_by_one = 0
    marked = 0
    chunks = 0
    while missing > 0:
        moved = False
        for q in range(nk):
            lo = bounds[2 * q]
            hi = bounds[2 * q + 1]
            if lo > hi:
                continue
            moved = True
            m = nn - two[q]
            if hi - lo + 1 >= 2 * SPLIT_CHUNK and missing > tail:
                # Many values missing: a chunk from each end, every split value's byte set to 0, then
                # a count of those left (stores only, and a count that vectorizes).
                for side in range(2):
                    _split_chunk(xb, vals, rev, lo, hi, m, last, side)
                    for t in range(SPLIT_CHUNK):
                        need[xb[np.uint64(t)]] = 0
                left = 0
                for v in range(c):
                    left += need[v]
                missing = left
                lo += SPLIT_CHUNK
                hi -= SPLIT_CHUNK
                marked += 2
                nrem = -1
            elif missing > tail or hi - lo + 1 < 2 * SPLIT_CHUNK:
                # Marking without branches: a found value's byte drops to 0, so it counts once.
                run = min(32, (hi - lo + 2) // 2)
                ulo = np.uint64(lo)
                um = np.uint64(m)
                for t in range(run):
                    ut = np.uint64(t)
                    x = vals[ulo + ut] ^ vals[um - ulo - ut]
                    missing -= need[x]
                    need[x] = 0
                lo += run
                run2 = min(32, hi - lo + 1)
                uhi = np.uint64(hi)
                for t in range(run2):
                    ut = np.uint64(t)
                    x = vals[uhi - ut] ^ vals[um - uhi + ut]
                    missing -= need[x]
                    need[x] = 0
                hi -= run2
                one_by_one += run + run2
                nrem = -1
            else:
                if nrem < 0:
                    nrem = 0
                    for v in range(c):
                        if need[v]:
                            rem[nrem] = v
                            nrem += 1
                # A chunk from the low end (parts lo.., partners descending), then one from the high end;
                # both read ascending thanks to the reversed copy. Each missing value is then looked for
                # in the chunk a machine word at a time (a lane equal to it is a zero lane of the XOR).
                for side in range(2):
                    _split_chunk(xb, vals, rev, lo, hi, m, last, side)
                    j = 0
                    while j < nrem:
                        v = rem[j] * low
                        acc = np.uint64(0)
                        for t in range(nwords):
                            x = words[np.uint64(t)] ^ v
                            acc |= (x - low) & ~x & high
                        if acc != np.uint64(0):
                            need[rem[j]] = 0
                            missing -= 1
                            nrem -= 1
                            rem[j] = rem[nrem]
                        else:
                            j += 1
                lo += SPLIT_CHUNK
                hi -= SPLIT_CHUNK
                chunks += 2
            bounds[2 * q] = lo
            bounds[2 * q + 1] = hi
            if missing == 0:
                break
        if not moved:
            break
    stats[1] += one_by_one
    stats[2] += marked * SPLIT_CHUNK
    stats[5] += chunks * SPLIT_CHUNK
    return missing


@numba.njit(cache=True, nogil=True)
def rare_common_fill_nb(
    out: NDArray[np.uint32],
    vals: Compact,
    rev: Compact,
    start: int,
    whole: NDArray[np.int64],
    one: NDArray[np.int64],
    two: NDArray[np.int64],
    unequal: bool,
    mask: int,
    flip: int,
    heap_parity: int,
    room: int,
    batch: int,
    tail: int,
    lanes: NDArray[np.uint64],
    known: bool,
    stats: NDArray[np.int64],
) -> int:
    """Fill out[start:] by the rare/common method; returns how far it got (len(out), or just past the
    first value of `room` or more: the caller then calls again with more room).

    `vals` (uint8 or uint16) holds out[:start] and `rev` the same reversed (rev[len - 1 - p] = out[p]);
    both are kept up to date. `room` is a power of two (at least 8) above every value of out[:start].
    `lanes` holds the word of ones in every lane of vals' type and the word of every lane's top bit.
    With `known`, out[start:] already holds the values and step 2 is skipped (phase timings only).
    `stats` adds up: [0] rare × common pairs; splits read by step 2 [1] one by one, [2] in marked
    chunks and [5] in compared chunks; [3] heaps that needed step 2, [4] heaps whose value step 2
    found missing (rare values).
    `two` must be non-empty and, when heap_parity is 1, hold numbers of a single parity.
    """
    size = 2 * room
    usize = np.uint64(size)
    words = size // 8
    total = len(out)
    last = total - 1
    odd = parity_table(size, mask)
    # other[t * size + x] = 1 where x is not of class t: those bytes count as seen when looking for
    # class t.
    other = np.zeros(2 * size, dtype=np.uint8)
    for x in range(size):
        other[x] = odd[x]
        other[size + x] = 1 - odd[x]
    other64 = other.view(np.uint64)
    rare_at = np.empty(max(total, 1), dtype=np.int64)
    rare_value = np.empty(max(total, 1), dtype=np.int64)
    nrare = 0
    # Split parts only: heap 0 never is one, so it stays out even where rare_count counts it as rare.
    for p in range(1, start):
        if (odd[out[p]] ^ flip ^ (heap_parity & p)) & 1:
            rare_at[nrare] = p
            rare_value[nrare] = out[p]
            nrare += 1
    # One row of seen option values per heap of the batch, flat.
    seen = np.zeros(batch * size, dtype=np.uint8)
    seen64 = seen.view(np.uint64)
    need = np.zeros(size, dtype=np.uint8)
    rem = np.empty(size, dtype=np.uint64)
    xb = np.empty(SPLIT_CHUNK, dtype=vals.dtype)
    bounds = np.empty(2 * len(two), dtype=np.int64)
    ones = np.uint64(0x0101010101010101)
    n = start
    while n < total:
        nb = min(batch, total - n)
        seen[: nb * size] = 0
        before = nrare
        # Step 1 for the whole batch: rare parts found before it, partners below n; a rare part's
        # partners for consecutive heaps are consecutive values.
        pairs = 0
        for k in two:
            m0 = n - k
            for j in range(before):
                a = rare_at[j]
                lo = a + 1 - m0  # the partner m0 + i - a is at least 1 from heap n + lo on...
                if lo >= nb:
                    break
                if lo < 0:
                    lo = 0
                hi = min(nb, a + k)  # ...and below n up to heap n + hi - 1
                if lo >= hi:
                    continue
                u = np.uint64(rare_value[j])
                base = np.uint64(m0 - a)  # may wrap: base + i does not
                equal = 2 * a - m0
                if unequal and lo <= equal < hi:
                    for i in range(lo, hi):
                        if i != equal:
                            ui = np.uint64(i)
                            seen[ui * usize + (u ^ np.uint64(vals[base + ui]))] = 1
                    pairs += hi - lo - 1
                else:
                    for i in range(lo, hi):
                        ui = np.uint64(i)
                        seen[ui * usize + (u ^ np.uint64(vals[base + ui]))] = 1
                    pairs += hi - lo
        for i in range(nb):
            nn = n + i
            row = i * size
            for k in whole:
                if nn == k:
                    seen[row] = 1
            for k in one:
                if nn > k:
                    seen[row + vals[nn - k]] = 1
            for k in two:
                m = nn - k
                # Rare parts found before the batch whose partner lies in it (a <= i - k)...
                for j in range(before):
                    a = rare_at[j]
                    if a > i - k:
                        break
                    b = m - a
                    if b < 1 or (unequal and a == b):
                        continue
                    seen[row + (rare_value[j] ^ vals[b])] = 1
                    pairs += 1
                # ...and rare parts found in the batch.
                for j in range(before, nrare):
                    a = rare_at[j]
                    b = m - a
                    if b < 1:
                        break
                    if unequal and a == b:
                        continue
                    seen[row + (rare_value[j] ^ vals[b])] = 1
                    pairs += 1
            # c: the first unseen byte of the target class (bytes of the other class count as seen).
            target = 1 ^ (heap_parity & (nn - two[0]) & 1)
            rw = i * words
            skip = target * words
            w = 0
            x = seen64[rw] | other64[skip]
            while x == ones:
                w += 1
                x = seen64[rw + w] | other64[skip + w]
            c = 8 * w
            while x & np.uint64(0xFF):
                x >>= np.uint64(8)
                c += 1
            # No option reaches `room`: it is unseen, so it bounds the mex too (and values from it on
            # are never looked for: they do not fit the lanes of the compact copies).
            if c > room:
                c = room
                w = room // 8
            # The values of the other class below c that step 1 did not see.
            keep = (1 - target) * words
            missing = 0
            for w2 in range(w + 1):
                if seen64[rw + w2] | other64[keep + w2] != ones:
                    for v in range(8 * w2, min(8 * w2 + 8, c)):
                        if seen[row + v] == 0 and odd[v] != target:
                            need[v] = 1
                            missing += 1
            g = c
            if missing > 0:
                stats[3] += 1
                if known:
                    need[:c] = 0
                    g = int(out[nn])
                else:
                    missing = _check_nb(
                        vals, rev, nn, two, unequal, need, missing, c, tail, rem, xb, bounds, lanes, stats
                    )
                    if missing > 0:
                        stats[4] += 1
                        g = 0
                        while need[g] == 0:
                            g += 1
                        need[:c] = 0
            out[nn] = g
            vals[nn] = g
            rev[last - nn] = g
            if nn > 0 and (odd[g] ^ flip ^ (heap_parity & nn)) & 1:
                rare_at[nrare] = nn
                rare_value[nrare] = g
                nrare += 1
            if g >= room:
                stats[0] += pairs
                return nn + 1
        stats[0] += pairs
        n += nb
    return total
