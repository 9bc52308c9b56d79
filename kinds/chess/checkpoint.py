"""Checkpoints of a chess solve: what a solve stopped part way through (a worker killed) resumes from.

`solve_material` hands out a record as each stage ends: with pawns, each pawn structure's slice solved
(its DTM and DTZ); without pawns (one slice: the whole material, the most of a five-man solve), the
slice's moves counted and its exits valued (`deg`, `exm`, `exz`), then its DTM. Given the records so
far, a solve restores them and goes on from the stage after the last, so a stop loses at most the
stage in flight. Records are kept as one byte string (`join`, `split`: each with its length), each a
header (magic, kind, slice, payload length, CRC-32) and the slice's arrays deflated.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

#: Record kinds: a slice solved (DTM, DTZ), a slice prepared (deg, exm, exz), a slice's DTM solved.
SLICE, PREPARED, DTM = 0, 1, 2
_LAYOUT: dict[int, tuple[type[np.generic], ...]] = {
    SLICE: (np.int16, np.int16),
    PREPARED: (np.uint8, np.int16, np.int16),
    DTM: (np.int16,),
}
_MAGIC = b"NBCK"
_HEADER = struct.Struct("<4sBQQI")
_LENGTH = struct.Struct("<Q")
#: Deflate level: records are written during the solve, so speed matters more than size.
_LEVEL = 1


class CorruptCheckpoint(ValueError):
    """Checkpoint bytes that are not records this code wrote for the material being solved."""


@dataclass(frozen=True, eq=False)
class Record:
    """One stage's arrays of slice `config` (the pawn configuration; 0 without pawns)."""

    kind: int
    config: int
    arrays: tuple[NDArray[np.generic], ...]


def pack(kind: int, config: int, arrays: tuple[NDArray[np.generic], ...]) -> bytes:
    """A record's bytes; the arrays' types must be its kind's."""
    expected = _LAYOUT[kind]
    if tuple(a.dtype.type for a in arrays) != expected:
        raise TypeError(f"a checkpoint of kind {kind} holds arrays of {expected}")
    # deflated array by array, never copied whole (a five-man slice's arrays take a gigabyte)
    deflate = zlib.compressobj(_LEVEL)
    parts = []
    size = crc = 0
    for a in arrays:
        view = np.ascontiguousarray(a).reshape(-1).view(np.uint8).data
        size += len(view)
        crc = zlib.crc32(view, crc)
        parts.append(deflate.compress(view))
    parts.append(deflate.flush())
    return _HEADER.pack(_MAGIC, kind, config, size, crc) + b"".join(parts)


def unpack(data: bytes, block: int) -> Record:
    """The record `pack` wrote, its arrays `block` slots long each; CorruptCheckpoint when it is not."""
    if len(data) < _HEADER.size:
        raise CorruptCheckpoint(f"a checkpoint of {len(data)} bytes is shorter than its header")
    magic, kind, config, size, crc = _HEADER.unpack_from(data)
    if magic != _MAGIC or kind not in _LAYOUT:
        raise CorruptCheckpoint(f"not a chess checkpoint (header {data[:5]!r})")
    try:
        raw = zlib.decompress(data[_HEADER.size :])
    except zlib.error as error:
        raise CorruptCheckpoint(f"a chess checkpoint does not inflate: {error}") from None
    types = _LAYOUT[kind]
    if len(raw) != size or zlib.crc32(raw) != crc or size != block * sum(np.dtype(t).itemsize for t in types):
        raise CorruptCheckpoint(f"a chess checkpoint of slice {config} fails its checksum or size")
    arrays = []
    at = 0
    for t in types:
        width = block * np.dtype(t).itemsize
        arrays.append(np.frombuffer(raw, dtype=t, count=block, offset=at).copy())
        at += width
    return Record(kind, int(config), tuple(arrays))


def join(records: list[bytes]) -> bytes:
    """Records as one byte string (each after its length)."""
    return b"".join(_LENGTH.pack(len(r)) + r for r in records)


def split(data: bytes) -> list[bytes]:
    """The records `join` put together (a truncated last one, cut by a stop, is left out)."""
    out = []
    at = 0
    while at + _LENGTH.size <= len(data):
        (size,) = _LENGTH.unpack_from(data, at)
        at += _LENGTH.size
        if at + size > len(data):
            break
        out.append(data[at : at + size])
        at += size
    return out
