"""Numba decoding of a format-5 block's inflated planes into its DTM and DTZ, in one pass.

A block (kinds.chess.block_codec) inflates to four byte planes: the low and high bytes of each slot's
first code (DTM, dense or zigzag), then of its second code (the second metric's zigzag code, or its rank
beside DTM: kinds.chess.ranks), all of them possibly in the order of the last two men's squares swapped.
block_codec's numpy decoding makes an array for each of those steps (about ten arrays of the block's
size); this kernel reads each slot's four bytes and writes its two values. It is the hot path of a cold
block: every probe of a stored table that misses the block cache, and a BestMove's children. The numpy
decoding stays as the plain reference (`block_codec.decode_planes_reference`) the tests compare it with.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

I16 = NDArray[np.int16]
I32 = NDArray[np.int32]
U8 = NDArray[np.uint8]
U16 = NDArray[np.uint16]

#: What `decode_planes` returns: done, or the first inconsistency met.
DONE = 0
DTM_UNRANKED = 1  # a DTM value the ranks do not hold
RANK_PAST = 2  # a rank past its DTM value's pairs

#: Squares a man takes (a swapped block is whole 64 x 64 squares of its last two men).
_SQUARES = 64


@numba.njit(cache=True, nogil=True, inline="always")
def _unzigzag(c: np.int32) -> np.int32:
    return (c >> 1) ^ -(c & 1)


@numba.njit(cache=True, nogil=True, inline="always")
def _undense(c: np.int32) -> np.int32:
    return -c if c & 1 else (c - 1 if c > 0 else c)  # c: 0


@numba.njit(cache=True, nogil=True)
def decode_planes(
    raw: U8,
    k: int,
    dense: bool,
    swapped: bool,
    ranked: bool,
    delta: bool,
    least: int,
    counts: I32,
    starts: I32,
    seconds: U16,
    dtm: I16,
    dtz: I16,
) -> int:
    """DTM and DTZ of the `k` slots of inflated planes `raw` (4k bytes) into `dtm` and `dtz`: the first
    codes dense (else zigzag), the block's planes in swapped order, the second codes ranks (among
    `seconds` from `starts` per DTM value - `least`, `counts` of them), DTZ stored as DTM - DTZ (`delta`).
    Returns DONE, else DTM_UNRANKED or RANK_PAST for codes the ranks do not hold."""
    span = counts.shape[0]
    status = DONE
    for i in range(k):
        j = i
        if swapped:  # slot (b, x, y) of the block holds the codes of (b, y, x)
            b = i // (_SQUARES * _SQUARES)
            x = (i // _SQUARES) % _SQUARES
            y = i % _SQUARES
            j = (b * _SQUARES + y) * _SQUARES + x
        first = np.int32(raw[j]) | np.int32(raw[k + j]) << 8
        code = np.int32(raw[2 * k + j]) | np.int32(raw[3 * k + j]) << 8
        m = np.int16(_undense(first) if dense else _unzigzag(first))  # int16, wrapping as the reference
        if ranked:
            group = np.int64(m) - least
            if group < 0 or group >= span:
                return DTM_UNRANKED
            if code >= counts[group]:
                status = RANK_PAST  # said once every DTM value is found held, as `Ranks.second` says it
                continue
            code = np.int32(seconds[starts[group] + code])
        second = np.int16(_unzigzag(code))
        dtm[i] = m
        dtz[i] = np.int16(np.int32(m) - np.int32(second)) if delta else second
    return status
