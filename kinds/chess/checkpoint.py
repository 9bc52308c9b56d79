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
from collections.abc import Iterator
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
#: Bytes inflated (and deflated bytes read) at a time when a record is restored.
_PIECE = 1 << 16


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


def kind_of(data: bytes | memoryview) -> tuple[int, int]:
    """The kind and slice of the record `pack` wrote (its header alone is read); CorruptCheckpoint when
    it is not one."""
    if len(data) < _HEADER.size:
        raise CorruptCheckpoint(f"a checkpoint of {len(data)} bytes is shorter than its header")
    magic, kind, config, _size, _crc = _HEADER.unpack_from(data)
    if magic != _MAGIC or kind not in _LAYOUT:
        raise CorruptCheckpoint(f"not a chess checkpoint (header {bytes(data[:5])!r})")
    return int(kind), int(config)


def unpack(data: bytes | memoryview, block: int) -> Record:
    """The record `pack` wrote, its arrays `block` slots long each; CorruptCheckpoint when it is not."""
    kind, config = kind_of(data)
    arrays = tuple(np.empty(block, dtype=t) for t in _LAYOUT[kind])
    unpack_into(data, block, arrays)
    return Record(kind, config, arrays)


def unpack_into(data: bytes | memoryview, block: int, into: tuple[NDArray[np.generic], ...]) -> None:
    """Inflate the record `pack` wrote straight into `into` (contiguous arrays of its kind's types, `block`
    slots each), a piece at a time: a resumed solve holds its arrays once, as an uninterrupted one does,
    never a record inflated whole beside them. CorruptCheckpoint when it is not such a record (`into`
    may then hold part of it)."""
    kind, config = kind_of(data)
    _magic, _kind, _config, size, crc = _HEADER.unpack_from(data)
    types = _LAYOUT[kind]
    if tuple(a.dtype.type for a in into) != types or not all(a.flags.c_contiguous for a in into):
        raise TypeError(f"a checkpoint of kind {kind} is inflated into contiguous arrays of {types}")
    if size != block * sum(np.dtype(t).itemsize for t in types) or any(a.size != block for a in into):
        raise CorruptCheckpoint(f"a chess checkpoint of slice {config} fails its checksum or size")
    targets = [memoryview(a.reshape(-1).view(np.uint8).data).cast("B") for a in into]
    flat = memoryview(bytearray(0)) if not targets else targets[0]
    payload = memoryview(data)[_HEADER.size :]
    inflate = zlib.decompressobj()
    written = check = target = at = 0

    def pieces() -> Iterator[bytes]:
        """The inflated bytes, at most _PIECE at a time."""
        for start in range(0, len(payload), _PIECE):
            tail: bytes | memoryview = payload[start : start + _PIECE]
            while len(tail):
                yield inflate.decompress(tail, _PIECE)
                tail = inflate.unconsumed_tail
        while not inflate.eof and (out := inflate.decompress(b"", _PIECE)):
            yield out
        yield inflate.flush()

    try:
        for out in pieces():
            if written + len(out) > size:
                raise CorruptCheckpoint(f"a chess checkpoint of slice {config} fails its checksum or size")
            written += len(out)
            check = zlib.crc32(out, check)
            view = memoryview(out)
            while len(view):
                while at == len(flat):  # this array is full: on to the next
                    target, at = target + 1, 0
                    flat = targets[target]
                count = min(len(flat) - at, len(view))
                flat[at : at + count] = view[:count]
                view, at = view[count:], at + count
    except zlib.error as error:
        raise CorruptCheckpoint(f"a chess checkpoint does not inflate: {error}") from None
    if written != size or check != crc or not inflate.eof:
        raise CorruptCheckpoint(f"a chess checkpoint of slice {config} fails its checksum or size")


def join(records: list[bytes]) -> bytes:
    """Records as one byte string (each after its length)."""
    return b"".join(_LENGTH.pack(len(r)) + r for r in records)


def split(data: bytes | memoryview) -> list[memoryview]:
    """The records `join` put together, as views of `data` (no copies; a truncated last one, cut by a stop,
    is left out)."""
    data = memoryview(data)
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
