"""Bit-packing of value chunks: the stored form of a sequence.

A chunk holds up to CHUNK_VALUES values packed at the smallest width in WIDTHS that fits its largest
value, little-endian (value i of a byte at bits (i % per_byte) * width). The bytes depend on the values
only, so a resumed computation stores exactly what an uninterrupted one would. An object whose bytes are
compressed already is stored as plain words instead (`encode_plain`), for reads of a range alone.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
from numpy.typing import NDArray

from storage.errors import InvalidPayload

#: Values per stored chunk.
CHUNK_VALUES = 65536
#: The widths (bits per value) a chunk may use.
WIDTHS: tuple[int, ...] = (0, 1, 2, 4, 8, 16, 32)

_WIDE_DTYPES: dict[int, np.dtype[np.unsignedinteger[Any]]] = {
    8: np.dtype("<u1"),
    16: np.dtype("<u2"),
    32: np.dtype("<u4"),
}


def width_for(max_value: int) -> int:
    """The smallest width in WIDTHS holding `max_value`."""
    bits = int(max_value).bit_length()
    for width in WIDTHS:
        if bits <= width:
            return width
    raise ValueError(f"value {max_value} does not fit 32 bits")


def packed_size(width: int, count: int) -> int:
    """Bytes a chunk of `count` values takes at `width` bits each."""
    return (width * count + 7) // 8


def pack(values: NDArray[np.uint32]) -> tuple[int, bytes]:
    """(width, payload) for `values`, packed at their minimal width."""
    arr = np.ascontiguousarray(values, dtype=np.uint32)
    if arr.size == 0:
        return 0, b""
    width = width_for(int(arr.max()))
    if width == 0:
        return 0, b""
    if width >= 8:
        return width, arr.astype(_WIDE_DTYPES[width]).tobytes()
    per_byte = 8 // width
    padded = np.zeros(-(-arr.size // per_byte) * per_byte, dtype=np.uint8)
    padded[: arr.size] = arr
    shifts = (np.arange(per_byte, dtype=np.uint8) * width).astype(np.uint8)
    packed = np.bitwise_or.reduce(padded.reshape(-1, per_byte) << shifts, axis=1)
    return width, packed.astype(np.uint8).tobytes()


#: How a chunk's bit-packed bytes are stored: as they are, or deflated where that saves a tenth
#: (sequences without a period, like Grundy's game, have far fewer distinct values than their width).
RAW, DEFLATE = 0, 1
CODECS: tuple[int, ...] = (RAW, DEFLATE)
#: Packed payloads shorter than this are stored raw: deflating them saves nothing worth a call.
_DEFLATE_FROM = 512


def encode(values: NDArray[np.uint32]) -> tuple[int, int, bytes]:
    """(width, codec, payload) for `values`: bit-packed, then deflated when that is clearly smaller.

    zlib at a fixed level is deterministic, so stored bytes still depend on the values only.
    """
    width, packed = pack(values)
    if len(packed) >= _DEFLATE_FROM:
        deflated = zlib.compress(packed, 6)
        if len(deflated) * 10 < len(packed) * 9:
            return width, DEFLATE, deflated
    return width, RAW, packed


#: The width of a chunk stored as plain words (`encode_plain`): with the RAW codec, its payload is the
#: values as little-endian uint32, value i at bytes 4i..4i+4, so a byte range of it is a range of values.
PLAIN_WIDTH = 32


def encode_plain(values: NDArray[np.uint32]) -> tuple[int, int, bytes]:
    """(width, codec, payload) for `values` stored as plain words: neither bit-packed nor deflated, so that
    a reader may take any range of them from the database without the rest (`is_plain`). For objects whose
    bytes are compressed already (by their kind), where deflating saves nothing anyway."""
    return PLAIN_WIDTH, RAW, np.ascontiguousarray(values, dtype="<u4").tobytes()


def is_plain(width: int, codec: int) -> bool:
    """Whether a chunk of this width and codec is stored as plain words (`encode_plain`; a chunk `encode`
    packed at width 32 and did not deflate is too: the same bytes)."""
    return width == PLAIN_WIDTH and codec == RAW


def decode(width: int, codec: int, count: int, payload: bytes) -> NDArray[np.uint32]:
    """The values `encode` stored (InvalidPayload for an unknown codec or bytes that do not inflate)."""
    if codec == DEFLATE:
        try:
            payload = zlib.decompress(payload)
        except zlib.error as exc:
            raise InvalidPayload(f"deflated payload does not inflate: {exc}") from exc
    elif codec != RAW:
        raise InvalidPayload(f"codec {codec} is not one of {CODECS}")
    return unpack(width, count, payload)


def unpack(width: int, count: int, payload: bytes) -> NDArray[np.uint32]:
    """The `count` values packed in `payload` at `width` bits each."""
    if width not in WIDTHS:
        raise InvalidPayload(f"width {width} is not one of {WIDTHS}")
    if count < 0:
        raise InvalidPayload(f"count {count} is negative")
    expected = packed_size(width, count)
    if len(payload) != expected:
        raise InvalidPayload(
            f"{len(payload)} payload bytes for {count} values at width {width}, expected {expected}"
        )
    if width == 0:
        return np.zeros(count, dtype=np.uint32)
    if width >= 8:
        wide: NDArray[np.unsignedinteger[Any]] = np.frombuffer(payload, dtype=_WIDE_DTYPES[width])
        return wide.astype(np.uint32)
    per_byte = 8 // width
    raw = np.frombuffer(payload, dtype=np.uint8)
    shifts = (np.arange(per_byte, dtype=np.uint8) * width).astype(np.uint8)
    mask = np.uint8((1 << width) - 1)
    spread = (raw[:, None] >> shifts) & mask
    return spread.reshape(-1)[:count].astype(np.uint32)


def checksum(
    game_id: str, family: str, chunk_index: int, count: int, width: int, payload: bytes, codec: int = 0
) -> int:
    """CRC32 over the chunk's identity and payload, so a chunk copied to the wrong place fails too."""
    header = f"{game_id}\x00{family}\x00{chunk_index}\x00{count}\x00{width}\x00{codec}\x00".encode()
    return zlib.crc32(payload, zlib.crc32(header))
