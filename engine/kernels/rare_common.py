"""The rare/common ("sparse space") method for octal-style games with split moves.

Gangolli and Plambeck (and Flammenkamp for Grundy's game) observed that for many of these games a
bit mask m splits the values into *common* ones (popcount(g & m) even) and *rare* ones (odd), the rare
ones being very few. Parity of popcount(· & m) is linear over XOR, so the value g(a) ^ g(b) of a split
is rare exactly when one of g(a), g(b) is rare and the other common. Hence, for a heap of size n:

1. every rare option value comes from a split with a rare part: iterating over the (few) heap sizes
   with rare values finds all rare options in O(rare count), and c = the smallest rare value that is
   not an option is an upper bound of g(n);
2. g(n) is c unless some common value below c is missing from the options; common options come from
   common-common splits, scanned only until every common value below c has been seen (usually after a
   handful of splits, because the common values are dense among the options).

Both steps are exact for any mask; the mask only decides the speed. The driver picks the mask that
makes the computed values sparsest and falls back to the direct kernel when nothing is sparse.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numpy.typing import NDArray

from engine.kernels.octal import SplitRules, checked_prefix, direct_extend, direct_extend_nb, value_capacity

#: Values computed per kernel call, at least, once there are as many; between calls the driver may
#: choose a better mask.
CHUNK = 1 << 16
#: The method pays off while at most this fraction of the values is rare (see `sparse_choice`).
MAX_RARE_FRACTION = 0.125
#: Masks are chosen among the bits of the values seen; wider values use their low bits only.
MAX_MASK_BITS = 10
#: Values computed directly before a mask is chosen (too few to show any sparseness).
WARMUP = 1024


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


def choose_sparseness(values: NDArray[np.uint32], two: tuple[int, ...]) -> Sparseness:
    """The classification making the fewest heap sizes rare (ties: smallest mask, no heap parity).

    Only classifications whose common values have the parity that mixed splits produce are worth
    anything: then the mex is usually found in step 1 and step 2 only confirms it. That fixes `flip`
    to 1 ^ (heap_parity * k) for split moves removing k tokens; heap parity needs all such k of one
    parity.
    """
    if len(values) == 0 or not two:
        return Sparseness(1, 1, 0, len(values))
    top = int(values.max())
    bits = min(max(top.bit_length(), 1), MAX_MASK_BITS)
    size = 1 << bits
    vals = np.arange(size, dtype=np.int64)
    # Heap 0 counts like any other (the literature's convention), though it is never part of a split.
    low = (values & np.uint32(size - 1)).astype(np.int64)
    odd_sizes = (np.arange(len(values)) & 1).astype(bool)
    hist_odd = np.bincount(low[odd_sizes], minlength=size)
    hist_even = np.bincount(low[~odd_sizes], minlength=size)
    best = Sparseness(1, 1, 0, len(values) + 1)
    parities = (0, 1) if len({k & 1 for k in two}) == 1 else (0,)
    for mask in range(1, size):
        odd = (np.bitwise_count(vals & mask) & 1) == 1
        odd_at_even = int(hist_even[odd].sum())
        odd_at_odd = int(hist_odd[odd].sum())
        n_even, n_odd = int(hist_even.sum()), int(hist_odd.sum())
        for hp in parities:
            flip = 1 ^ (hp & two[0] & 1)
            # rare(n) = odd(g(n)) ^ flip ^ (hp & n)
            rare_even = odd_at_even if flip == 0 else n_even - odd_at_even
            rare_odd = odd_at_odd if (flip ^ hp) == 0 else n_odd - odd_at_odd
            if rare_even + rare_odd < best.rare:
                best = Sparseness(mask, flip, hp, rare_even + rare_odd)
    return best


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
def rare_common_extend_nb(
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
) -> int:
    """Fill out[start:] by the rare/common method; returns how many splits the common scans read.

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


def _fill_rare_common(out: NDArray[np.uint32], start: int, rules: SplitRules, how: Sparseness) -> None:
    """Fill out[start:] in place by the rare/common method under `how` (out[:start] is known)."""
    whole, one, two = rules.arrays()
    top = int(out[:start].max()) if start else 0
    capacity = 2 * max(value_capacity(out[:start]), 1 << how.mask.bit_length(), 1 << (top.bit_length() + 1))
    rare_common_extend_nb(
        out, start, whole, one, two, rules.unequal, how.mask, how.flip, how.heap_parity, capacity
    )


def _fill_direct(out: NDArray[np.uint32], start: int, rules: SplitRules) -> None:
    """Fill out[start:] in place by the direct method (out[:start] is known)."""
    whole, one, two = rules.arrays()
    direct_extend_nb(out, start, whole, one, two, rules.unequal, value_capacity(out[:start]))


def rare_common_chunk(
    prefix: NDArray[np.uint32], stop: int, rules: SplitRules, how: Sparseness
) -> NDArray[np.uint32]:
    """The first `stop` values by the rare/common method under `how` (exact for any classification)."""
    if how.mask <= 0 or not rules.two:
        raise ValueError(f"rare/common needs a positive mask and split moves, got {how} for {rules}")
    if how.heap_parity and len({k & 1 for k in rules.two}) > 1:
        raise ValueError(f"heap parity classification needs split moves of one parity, got {rules.two}")
    prefix = checked_prefix(prefix, stop)
    if stop <= len(prefix):
        return prefix[:stop].copy()
    out = np.zeros(stop, dtype=np.uint32)
    out[: len(prefix)] = prefix
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
    prefix: NDArray[np.uint32], stop: int, rules: SplitRules, chunk: int = CHUNK
) -> NDArray[np.uint32]:
    """The first `stop` values: rare/common chunk by chunk where the values are sparse, else direct.

    The classification is re-chosen before every chunk from the values computed so far, so a sequence
    whose sparse space only shows after a while still gets it. Chunks double up to `chunk`, then grow
    by a quarter of the values so far: re-choosing reads every value, and a fixed chunk would make
    that (and the kernel's own pass over the prefix) quadratic.
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
        else:
            _fill_rare_common(out[:upto], done, rules, how)
        done = upto
    return out
