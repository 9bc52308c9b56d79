"""Finding many codes in a sorted array at once, the memory's latency overlapped: the batched expansion's
(kinds.rules.fused) lookups of a tier's moves in the tier they lead to.

A tier's moves reach codes scattered over the next tier's sorted codes: looked up one after the other,
each waits for its cache misses (the bucket's start, the codes, the values). Looked up a batch at a time,
each stage first asks the memory for what the next stage reads (`prefetch`), so the misses of a batch
are waited for together. The index (`fine_index`) has about two buckets a code, int32: a code's bucket
holds a few codes (Connect Four's codes cluster: a coarser index's buckets held thirty on average), so
one or two cache lines hold it.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from llvmlite import ir  # type: ignore[import-untyped]
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from kinds.rules.tables import I32, I64

#: Buckets a code of the indexed array, times four (the index's size against the codes').
SPREAD = 8


@intrinsic
def prefetch(typingctx: Any, array: Any, index: Any) -> Any:
    """Asks the memory for `array[index]` without waiting for it (nothing where the processor has no
    prefetch; never a fault, whatever the index)."""
    signature = types.void(array, index)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        array_type = sig.args[0]
        made = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(  # type: ignore[no-untyped-call]
            context, builder, array_type, made, [args[1]], wraparound=False
        )
        byte = builder.bitcast(pointer, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(  # type: ignore[no-untyped-call]
            builder.module, ir.FunctionType(ir.VoidType(), [byte.type, i32, i32, i32]), "llvm.prefetch.p0"
        )
        # a read, kept in every cache level, of data
        builder.call(function, [byte, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return signature, codegen


@numba.njit(cache=True, nogil=True)
def fine_index(codes: I64) -> tuple[int, I32]:
    """(shift, starts) of sorted codes: the codes whose `code >> shift` is k are at starts[k]:starts[k+1],
    with about two buckets a code (int32: a tier of fewer than 2^31 positions)."""
    n = codes.shape[0]
    if n == 0:
        return 0, np.zeros(2, np.int32)
    if n >= 1 << 31:
        raise OverflowError("a tier of 2^31 positions or more is beyond the int32 index")
    top = codes[n - 1]
    want = max(n * SPREAD // 4, 1)
    shift = 0
    while (top >> shift) >= want:
        shift += 1
    count = (top >> shift) + 2
    starts = np.empty(count, np.int32)
    j = 0
    for k in range(count):
        while j < n and (codes[j] >> shift) < k:
            j += 1
        starts[k] = j
    return shift, starts


@numba.njit(cache=True, nogil=True, inline="always")
def bucket_of(code: int, shift: int, starts: I32) -> int:
    """The bucket `code` falls in (the first or the last for a code below or beyond every one)."""
    if code < 0:
        return 0
    k = code >> shift
    last = starts.shape[0] - 2
    return k if k < last else last


@numba.njit(cache=True, nogil=True, inline="always")
def find_in(codes: I64, code: int, lo: int, hi: int) -> int:
    """The index of `code` among codes[lo:hi] (sorted), or -1."""
    end = hi
    while hi - lo > 8:  # the first code not below `code` stays in lo..hi (hi: none before it)
        mid = (lo + hi) >> 1
        if codes[mid] < code:
            lo = mid + 1
        else:
            hi = mid
    while lo < hi and codes[lo] < code:
        lo += 1
    return lo if lo < end and codes[lo] == code else -1
