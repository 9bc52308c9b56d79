"""One solved tier of a game defined by its rules, and the bytes a worker stores for it.

A tier's positions are its canonical legal codes, ascending (`Rules.tier_positions`); they are not
stored, since the rules give them again. What is stored is one value per position in that order:
- win/loss games, one byte: 0 an endless draw, 1 + 3r + k a win (k 0), loss (1) or tie (2) in r moves
  for r < 84, ESCAPE for a larger remoteness, kept in a side table (index, remoteness);
- score games, two bytes: the margin (int8) and the remoteness (uint8).
The bytes are deflated: a tier holds long runs of equal values.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

import numba
import numpy as np
from numpy.typing import NDArray

I8 = NDArray[np.int8]
I32 = NDArray[np.int32]
I64 = NDArray[np.int64]

#: Results, for the player to move.
WIN = 1
LOSS = -1
TIE = 0
DRAW = 2

_LIMIT = 84
ESCAPE = 255
_KIND_CODE = {WIN: 0, LOSS: 1, TIE: 2}
_HEADER = struct.Struct("<4sBqqq")
#: zlib's level: the fastest. Level 6 deflates Connect Four's tiers a fifth smaller (0.16 bytes a position
#: instead of 0.22) but takes seven times longer, an eighth of a 5 x 5 worker's time.
LEVEL = 1


class StoredTierError(ValueError):
    """Stored bytes that are not a tier of this game (another layout, another size)."""


@dataclass(frozen=True, slots=True)
class TierTable:
    """A solved tier: its codes (ascending) and, per position, the result (WIN, LOSS, TIE, DRAW), the
    remoteness (-1 for a draw) and, for score games, the margin with best play (else None)."""

    tier: int
    codes: I64
    result: I8
    remoteness: I32
    margin: I32 | None = None

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    @property
    def nbytes(self) -> int:
        margin = 0 if self.margin is None else self.margin.nbytes
        return int(self.codes.nbytes + self.result.nbytes + self.remoteness.nbytes + margin)

    def index(self, code: int) -> int | None:
        """Where `code` is in the tier, or None."""
        i = int(np.searchsorted(self.codes, code))
        return i if i < len(self) and int(self.codes[i]) == code else None

    def to_bytes(self) -> bytes:
        """What a worker stores (see the module's docstring)."""
        n = len(self)
        if self.margin is not None:
            if n and (np.abs(self.margin).max() > 127 or self.remoteness.max() > 254):
                raise OverflowError(f"tier {self.tier}: a margin or remoteness too large to store")
            body = np.empty(2 * n, np.uint8)
            body[0::2] = self.margin.astype(np.int8).view(np.uint8)
            body[1::2] = self.remoteness.astype(np.uint8)
            return _HEADER.pack(b"RUS1", 1, self.tier, n, 0) + zlib.compress(body.tobytes(), LEVEL)
        codes = np.empty(n, np.uint8)
        escapes = _encode(self.result, self.remoteness, codes)
        big = np.flatnonzero(codes == ESCAPE) if escapes else np.empty(0, np.int64)
        side = b"".join(
            [
                big.astype("<i8").tobytes(),
                self.result[big].astype("i1").tobytes(),
                self.remoteness[big].astype("<i4").tobytes(),
            ]
        )
        return _HEADER.pack(b"RUW1", 0, self.tier, n, big.size) + zlib.compress(codes.tobytes(), LEVEL) + side

    @classmethod
    def from_bytes(cls, data: bytes, codes: I64) -> TierTable:
        """The tier `to_bytes` stored, for the positions `codes` (StoredTierError when they differ)."""
        if len(data) < _HEADER.size:
            raise StoredTierError("too short to be a stored tier")
        magic, score, tier, n, escapes = _HEADER.unpack_from(data, 0)
        if magic not in (b"RUW1", b"RUS1") or n != codes.shape[0]:
            raise StoredTierError(f"a stored tier of {n} positions, not {codes.shape[0]}")
        at = _HEADER.size
        if score:
            body = np.frombuffer(zlib.decompress(data[at:]), np.uint8)
            margin = body[0::2].view(np.int8).astype(np.int32)
            remoteness = body[1::2].astype(np.int32)
            result = np.sign(margin).astype(np.int8)  # +1 win, -1 loss, 0 tie (TIE is 0)
            return cls(tier, codes, result, remoteness, margin)
        side = 13 * escapes
        raw = np.frombuffer(zlib.decompress(data[at : len(data) - side]), np.uint8)
        if raw.shape[0] != n:
            raise StoredTierError(f"a stored tier of {raw.shape[0]} values, not {n}")
        result = np.empty(n, np.int8)
        remoteness = np.empty(n, np.int32)
        _decode(raw, result, remoteness)
        if escapes:
            off = len(data) - side
            index = np.frombuffer(data, "<i8", escapes, off)
            result[index] = np.frombuffer(data, "i1", escapes, off + 8 * escapes)
            remoteness[index] = np.frombuffer(data, "<i4", escapes, off + 9 * escapes)
        return cls(tier, codes, result, remoteness, None)


@numba.njit(cache=True, nogil=True)
def _encode(result: I8, remoteness: I32, out: NDArray[np.uint8]) -> int:
    """Each position's byte (see the module's docstring) in one pass; how many are ESCAPE."""
    escapes = 0
    for i in range(result.shape[0]):
        r = result[i]
        if r == DRAW:
            out[i] = 0
        elif remoteness[i] < _LIMIT:
            out[i] = (1 + 3 * remoteness[i] + (0 if r == WIN else 1 if r == LOSS else 2)) & 0xFF
        else:
            out[i] = ESCAPE
            escapes += 1
    return escapes


@numba.njit(cache=True, nogil=True)
def _decode(raw: NDArray[np.uint8], result: I8, remoteness: I32) -> None:
    """What `_encode` wrote, read back in one pass (an ESCAPE as its side table then overwrites it)."""
    for i in range(raw.shape[0]):
        v = np.int32(raw[i])
        if v == 0:
            result[i] = DRAW
            remoteness[i] = -1
        else:
            k = (v - 1) % 3
            result[i] = WIN if k == 0 else LOSS if k == 1 else TIE
            remoteness[i] = (v - 1) // 3


def merged(tables: list[TierTable]) -> TierTable:
    """Several tiers as one table (codes ascending), for looking up the positions moves lead to."""
    if not tables:
        empty = np.empty(0, np.int64)
        return TierTable(-1, empty, np.empty(0, np.int8), np.empty(0, np.int32), None)
    if len(tables) == 1:
        return tables[0]
    codes = np.concatenate([t.codes for t in tables])
    order = np.argsort(codes, kind="stable")
    margin = None
    if all(t.margin is not None for t in tables):
        margin = np.concatenate([t.margin for t in tables if t.margin is not None])[order]
    return TierTable(
        -1,
        codes[order],
        np.concatenate([t.result for t in tables])[order],
        np.concatenate([t.remoteness for t in tables])[order],
        margin,
    )
