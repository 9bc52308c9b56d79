"""How one block of a chess table's values is written (kinds.chess.blocks holds the blocks and their index).

Format 4 (written now): a form byte, then the block's four byte planes (low and high bytes of DTM's code,
then of the second metric's) compressed by zstd, which takes about 15 % off deflate's bytes on the same
planes at the level used and inflates a block faster. DTM's code is dense where it can be:

- `DENSE`: a win in d plies (d odd) is d + 1, a loss in d plies (d even, value -(d + 1)) is d + 1, a draw
  0: every code is used, so DTM of up to 254 plies fits the low plane (zigzag's codes leave half of their
  values unused, as DTM's parity is known from its sign);
- `ZIGZAG`: the zigzag code, for a block holding any value outside DTM's encoding (kept exact whatever the
  values: a block is written densely only when it decodes to the same values).

The second metric is DTZ (with pawns) or DTM - DTZ (without), zigzag-coded, as in format 3.

Format 3 (blocks written before): the same planes, zigzag-coded, deflated; still read.
"""

from __future__ import annotations

import zlib

import numpy as np
import zstandard
from numpy.typing import NDArray

from kinds.chess.format import _unzigzag, _zigzag

I16 = NDArray[np.int16]
U16 = NDArray[np.uint16]

#: The forms of a format-4 block's DTM code (its first byte).
ZIGZAG = 0
DENSE = 1
#: zstd's level: 15 is within 1 % of 19's bytes here at well under half its time.
LEVEL = 15


class BadBlock(ValueError):
    """A block's bytes that do not decode to its slots (the caller names the block)."""


def _dense(dtm: I16) -> U16 | None:
    """DTM's dense codes, None when a value is no DTM value (a win of even plies, a loss of odd ones)."""
    v = dtm.astype(np.int32)
    if not np.all((v == 0) | ((v & 1) == 1)):  # wins odd, losses -(d + 1) with d even: odd too
        return None
    return np.where(v > 0, v + 1, -v).astype(np.uint16)


def _undense(codes: U16) -> I16:
    c = codes.astype(np.int32)
    return np.where((c & 1) == 1, -c, np.where(c > 0, c - 1, 0)).astype(np.int16)


def _planes(first: U16, second: U16) -> bytes:
    planes = [((c >> s) & 0xFF).astype(np.uint8) for c in (first, second) for s in (0, 8)]
    return np.concatenate(planes).tobytes()


def _second(dtm: I16, dtz: I16, delta: bool) -> I16:
    return (dtm.astype(np.int32) - dtz).astype(np.int16) if delta else dtz


def encode(dtm: I16, dtz: I16, delta: bool, level: int = LEVEL) -> bytes:
    """A block's stored bytes in format 4."""
    dense = _dense(dtm)
    form, first = (ZIGZAG, _zigzag(dtm)) if dense is None else (DENSE, dense)
    packer = zstandard.ZstdCompressor(level=level, write_content_size=False, write_checksum=False)
    return bytes([form]) + packer.compress(_planes(first, _zigzag(_second(dtm, dtz, delta))))


def encode_deflated(dtm: I16, dtz: I16, delta: bool, level: int = 6) -> bytes:
    """A block's stored bytes in format 3 (deflated zigzag planes): how blocks were written before."""
    return zlib.compress(_planes(_zigzag(dtm), _zigzag(_second(dtm, dtz, delta))), level)


def decode(data: bytes, k: int, delta: bool, version: int) -> tuple[I16, I16]:
    """DTM and DTZ of a block of `k` slots stored in format `version` (3 or 4); BadBlock when not."""
    if version == 3:
        try:
            raw = zlib.decompress(data)
        except zlib.error as error:
            raise BadBlock(f"does not inflate ({error})") from None
        form = ZIGZAG
    else:
        if not data or data[0] not in (ZIGZAG, DENSE):
            raise BadBlock(f"has no known form (byte {data[:1]!r})")
        form = data[0]
        try:
            raw = zstandard.ZstdDecompressor().decompress(data[1:], max_output_size=4 * k)
        except zstandard.ZstdError as error:
            raise BadBlock(f"does not inflate ({error})") from None
    if len(raw) != 4 * k:
        raise BadBlock(f"holds {len(raw)} bytes, not {4 * k}")
    planes = np.frombuffer(raw, dtype=np.uint8).reshape(4, k).astype(np.uint16)
    first = planes[0] | planes[1] << 8
    dtm = _undense(first) if form == DENSE else _unzigzag(first)
    second = _unzigzag(planes[2] | planes[3] << 8)
    dtz = (dtm.astype(np.int32) - second).astype(np.int16) if delta else second
    return dtm, dtz
