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

The classification and its choice are in `kinds.heaps.kernels.rare_mask`, the batched kernel in
`kinds.heaps.kernels.rare_common_fill` (with how it spends its time), the kernel of wide values (2^16
and more) in `kinds.heaps.kernels.rare_common_wide`.
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import NDArray

from kinds.heaps.kernels.octal import (
    SplitRules,
    checked_prefix,
    direct_extend,
    direct_extend_nb,
    value_capacity,
)
from kinds.heaps.kernels.rare_common_fill import BATCH_BYTES, TAIL, Compact, rare_common_fill_nb
from kinds.heaps.kernels.rare_common_wide import rare_common_extend_wide_nb
from kinds.heaps.kernels.rare_mask import Sparseness, choose_sparseness

#: Values computed per kernel call, at least, once there are as many; between calls the driver may
#: choose a better mask.
CHUNK = 1 << 16
#: The method pays off while at most this fraction of the values is rare (see `sparse_choice`).
MAX_RARE_FRACTION = 0.125
#: Values computed directly before a mask is chosen (too few to show any sparseness).
WARMUP = 1024
#: Values from 2^16 on take the kernel of wide values (rows of seen values would no longer be small).
MAX_ROOM = 1 << 16

#: Per lane type of the compact values: a one in every lane, and every lane's top bit.
_LANES_8 = np.array([0x0101010101010101, 0x8080808080808080], dtype=np.uint64)
_LANES_16 = np.array([0x0001000100010001, 0x8000800080008000], dtype=np.uint64)


def _room_for(top: int) -> int:
    """The kernel's room for values up to `top`: a power of two above it, at least 8."""
    return max(8, 1 << top.bit_length())


def fill_rare_common(
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
            rare_common_extend_wide_nb(
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


#: Heaps of the game `load_every_width` plays, past the 256 values of the narrowest copies.
_WIDTH_HEAPS = 320


@functools.cache
def load_every_width() -> None:
    """Run the rare/common kernel once with each width of value copies it takes (uint8, then uint16):
    a sequence reaches the wider one only after seconds of computing (0.6 past 10^5 heaps), which a
    process's warm-up must not spend. The game: remove any number of tokens, or one and split the rest
    in two, whose value at n is n (every smaller heap is one move away; no split of n - 1 tokens makes
    n), so its values pass 255 within a few hundred heaps; checked, as the kernel is exact whatever the
    classification."""
    heaps = tuple(range(1, _WIDTH_HEAPS + 1))
    rules = SplitRules(whole=heaps, one=heaps, two=(1,))
    for start in (8, _WIDTH_HEAPS - 8):
        values = rare_common_chunk(np.arange(start, dtype=np.uint32), _WIDTH_HEAPS, rules, Sparseness(1, 1))
        if not np.array_equal(values, np.arange(_WIDTH_HEAPS, dtype=np.uint32)):
            raise AssertionError("the rare/common kernel valued n-token heaps of its loading game wrongly")


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
    fill_rare_common(out, len(prefix), rules, how)
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

    The classification is re-chosen before every chunk from the values computed so far (the kernel
    re-classifies the values below the chunk under it), so a sequence whose sparse space only shows
    after a while still gets it. Chunks double up to `chunk`, then grow by a quarter of the values so
    far: re-choosing reads every value, and a fixed chunk would make that (and the kernel's own pass
    over the prefix) quadratic.
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
            fill_rare_common(out[:upto], done, rules, how)
        done = upto
    return out
