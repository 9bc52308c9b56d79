"""The rare/common ("sparse space") method for octal-style games with split moves.

Gangolli and Plambeck (and Flammenkamp for Grundy's game) observed that for many of these games a
bit mask m splits the values into *common* ones (popcount(g & m) even) and *rare* ones (odd), the rare
ones being very few. Parity of popcount(· & m) is linear over XOR, so the value g(a) ^ g(b) of a split
is rare exactly when one of g(a), g(b) is rare and the other common. Hence, for a heap of size n:

1. the rare × common pass: every option value of the "target" class (the class that mixed splits
   produce) comes from a split with a rare part, so iterating over the (few) rare heap sizes finds all
   of them in O(rare count), and c = the smallest target-class value that is not an option is an upper
   bound of g(n);
2. the check of rare candidates: g(n) is c unless some value of the other class below c is missing
   from the options; those come from common-common splits, read only until every such value below c
   has been seen.

Both steps are exact for any mask; the mask only decides the speed. The driver picks the mask that
makes the computed values sparsest (a Walsh-Hadamard transform of the value counts gives every mask's
rare count at once) and falls back to the direct kernel when nothing is sparse.

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

import time
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numpy.typing import NDArray

from engine.kernels.octal import SplitRules, checked_prefix, direct_extend, direct_extend_nb, value_capacity

#: The compact copies of the values (uint8 or uint16).
Compact = NDArray[np.unsignedinteger[Any]]

#: Values computed per kernel call, at least, once there are as many; between calls the driver may
#: choose a better mask.
CHUNK = 1 << 16
#: The method pays off while at most this fraction of the values is rare (see `sparse_choice`).
MAX_RARE_FRACTION = 0.125
#: Masks are chosen among this many low bits of the values (plus the heap-parity bit); wider values
#: use their low bits only (any mask is exact).
MAX_MASK_BITS = 16
#: Values computed directly before a mask is chosen (too few to show any sparseness).
WARMUP = 1024
#: Splits per chunk of step 2 (from each end).
SPLIT_CHUNK = 256
#: Step 2 goes from clearing the values of whole chunks to comparing chunks with each missing value
#: once at most this many are missing (tuned on Grundy's game and 0.6: flat between 4 and 12).
TAIL = 6
#: Bytes of the `seen` rows of one batch of step 1 (kept within the L1 cache): the batch is this many
#: bytes over the row size (twice the room of the values), between 8 and 64 heaps.
BATCH_BYTES = 1 << 15
#: Values from 2^16 on take the previous kernel (rows of seen values would no longer be small).
MAX_ROOM = 1 << 16


@dataclass(frozen=True, slots=True)
class Sparseness:
    """Which heap sizes count as rare: those whose popcount(g(n) & mask) + flip + heap_parity * n is odd.

    `flip` (an affine shift) and `heap_parity` keep the XOR rule intact: for a split a + b = m, the
    rare-ness of a and b adds up to the parity of the option value, shifted by heap_parity * m.
    `rare` is how many of the values it was chosen on are rare, heap 0 included (see `rare_count`).
    """

    mask: int
    flip: int = 0
    heap_parity: int = 0
    rare: int = 0


def rare_flags(values: NDArray[np.uint32], how: Sparseness) -> NDArray[np.bool_]:
    """Which heap sizes are rare under `how`, heap 0 included (it is classified like any other)."""
    odd = np.bitwise_count(values & np.uint32(how.mask)).astype(np.int64) & 1
    sizes = np.arange(len(values), dtype=np.int64)
    flags: NDArray[np.bool_] = ((odd ^ how.flip ^ (how.heap_parity & sizes)) & 1).astype(np.bool_)
    return flags


def walsh_hadamard(counts: NDArray[np.int64]) -> NDArray[np.int64]:
    """The Walsh-Hadamard transform: out[s] = sum over x of counts[x] * (-1)^popcount(s & x).

    len(counts) must be a power of two; O(len log len) additions.
    """
    size = len(counts)
    if size & (size - 1) or size == 0:
        raise ValueError(f"the transform needs a power-of-two length, got {size}")
    out = np.array(counts, dtype=np.int64)
    half = 1
    while half < size:
        pairs = out.reshape(-1, 2, half)
        low, high = pairs[:, 0, :].copy(), pairs[:, 1, :]
        pairs[:, 0, :] += high
        pairs[:, 1, :] = low - high
        half *= 2
    return out


def odd_counts(values: NDArray[np.uint32], bits: int) -> NDArray[np.int64]:
    """For every mask s < 2^(bits + 1): how many n have popcount(s & key(n)) odd, where key(n) is the
    low `bits` bits of g(n) with the heap parity n & 1 as bit `bits`. One transform of the key counts:
    the transform at s is (even - odd) = len - 2 * odd."""
    keys = (values & np.uint32((1 << bits) - 1)).astype(np.int64)
    keys |= (np.arange(len(values), dtype=np.int64) & 1) << bits
    counts = np.bincount(keys, minlength=1 << (bits + 1)).astype(np.int64)
    odd: NDArray[np.int64] = (len(values) - walsh_hadamard(counts)) // 2
    return odd


def choose_sparseness(values: NDArray[np.uint32], two: tuple[int, ...]) -> Sparseness:
    """The classification making the fewest heap sizes rare (ties: fewest mask bits, then smallest).

    Every mask over the values' bits (up to MAX_MASK_BITS) is tried, with the heap parity as an extra
    bit where all split moves remove a number of tokens of one parity (otherwise the classes of mixed
    splits would differ from move to move). Only classifications whose common values have the class
    that mixed splits produce are worth anything (then the mex is usually found in step 1 and step 2
    only confirms it), which fixes `flip` to 1 ^ (heap_parity * k) for split moves removing k tokens.
    """
    if len(values) == 0 or not two:
        return Sparseness(1, 1, 0, len(values))
    top = int(values.max())
    bits = min(max(top.bit_length(), 1), MAX_MASK_BITS)
    odd = odd_counts(values, bits)
    masks = np.arange(len(odd), dtype=np.int64)
    heap_parity = masks >> bits
    flip = 1 ^ (heap_parity & two[0] & 1)
    # rare(n) = odd(key(n) & s) ^ flip: the odd ones when flip is 0, the even ones when it is 1.
    rare = np.where(flip == 1, len(values) - odd, odd)
    usable = (masks & ((1 << bits) - 1)) != 0
    if len({k & 1 for k in two}) > 1:
        usable &= heap_parity == 0
    order = np.lexsort((masks, np.bitwise_count(masks), np.where(usable, rare, len(values) + 1)))
    best = int(order[0])
    return Sparseness(best & ((1 << bits) - 1), int(flip[best]), int(heap_parity[best]), int(rare[best]))


def choose_sparseness_direct(values: NDArray[np.uint32], two: tuple[int, ...]) -> Sparseness:
    """`choose_sparseness` by counting every classification directly (the tests' reference)."""
    if len(values) == 0 or not two:
        return Sparseness(1, 1, 0, len(values))
    bits = min(max(int(values.max()).bit_length(), 1), MAX_MASK_BITS)
    parities = (0, 1) if len({k & 1 for k in two}) == 1 else (0,)
    best: tuple[int, int, int] | None = None
    choice = Sparseness(1, 1, 0, len(values) + 1)
    for heap_parity in parities:
        for mask in range(1, 1 << bits):
            how = Sparseness(mask, 1 ^ (heap_parity & two[0] & 1), heap_parity)
            rare = int(rare_flags(values, how).sum())
            key = (rare, mask.bit_count() + heap_parity, mask | (heap_parity << bits))
            if best is None or key < best:
                best = key
                choice = Sparseness(mask, how.flip, heap_parity, rare)
    return choice


def rare_count(values: NDArray[np.uint32], how: Sparseness) -> int:
    """How many heap sizes are rare under `how`; heap 0 counts, as in the published tables."""
    return int(rare_flags(values, how).sum())


def last_rare_at(values: NDArray[np.uint32], how: Sparseness) -> int | None:
    """The largest heap size that is rare under `how` (0 if only heap 0 is), or None."""
    rare = np.nonzero(rare_flags(values, how))[0]
    return int(rare[-1]) if len(rare) else None


@numba.njit(cache=True, nogil=True)
def _parity(x: int) -> int:
    p = 0
    while x:
        p ^= 1
        x &= x - 1
    return p


@numba.njit(cache=True, nogil=True)
def _parity_table(size: int, mask: int) -> NDArray[np.uint8]:
    table = np.zeros(size, dtype=np.uint8)
    for v in range(size):
        table[v] = _parity(v & mask)
    return table


@numba.njit(cache=True, nogil=True)
def _room(g: int) -> int:
    """A stamp size with spare values of both parities above every XOR of values up to g."""
    need = 1
    while need <= g:
        need <<= 1
    return 4 * need


@numba.njit(cache=True, nogil=True)
def rare_common_extend_previous_nb(
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
    """The previous kernel (kept for values of 2^16 and more, and as the benchmarks' comparison).

    Fills out[start:] heap by heap; returns how many splits the common scans read. With `known`,
    out[start:] already holds the values and the check of step 2 is skipped (phase timings only).
    `two` must be non-empty and, when heap_parity is 1, hold numbers of a single parity.
    """
    size = capacity
    stamp = np.full(size, -1, dtype=np.int64)
    odd = _parity_table(size, mask)
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
                    v = out[lo] ^ out[m - lo]
                    if need[v]:
                        need[v] = 0
                        stamp[v] = n
                        missing -= 1
                        if missing == 0:
                            read = lo + last - hi
                            break
                    lo += 1
                    if lo > hi:
                        break
                    v = out[hi] ^ out[m - hi]
                    if need[v]:
                        need[v] = 0
                        stamp[v] = n
                        missing -= 1
                        if missing == 0:
                            read = lo + last - hi
                            break
                    hi -= 1
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
            odd = _parity_table(size, mask)
            need = np.zeros(size, dtype=np.uint8)
    return scanned


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
                    if side == 0:
                        p = np.uint64(lo)
                        r = np.uint64(last - m + lo)
                    else:
                        p = np.uint64(m - hi)
                        r = np.uint64(last - hi)
                    for t in range(SPLIT_CHUNK):
                        ut = np.uint64(t)
                        xb[ut] = vals[p + ut] ^ rev[r + ut]
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
                    if side == 0:
                        p = np.uint64(lo)
                        r = np.uint64(last - m + lo)
                    else:
                        p = np.uint64(m - hi)
                        r = np.uint64(last - hi)
                    for t in range(SPLIT_CHUNK):
                        ut = np.uint64(t)
                        xb[ut] = vals[p + ut] ^ rev[r + ut]
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
    odd = _parity_table(size, mask)
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


#: Per lane type of the compact values: a one in every lane, and every lane's top bit.
_LANES_8 = np.array([0x0101010101010101, 0x8080808080808080], dtype=np.uint64)
_LANES_16 = np.array([0x0001000100010001, 0x8000800080008000], dtype=np.uint64)


def _room_for(top: int) -> int:
    """The kernel's room for values up to `top`: a power of two above it, at least 8."""
    return max(8, 1 << top.bit_length())


def _fill_rare_common(
    out: NDArray[np.uint32],
    start: int,
    rules: SplitRules,
    how: Sparseness,
    known: bool = False,
    stats: NDArray[np.int64] | None = None,
) -> None:
    """Fill out[start:] in place by the rare/common method under `how` (out[:start] is known).

    Values go into uint8 copies while they are below 256, uint16 ones below 2^16; a value past the
    room makes the kernel stop, and it is called again with more room (and rebuilt copies).
    """
    whole, one, two = rules.arrays()
    counters = np.zeros(8, dtype=np.int64) if stats is None else stats
    done = start
    top = int(out[:start].max()) if start else 0
    while done < len(out):
        room = _room_for(top)
        if room > MAX_ROOM:
            capacity = 2 * max(
                value_capacity(out[:done]), 1 << how.mask.bit_length(), 1 << (top.bit_length() + 1)
            )
            rare_common_extend_previous_nb(
                out,
                done,
                whole,
                one,
                two,
                rules.unequal,
                how.mask,
                how.flip,
                how.heap_parity,
                capacity,
                known,
            )
            return
        vals: Compact = out.astype(np.uint8) if room <= 256 else out.astype(np.uint16)
        rev = vals[::-1].copy()
        batch = max(8, min(64, BATCH_BYTES // (2 * room)))
        lanes = _LANES_8 if room <= 256 else _LANES_16
        done = rare_common_fill_nb(
            out,
            vals,
            rev,
            done,
            whole,
            one,
            two,
            rules.unequal,
            how.mask,
            how.flip,
            how.heap_parity,
            room,
            batch,
            TAIL,
            lanes,
            known,
            counters,
        )
        top = int(out[:done].max())


def _fill_previous(out: NDArray[np.uint32], start: int, rules: SplitRules, how: Sparseness) -> None:
    """Fill out[start:] by the previous kernel (the benchmarks' comparison)."""
    whole, one, two = rules.arrays()
    top = int(out[:start].max()) if start else 0
    capacity = 2 * max(value_capacity(out[:start]), 1 << how.mask.bit_length(), 1 << (top.bit_length() + 1))
    rare_common_extend_previous_nb(
        out, start, whole, one, two, rules.unequal, how.mask, how.flip, how.heap_parity, capacity
    )


def _fill_direct(out: NDArray[np.uint32], start: int, rules: SplitRules) -> None:
    """Fill out[start:] in place by the direct method (out[:start] is known)."""
    whole, one, two = rules.arrays()
    direct_extend_nb(out, start, whole, one, two, rules.unequal, value_capacity(out[:start]))


def rare_common_chunk(
    prefix: NDArray[np.uint32], stop: int, rules: SplitRules, how: Sparseness, previous: bool = False
) -> NDArray[np.uint32]:
    """The first `stop` values by the rare/common method under `how` (exact for any classification);
    `previous` takes the previous kernel."""
    if how.mask <= 0 or not rules.two:
        raise ValueError(f"rare/common needs a positive mask and split moves, got {how} for {rules}")
    if how.heap_parity and len({k & 1 for k in rules.two}) > 1:
        raise ValueError(f"heap parity classification needs split moves of one parity, got {rules.two}")
    prefix = checked_prefix(prefix, stop)
    if stop <= len(prefix):
        return prefix[:stop].copy()
    out = np.zeros(stop, dtype=np.uint32)
    out[: len(prefix)] = prefix
    if previous:
        _fill_previous(out, len(prefix), rules, how)
    else:
        _fill_rare_common(out, len(prefix), rules, how)
    return out


def sparse_choice(values: NDArray[np.uint32], two: tuple[int, ...]) -> Sparseness | None:
    """The classification the driver extends `values` with, or None for the direct method.

    The rare/common method reads about (number of rare heaps + a few splits) per split move and heap,
    the direct one n/2: measured on 0.6, it is as fast at 16% rare and twice as fast at 10%.
    """
    if len(values) < WARMUP or not two:
        return None
    how = choose_sparseness(values, two)
    return how if how.rare <= MAX_RARE_FRACTION * len(values) else None


def sparse_extend(
    prefix: NDArray[np.uint32], stop: int, rules: SplitRules, chunk: int = CHUNK, previous: bool = False
) -> NDArray[np.uint32]:
    """The first `stop` values: rare/common chunk by chunk where the values are sparse, else direct.

    The classification is re-chosen before every chunk from the values computed so far (the kernel
    re-classifies the values below the chunk under it), so a sequence whose sparse space only shows
    after a while still gets it. Chunks double up to `chunk`, then grow by a quarter of the values so
    far: re-choosing reads every value, and a fixed chunk would make that (and the kernel's own pass
    over the prefix) quadratic. `previous` takes the previous kernel (the benchmarks' comparison).
    """
    values = checked_prefix(prefix, stop)
    if stop <= len(values):
        return values[:stop].copy()
    if not rules.two:
        return direct_extend(values, stop, rules)
    out = np.zeros(stop, dtype=np.uint32)
    out[: len(values)] = values
    done = len(values)
    while done < stop:
        if done < WARMUP:
            upto = min(stop, WARMUP)
            how = None
        else:
            upto = min(stop, done + max(min(chunk, done), done // 4))
            how = sparse_choice(out[:done], rules.two)
        # Views of `out`: the kernels fill out[done:upto] in place.
        if how is None:
            _fill_direct(out[:upto], done, rules)
        elif previous:
            _fill_previous(out[:upto], done, rules, how)
        else:
            _fill_rare_common(out[:upto], done, rules, how)
        done = upto
    return out


@dataclass(frozen=True, slots=True)
class PhaseSplit:
    """Where one kernel's time goes on heaps start..stop-1 (CPU seconds of this process)."""

    total: float
    rare_common: float
    stats: tuple[int, ...]

    @property
    def check(self) -> float:
        """The check of rare candidates (step 2): the whole kernel less its rare × common pass."""
        return max(self.total - self.rare_common, 0.0)


def phase_split(
    values: NDArray[np.uint32], start: int, rules: SplitRules, how: Sparseness, previous: bool = False
) -> PhaseSplit:
    """Time the kernel on values[start:] (known, e.g. computed before), whole and without step 2.

    The whole run recomputes values[start:] from values[:start]; the second run is given the values
    and skips the check, so it times the rare × common pass (and the bookkeeping of both) alone.
    """
    whole_run = np.array(values, dtype=np.uint32)
    whole_run[start:] = 0
    stats = np.zeros(8, dtype=np.int64)
    t0 = time.process_time()
    if previous:
        _fill_previous(whole_run, start, rules, how)
    else:
        _fill_rare_common(whole_run, start, rules, how, stats=stats)
    total = time.process_time() - t0
    if not np.array_equal(whole_run, values):
        raise AssertionError("the kernel disagrees with the values it was timed on")
    given = np.array(values, dtype=np.uint32)
    whole, one, two = rules.arrays()
    t0 = time.process_time()
    if previous:
        top = int(given[:start].max()) if start else 0
        capacity = 2 * max(
            value_capacity(given[:start]), 1 << how.mask.bit_length(), 1 << (top.bit_length() + 1)
        )
        rare_common_extend_previous_nb(
            given, start, whole, one, two, rules.unequal, how.mask, how.flip, how.heap_parity, capacity, True
        )
    else:
        _fill_rare_common(given, start, rules, how, known=True)
    pass_only = time.process_time() - t0
    return PhaseSplit(total, pass_only, tuple(int(s) for s in stats))
