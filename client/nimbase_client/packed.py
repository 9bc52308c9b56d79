"""Packed repeated integer fields of protobuf messages, written from numpy arrays.

A million heaps put into a repeated field one Python int at a time (`extend(array.tolist())`) cost about
70 ms; encoded here as whole arrays they cost a few. The bytes are protobuf's own: a field's tag, its
length, then each value as a base-128 varint, so the receiver parses them as the message it expects.
Needs numpy (imported only by the columnar call, like the rest of the client's numpy use).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

#: Protobuf's wire type of a length-delimited field (a packed repeated field is one).
LENGTH_DELIMITED = 2


def varints(values: NDArray[Any]) -> bytes:
    """Unsigned integers (each below 2^64) as concatenated base-128 varints: seven bits a byte, least
    significant first, the high bit set on every byte but each value's last."""
    values = np.asarray(values)
    if len(values) == 0:
        return b""
    top = int(values.max())
    width = max(1, (top.bit_length() + 6) // 7)
    if width == 1:  # every value below 128 (the Grundy values of most games): one byte each
        return values.astype(np.uint8).tobytes()
    # Heaps below 2^32 (nearly all) are shifted as 32-bit integers: half the memory to go through.
    v = values.astype(np.uint32 if top < 1 << 32 else np.uint64, copy=False)
    # Column k holds each value's k-th group of seven bits, its high bit set where a later group is not
    # zero; a value's bytes are its columns up to its last non-zero group (at least one).
    groups = np.empty((len(v), width), dtype=np.uint8)
    keep = np.empty((len(v), width), dtype=bool)
    keep[:, 0] = True
    part = v
    for k in range(width):
        column = groups[:, k]
        np.bitwise_and(part, 0x7F, out=column, casting="unsafe")
        if k + 1 < width:
            part = np.right_shift(part, 7)
            more = np.not_equal(part, 0, out=keep[:, k + 1])
            column |= more.view(np.uint8) << 7
    return groups[keep].tobytes()


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (a string, bytes, or a packed repeated field's values): tag, length,
    payload. An empty packed field is left out, as protobuf leaves it."""
    if not payload:
        return b""
    head = np.array([number << 3 | LENGTH_DELIMITED, len(payload)], dtype=np.uint64)
    return varints(head) + payload


def uint_field(number: int, values: NDArray[Any]) -> bytes:
    """A packed repeated uint32 or uint64 field holding `values`."""
    return field(number, varints(values))
