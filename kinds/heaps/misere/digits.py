"""Decimal heaps read and written eight bytes at a time (SWAR: the bytes of one 64-bit word handled
together), for the batch pass (`batch`).

Read a byte at a time, a 1,000-heap sum's 7 kB of text cost more than everything else the pass does
with it; written a byte (or two digits) at a time, its canonical text cost as much again. Here a heap of
up to seven digits is one unaligned 8-byte load, with the byte after it: the run of digits it starts
with is found from a mask of the bytes that are not digits (its trailing zero bits), and the digits
become the number by three multiplications on lanes of 8, 16 and 32 bits (the method simdjson's
parse_eight_digits_unrolled uses). A heap below 10^8 is written the other way: split into lanes of 4, 2
and 1 digits by multiplications by reciprocals, its leading zeros counted from the word, and stored as
one unaligned 8-byte store (the bytes past its last digit are written over by what follows, or lie in
the buffer's slack).

Words are little-endian: the first character is the lowest byte. `load8` and `store8` are numba
intrinsics (one LLVM load or store, alignment 1, swapped on a big-endian machine); every function has a
plain-Python reference below, which the tests compare with. Every input byte must be ASCII (below 0x80):
the digit mask adds 6 to each byte, which a byte from 0xFA up would carry into the next.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, cast

import numba
import numpy as np
from llvmlite import ir  # type: ignore[import-untyped]
from numba import types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic
from numpy.typing import NDArray

U8 = NDArray[np.uint8]
#: Bytes a buffer `load8` reads from must hold past the last position read, and `store8` writes to past
#: the last byte it keeps.
SLACK = 8
#: Largest heap `write_small` writes (eight digits).
SMALL = 10**8 - 1

_BIG_ENDIAN = sys.byteorder == "big"


def _pointer(context: Any, builder: Any, array_type: Any, array: Any, index: Any) -> Any:
    """An i64* to array[index] (uint8 array, no wraparound)."""
    made = context.make_array(array_type)(context, builder, array)
    pointer = cgutils.get_item_pointer(  # type: ignore[no-untyped-call]
        context, builder, array_type, made, [index], wraparound=False
    )
    return builder.bitcast(pointer, ir.IntType(64).as_pointer())


def _swap(builder: Any, word: Any) -> Any:
    """The word little-endian on a big-endian machine (LLVM's bswap), else itself."""
    if not _BIG_ENDIAN:
        return word
    i64 = ir.IntType(64)
    bswap = cgutils.get_or_insert_function(  # type: ignore[no-untyped-call]
        builder.module, ir.FunctionType(i64, [i64]), "llvm.bswap.i64"
    )
    return builder.call(bswap, [word])


@intrinsic
def _load8(typingctx: Any, array: Any, index: Any) -> Any:
    """array[index:index+8] (uint8) as a little-endian uint64, one unaligned load."""
    if not (isinstance(array, types.Array) and array.dtype == types.uint8):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        pointer = _pointer(context, builder, sig.args[0], args[0], args[1])
        return _swap(builder, builder.load(pointer, align=1))

    return types.uint64(array, index), codegen


@intrinsic
def _store8(typingctx: Any, array: Any, index: Any, word: Any) -> Any:
    """array[index:index+8] (uint8) = the little-endian bytes of `word` (uint64), one unaligned store."""
    if not (isinstance(array, types.Array) and array.dtype == types.uint8 and word == types.uint64):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        pointer = _pointer(context, builder, sig.args[0], args[0], args[1])
        builder.store(_swap(builder, args[2]), pointer, align=1)
        return context.get_dummy_value()

    return types.void(array, index, word), codegen


#: The intrinsics as the kernels call them (typed for the checker).
load8 = cast(Callable[[U8, int], np.uint64], _load8)
store8 = cast(Callable[[U8, int, np.uint64], None], _store8)
_ctz = cast(Callable[[np.uint64], int], trailing_zeros)

_HIGH = np.uint64(0xF0F0F0F0F0F0F0F0)
_ZEROS = np.uint64(0x3030303030303030)
_SIXES = np.uint64(0x0606060606060606)
_LANES_8 = np.uint64(0x00FF00FF00FF00FF)
_LANES_16 = np.uint64(0x0000FFFF0000FFFF)
_LANES_32 = np.uint64(0x00000000FFFFFFFF)


@numba.njit(cache=True, nogil=True, inline="always")
def digit_run(word: np.uint64) -> np.int64:
    """How many of the word's bytes, from the lowest, are ASCII digits before the first that is not (8
    where all are). A byte is a digit where its high nibble is 3 and stays 3 with 6 added."""
    w = np.uint64(word)
    mask = ((w & _HIGH) ^ _ZEROS) | (((w + _SIXES) & _HIGH) ^ _ZEROS)
    if mask == 0:
        return np.int64(8)
    return np.int64(_ctz(mask)) >> 3


@numba.njit(cache=True, nogil=True, inline="always")
def digits_value(word: np.uint64, length: int) -> np.int64:
    """The number the word's lowest `length` bytes (1..8, all digits) write."""
    w = (np.uint64(word) - _ZEROS) << np.uint64(64 - 8 * length)  # leading zero digits below them
    w = (w * np.uint64(10) + (w >> np.uint64(8))) & _LANES_8
    w = (w * np.uint64(100) + (w >> np.uint64(16))) & _LANES_16
    w = (w * np.uint64(10000) + (w >> np.uint64(32))) & _LANES_32
    return np.int64(w)


@numba.njit(cache=True, nogil=True, inline="always")
def small_text(x: int) -> tuple[np.uint64, np.int64]:
    """(the word whose lowest bytes are the decimal digits of 0 < x <= SMALL, how many there are)."""
    v = np.uint64(x)
    high = v // np.uint64(10000)
    w = high | ((v - high * np.uint64(10000)) << np.uint64(32))  # two lanes of 4 digits
    hundreds = ((w * np.uint64(10486)) >> np.uint64(20)) & np.uint64(0x0000007F0000007F)
    w = hundreds | ((w - hundreds * np.uint64(100)) << np.uint64(16))  # four lanes of 2 digits
    tens = ((w * np.uint64(103)) >> np.uint64(10)) & np.uint64(0x000F000F000F000F)
    w = tens | ((w - tens * np.uint64(10)) << np.uint64(8))  # eight digits, the first lowest
    skip = np.int64(_ctz(w)) >> 3  # leading zero digits
    return (w >> np.uint64(8 * skip)) | _ZEROS, 8 - skip


@numba.njit(cache=True, nogil=True, inline="always")
def write_small(out: U8, at: int, x: int) -> int:
    """Writes 0 < x <= SMALL in decimal from out[at] (out[at:at+8] must exist); the end."""
    word, length = small_text(x)
    store8(out, at, word)
    return int(at + length)


# -- plain-Python references ---------------------------------------------------------------------------


def load8_reference(data: bytes, index: int) -> int:
    return int.from_bytes(data[index : index + 8], "little")


def digit_run_reference(word: int) -> int:
    run = 0
    for byte in word.to_bytes(8, "little"):
        if not 48 <= byte <= 57:
            break
        run += 1
    return run


def digits_value_reference(word: int, length: int) -> int:
    return int(word.to_bytes(8, "little")[:length].decode("ascii"))


def small_text_reference(x: int) -> tuple[int, int]:
    text = str(x).encode("ascii")
    return int.from_bytes(text, "little"), len(text)
