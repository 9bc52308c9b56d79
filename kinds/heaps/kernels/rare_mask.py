"""Which heap sizes count as rare in the rare/common method, and the choice of that classification.

A classification is a bit mask (plus an affine flip and the heap-parity bit) under which popcount(g & mask)
splits the values into rare and common ones; any classification is exact, so the choice only decides the
speed. The kernels need the class of every value (`parity_table`); the driver needs the classification
making the fewest heap sizes rare, found by one Walsh-Hadamard transform of the value counts
(`choose_sparseness`) and checked against counting every mask directly (`choose_sparseness_direct`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numpy.typing import NDArray

#: Masks are chosen among this many low bits of the values (plus the heap-parity bit); wider values
#: use their low bits only (any mask is exact).
MAX_MASK_BITS = 16


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
    return _fewest_rare(odd_counts(values, bits), len(values), bits, two)


def choose_sparseness_counted(
    values: NDArray[np.int64], parities: NDArray[np.int64], counts: NDArray[np.int64], two: tuple[int, ...]
) -> Sparseness:
    """`choose_sparseness` of a sequence given as how many of its heaps n have each (g(n), n & 1): the
    same classification, from its statistics alone (kinds.heaps.stats), without the values."""
    total = int(counts.sum())
    if total == 0 or not two:
        return Sparseness(1, 1, 0, total)
    bits = min(max(int(values.max()).bit_length(), 1), MAX_MASK_BITS)
    keys = (values & ((1 << bits) - 1)) | (parities << bits)
    key_counts = np.bincount(keys, weights=counts, minlength=1 << (bits + 1)).astype(np.int64)
    odd: NDArray[np.int64] = (total - walsh_hadamard(key_counts)) // 2
    return _fewest_rare(odd, total, bits, two)


def _fewest_rare(odd: NDArray[np.int64], size: int, bits: int, two: tuple[int, ...]) -> Sparseness:
    """The classification of `choose_sparseness`, from `odd_counts` of `size` heaps."""
    masks = np.arange(len(odd), dtype=np.int64)
    heap_parity = masks >> bits
    flip = 1 ^ (heap_parity & two[0] & 1)
    # rare(n) = odd(key(n) & s) ^ flip: the odd ones when flip is 0, the even ones when it is 1.
    rare = np.where(flip == 1, size - odd, odd)
    usable = (masks & ((1 << bits) - 1)) != 0
    if len({k & 1 for k in two}) > 1:
        usable &= heap_parity == 0
    order = np.lexsort((masks, np.bitwise_count(masks), np.where(usable, rare, size + 1)))
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
def parity_table(size: int, mask: int) -> NDArray[np.uint8]:
    """The class of every value below `size` under `mask`: popcount(v & mask) & 1."""
    table = np.zeros(size, dtype=np.uint8)
    for v in range(size):
        table[v] = _parity(v & mask)
    return table
