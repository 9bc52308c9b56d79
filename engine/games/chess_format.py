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
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

I16 = NDArray[np.int16]

_MAGIC = b"NBCHESS"
_VERSION = 2
_HEADER = struct.Struct("<7sBQBI")
_LEVEL = 6
#: Slots encoded at a time.
_PIECE = 1 << 24


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
    """Per slot (engine.kernels.chess_index), DTM and DTZ in engine.kernels.chess_values' encoding."""

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
    def from_bytes(data: bytes) -> ChessValues:
        """The values `to_bytes` wrote; CorruptTable when they are not."""
        if len(data) < _HEADER.size:
            raise CorruptTable(f"a chess table of {len(data)} bytes is shorter than its header")
        magic, version, n, delta, crc = _HEADER.unpack_from(data)
        if magic != _MAGIC or version != _VERSION:
            raise CorruptTable(f"not a chess table of format {_VERSION} (header {data[:8]!r})")
        try:
            raw = zlib.decompress(data[_HEADER.size :])
        except zlib.error as error:
            raise CorruptTable(f"a chess table's values do not inflate: {error}") from None
        if len(raw) != 4 * n or zlib.crc32(raw) != crc:
            raise CorruptTable(f"a chess table of {n} slots fails its checksum")
        planes = np.frombuffer(raw, dtype=np.uint8).reshape(4, n).astype(np.uint16)
        dtm = _unzigzag(planes[0] | (planes[1] << 8))
        dtz = _unzigzag(planes[2] | (planes[3] << 8))
        if delta:
            dtz = (dtm.astype(np.int32) - dtz).astype(np.int16)
        return ChessValues(dtm, dtz, bool(delta))
