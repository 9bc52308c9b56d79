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
from collections.abc import Iterator, Mapping
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
#: Deflated bytes inflated at a time.
_FEED = 1 << 20


class CorruptTable(ValueError):
    """Stored bytes that are not a chess table this code wrote."""


def _zigzag(values: I16) -> NDArray[np.uint16]:
    v = values.astype(np.int32)
    return ((v << 1) ^ (v >> 31)).astype(np.uint16)


def _unzigzag(codes: NDArray[np.uint16]) -> I16:
    c = codes.astype(np.int32)
    return ((c >> 1) ^ -(c & 1)).astype(np.int16)


class _Inflater:
    """The deflated planes as pieces of the sizes asked for, their CRC-32 summed up as they come: the
    input is fed a megabyte at a time, the output never more than a piece."""

    def __init__(self, deflated: memoryview, n: int) -> None:
        self._input = deflated
        self._at = 0
        self._pending = b""
        self._inflate = zlib.decompressobj()
        self._n = n
        self.crc = 0

    def take(self, size: int) -> bytes:
        parts: list[bytes] = []
        got = 0
        try:
            while got < size:
                if not self._pending:
                    if self._at >= len(self._input):
                        part = self._inflate.flush()[: size - got]
                        if not part:
                            break
                        parts.append(part)
                        got += len(part)
                        continue
                    self._pending = self._input[self._at : self._at + _FEED].tobytes()
                    self._at += _FEED
                part = self._inflate.decompress(self._pending, size - got)
                self._pending = self._inflate.unconsumed_tail
                parts.append(part)
                got += len(part)
        except zlib.error as error:
            raise CorruptTable(f"a chess table's values do not inflate: {error}") from None
        if got != size:
            raise CorruptTable(f"a chess table of {self._n} slots ends before its values do")
        piece = b"".join(parts)
        self.crc = zlib.crc32(piece, self.crc)
        return piece

    def finish(self, expected: int) -> None:
        """CorruptTable unless the deflated stream ends with the values, their checksum `expected`."""
        rest = self._pending + self._input[self._at :].tobytes()
        try:
            extra = self._inflate.decompress(rest, 1)
        except zlib.error as error:
            raise CorruptTable(f"a chess table's values do not inflate: {error}") from None
        over = extra or self._inflate.unconsumed_tail or self._inflate.unused_data
        if over or not self._inflate.eof or self.crc != expected:
            raise CorruptTable(f"a chess table of {self._n} slots fails its checksum")


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
        """The values `to_bytes` wrote, inflated a piece at a time into the values (a five-man table's
        planes are never all in memory at once); CorruptTable when they are not."""
        if len(data) < _HEADER.size:
            raise CorruptTable(f"a chess table of {len(data)} bytes is shorter than its header")
        magic, version, n, delta, expected = _HEADER.unpack_from(data)
        if magic != _MAGIC or version != _VERSION:
            raise CorruptTable(f"not a chess table of format {_VERSION} (header {data[:8]!r})")
        dtm = np.empty(n, dtype=np.int16)
        dtz = np.empty(n, dtype=np.int16)
        pieces = _Inflater(memoryview(data)[_HEADER.size :], n)
        for out in (dtm, dtz):
            codes = out.view(np.uint16)
            for shift in (0, 8):
                for at in range(0, n, _PIECE):
                    piece = np.frombuffer(pieces.take(min(_PIECE, n - at)), dtype=np.uint8)
                    if shift == 0:
                        codes[at : at + _PIECE] = piece
                    else:
                        codes[at : at + _PIECE] |= piece.astype(np.uint16) << 8
            for at in range(0, n, _PIECE):
                out[at : at + _PIECE] = _unzigzag(codes[at : at + _PIECE])
        pieces.finish(expected)
        if delta:
            for at in range(0, n, _PIECE):
                dtz[at : at + _PIECE] = (
                    dtm[at : at + _PIECE].astype(np.int32) - dtz[at : at + _PIECE]
                ).astype(np.int16)
        return ChessValues(dtm, dtz, bool(delta))


class InflatingTables(Mapping[str, ChessValues]):
    """Stored tables (bytes by material name) read as values, each inflated when asked for and not kept:
    a solve (engine.games.chess_solve) then holds a sub-table's values only while the slices reading it
    are solved, and a five-man material with a pawn fits beside the five-man tables its promotions
    lead to."""

    def __init__(self, stored: Mapping[str, bytes]) -> None:
        self._stored = stored

    def __getitem__(self, name: str) -> ChessValues:
        return ChessValues.from_bytes(self._stored[name])

    def __iter__(self) -> Iterator[str]:
        return iter(self._stored)

    def __len__(self) -> int:
        return len(self._stored)
