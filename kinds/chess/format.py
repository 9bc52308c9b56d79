"""A solved chess table as data (`ChessValues`: DTM and DTZ per slot) and its stored bytes.

Stored: a header (magic, format version, slot count, how DTZ is written, CRC-32 of the values) and the
values deflated, each metric as two byte planes (low bytes, then high bytes, of its zigzag-coded
int16), which deflate far better than interleaved words: the high planes are nearly all zero. Without
pawns DTZ is written as DTM - DTZ (`delta`: zero wherever the quickest mate zeroes nothing before it,
common there), with pawns as it is (pawn moves zero often, DTZ is small). The solver gives slots naming
no position the values of the slot before (runs). The storage layer checksums its chunks too; the CRC
here guards the decoding.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

I16 = NDArray[np.int16]

_MAGIC = b"NBCHESS"
_VERSION = 2
_HEADER = struct.Struct("<7sBQBI")
_LEVEL = 6
#: Slots encoded at a time, and most bytes inflated at a time.
_PIECE = 1 << 24
#: Deflated bytes given to zlib at a time when reading.
_INPUT = 1 << 20


class CorruptTable(ValueError):
    """Stored bytes that are not a chess table this code wrote."""


def _zigzag(values: I16) -> NDArray[np.uint16]:
    v = values.astype(np.int32)
    return ((v << 1) ^ (v >> 31)).astype(np.uint16)


def _unzigzag(codes: NDArray[np.uint16]) -> I16:
    c = codes.astype(np.int32)
    return ((c >> 1) ^ -(c & 1)).astype(np.int16)


@dataclass(frozen=True, eq=False)
class ChessValues:
    """Per slot (kinds.chess.kernels.index), DTM and DTZ in kinds.chess.kernels.values' encoding."""

    dtm: I16
    dtz: I16
    #: Whether to store DTZ as DTM - DTZ (better without pawns).
    delta: bool = False

    def __len__(self) -> int:
        return int(self.dtm.shape[0])

    @property
    def nbytes(self) -> int:
        return int(self.dtm.nbytes + self.dtz.nbytes)

    def lookup(self, slot: int) -> tuple[int, int]:
        return int(self.dtm[slot]), int(self.dtz[slot])

    def to_bytes(self) -> bytes:
        """The stored bytes, made plane by plane a piece at a time (a five-man table's planes are never
        all in memory at once besides the values)."""
        deflate = zlib.compressobj(_LEVEL)
        parts = []
        crc = 0
        for metric in range(2):
            for shift in (0, 8):
                for at in range(0, len(self), _PIECE):
                    dtm = self.dtm[at : at + _PIECE]
                    values = dtm
                    if metric:
                        dtz = self.dtz[at : at + _PIECE]
                        values = (dtm.astype(np.int32) - dtz).astype(np.int16) if self.delta else dtz
                    plane = ((_zigzag(values) >> shift) & 0xFF).astype(np.uint8).data
                    crc = zlib.crc32(plane, crc)
                    parts.append(deflate.compress(plane))
        parts.append(deflate.flush())
        header = _HEADER.pack(_MAGIC, _VERSION, len(self), int(self.delta), crc)
        return header + b"".join(parts)

    @staticmethod
    def from_bytes(data: bytes | memoryview) -> ChessValues:
        """The values `to_bytes` wrote; CorruptTable when they are not.

        Each plane is inflated a piece at a time straight into its byte of the final arrays (low and high
        byte of each metric's int16), and the codes are turned into values there, a piece at a time: a
        five-man table (240 M slots, 1 GB of values) is read within little more than its values' memory,
        instead of several copies of them (the inflated planes, widened to 16 and 32 bits)."""
        view = memoryview(data)
        if len(view) < _HEADER.size:
            raise CorruptTable(f"a chess table of {len(view)} bytes is shorter than its header")
        magic, version, n, delta, crc = _HEADER.unpack_from(view)
        if magic != _MAGIC or version != _VERSION:
            raise CorruptTable(f"not a chess table of format {_VERSION} (header {bytes(view[:8])!r})")
        dtm, dtz = np.empty(n, dtype=np.uint16), np.empty(n, dtype=np.uint16)
        planes = [codes.view(np.uint8)[byte::2] for codes in (dtm, dtz) for byte in (0, 1)]
        done = found = 0
        try:
            for piece in _inflated(view[_HEADER.size :]):
                found = zlib.crc32(piece, found)
                inflated = np.frombuffer(piece, dtype=np.uint8)
                while len(inflated):
                    if done >= 4 * n:
                        raise CorruptTable(f"a chess table of {n} slots fails its checksum")
                    plane, at = divmod(done, n)
                    k = min(len(inflated), n - at)
                    planes[plane][at : at + k] = inflated[:k]
                    inflated, done = inflated[k:], done + k
        except zlib.error as error:
            raise CorruptTable(f"a chess table's values do not inflate: {error}") from None
        if done != 4 * n or found != crc:
            raise CorruptTable(f"a chess table of {n} slots fails its checksum")
        values = [_unzigzag_in_place(dtm), _unzigzag_in_place(dtz)]
        if delta:
            np.subtract(values[0], values[1], out=values[1])  # wraps as the int32 difference cast back
        return ChessValues(values[0], values[1], bool(delta))


def _inflated(deflated: memoryview) -> Iterator[bytes]:
    """The inflated bytes of a whole deflate stream, in pieces of at most `_PIECE` bytes but the last;
    zlib.error when it is damaged or cut short."""
    inflate = zlib.decompressobj()
    for at in range(0, len(deflated), _INPUT):
        pending: bytes | memoryview = deflated[at : at + _INPUT]
        if inflate.eof:
            raise zlib.error("bytes after the end of the stream")
        while pending and not inflate.eof:
            piece = inflate.decompress(pending, _PIECE)
            pending = inflate.unconsumed_tail  # at most one input piece: copied, but small
            if piece:
                yield piece
    yield inflate.flush()
    if not inflate.eof:
        raise zlib.error("incomplete or truncated stream")
    if inflate.unused_data:
        raise zlib.error("bytes after the end of the stream")


def _unzigzag_in_place(codes: NDArray[np.uint16]) -> I16:
    """`_unzigzag` of `codes`, in their own memory a piece at a time (the array is given back as int16)."""
    sign = np.empty(min(len(codes), _PIECE), dtype=np.uint16)
    for at in range(0, len(codes), _PIECE):
        part = codes[at : at + _PIECE]
        low = sign[: len(part)]
        np.bitwise_and(part, 1, out=low)
        np.negative(low, out=low)  # 0, or 0xFFFF for an odd code
        np.right_shift(part, 1, out=part)
        np.bitwise_xor(part, low, out=part)
    return codes.view(np.int16)


class InflatingTables(Mapping[str, ChessValues]):
    """Stored tables (bytes by material name) read as values, each inflated when asked for and not kept:
    a solve (kinds.chess.solve) then holds a sub-table's values only while the slices reading it
    are solved, and a five-man material with a pawn fits beside the five-man tables its promotions
    lead to."""

    def __init__(
        self, stored: Mapping[str, bytes], decode: Callable[[bytes], ChessValues] = ChessValues.from_bytes
    ) -> None:
        self._stored = stored
        self._decode = decode

    def __getitem__(self, name: str) -> ChessValues:
        return self._decode(self._stored[name])

    def __iter__(self) -> Iterator[str]:
        return iter(self._stored)

    def __len__(self) -> int:
        return len(self._stored)
