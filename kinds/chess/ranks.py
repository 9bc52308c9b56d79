"""The second metric of a chess table written as its rank beside DTM (block format 5, kinds.chess.blocks).

DTM says most of what the second metric (DTZ, or DTM - DTZ) will be: over a five-man table the second
metric's entropy given DTM is a tenth of its own. A block written by ranks holds, for each slot, the rank
of its second metric among the values the material pairs with its DTM value, most frequent first (0 for
the commonest, which is most slots), instead of the value: the planes are then mostly zeros, which zstd
writes in a few bytes. `Ranks`, the list of the values each DTM value pairs with in rank order, is built
from the whole table (`of_table`) and stored once per material beside the block index (`to_bytes`,
`from_bytes`): every pair the table holds has a rank, so every table is written exactly, whatever its
values.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

I16 = NDArray[np.int16]
I64 = NDArray[np.int64]
U16 = NDArray[np.uint16]

#: least DTM value, DTM values spanned (least to greatest), pairs.
_HEAD = struct.Struct("<iII")
#: Slots counted at a time when building.
_PIECE = 1 << 24
#: Most (DTM, second) combinations counted in one array when building (else by sorting).
_DENSE_PAIRS = 1 << 24
#: Most (DTM, second) combinations whose ranks a writer looks up in one array (16 MiB; else by a
#: binary search of the pairs, several times slower).
_LOOKUP_PAIRS = 1 << 22


class BadRanks(ValueError):
    """Stored ranks, or a block's codes, that are not what `Ranks` wrote (the caller names the table)."""


def _keys(dtm: I16, second: U16) -> I64:
    return (dtm.astype(np.int64) + 32768) << 16 | second.astype(np.int64)


class Ranks:
    """Per DTM value, the second metric's codes (zigzag, uint16) it is paired with, most frequent first."""

    __slots__ = ("_keys", "_lookup", "_ranks", "counts", "least", "seconds", "starts")

    def __init__(self, least: int, counts: NDArray[np.uint32], seconds: U16) -> None:
        #: The least DTM value; counts[v - least] codes follow for DTM value v, in `seconds` in turn.
        self.least = least
        self.counts = counts.astype(np.int32)  # a table's pairs are far fewer than 2**31
        self.seconds = seconds
        self.starts = np.zeros(len(counts), dtype=np.int32)
        np.cumsum(self.counts[:-1], out=self.starts[1:])
        #: Each pair's key, sorted, and its rank (made when first writing: a reader needs neither).
        self._keys: I64 | None = None
        self._ranks: I64 | None = None
        #: Each (DTM - least) * width + second code's rank, -1 for no pair, and the width (made when first
        #: writing a table whose combinations are few enough).
        self._lookup: tuple[int, NDArray[np.int32]] | None = None

    def _sorted(self) -> tuple[I64, I64]:
        if self._keys is None or self._ranks is None:
            dtm = np.repeat(np.arange(len(self.counts), dtype=np.int64) + self.least, self.counts)
            keys = _keys(dtm.astype(np.int16), self.seconds)
            order = np.argsort(keys, kind="stable")
            ranks = np.arange(len(self.seconds), dtype=np.int64) - np.repeat(self.starts, self.counts)
            self._keys, self._ranks = keys[order], ranks[order]
        return self._keys, self._ranks

    @staticmethod
    def of_table(dtm: I16, second: Callable[[int, int], U16]) -> Ranks:
        """The ranks of a whole table's pairs of DTM and second codes (`second(lo, hi)`: those of slots
        lo..hi-1), counted a piece at a time: a five-man table's second codes are never all made at once."""
        n = len(dtm)
        if n == 0:
            return Ranks(0, np.zeros(0, np.uint32), np.zeros(0, np.uint16))
        least, span = int(dtm.min()), int(dtm.max()) - int(dtm.min()) + 1
        counted = np.zeros((span, 0), dtype=np.int64)  # by DTM and second code while few enough
        keys: list[I64] = []
        counts: list[I64] = []
        for lo in range(0, n, _PIECE):
            hi = min(n, lo + _PIECE)
            codes = second(lo, hi)  # made once: a piece's codes are the greater part of the counting
            width = max(int(codes.max()) + 1, counted.shape[1])
            if keys or span * width > _DENSE_PAIRS:  # too many combinations: by sorting from now on
                if counted.size:
                    where = np.flatnonzero(counted)
                    pairs = where // counted.shape[1] + least, where % counted.shape[1]
                    keys.append(_keys(pairs[0].astype(np.int16), pairs[1].astype(np.uint16)))
                    counts.append(counted.reshape(-1)[where])
                    counted = np.zeros((span, 0), dtype=np.int64)
                k, c = np.unique(_keys(dtm[lo:hi], codes), return_counts=True)
                keys.append(k)
                counts.append(c)
                continue
            if width > counted.shape[1]:
                counted = np.pad(counted, ((0, 0), (0, width - counted.shape[1])))
            key = (dtm[lo:hi].astype(np.int64) - least) * width + codes
            counted += np.bincount(key, minlength=span * width).reshape(span, width)
        if not keys:
            where = np.flatnonzero(counted)
            pair_dtm, pair_second = where // counted.shape[1] + least, where % counted.shape[1]
            count = counted.reshape(-1)[where]
        else:
            found, inverse = np.unique(np.concatenate(keys), return_inverse=True)
            count = np.zeros(len(found), dtype=np.int64)
            np.add.at(count, inverse, np.concatenate(counts))
            pair_dtm, pair_second = (found >> 16) - 32768, found & 0xFFFF
        order = np.lexsort((pair_second, -count, pair_dtm))  # by DTM, then most frequent first
        per_dtm = np.bincount(pair_dtm - least, minlength=span).astype(np.uint32)
        return Ranks(least, per_dtm, pair_second[order].astype(np.uint16))

    def to_bytes(self) -> bytes:
        head = _HEAD.pack(self.least, len(self.counts), len(self.seconds))
        return head + self.counts.astype("<u4").tobytes() + self.seconds.astype("<u2").tobytes()

    @staticmethod
    def from_bytes(data: bytes) -> Ranks:
        """The ranks `to_bytes` wrote; BadRanks when they are not."""
        if len(data) < _HEAD.size:
            raise BadRanks(f"ranks of {len(data)} bytes are shorter than their header")
        least, span, pairs = _HEAD.unpack_from(data)
        if len(data) != _HEAD.size + 4 * span + 2 * pairs or not -32768 <= least <= 32767:
            raise BadRanks(f"ranks of {len(data)} bytes do not hold {span} DTM values and {pairs} pairs")
        counts = np.frombuffer(data, dtype="<u4", count=span, offset=_HEAD.size)
        seconds = np.frombuffer(data, dtype="<u2", count=pairs, offset=_HEAD.size + 4 * span)
        if int(counts.astype(np.int64).sum()) != pairs or least + span > 32768 or pairs >= 1 << 31:
            raise BadRanks(f"ranks of {span} DTM values do not add up to their {pairs} pairs")
        return Ranks(int(least), counts.astype(np.uint32), seconds.astype(np.uint16))

    @property
    def nbytes(self) -> int:
        made = 0 if self._keys is None or self._ranks is None else self._keys.nbytes + self._ranks.nbytes
        made += 0 if self._lookup is None else self._lookup[1].nbytes
        return int(self.counts.nbytes + self.seconds.nbytes + self.starts.nbytes + made)

    def _looked_up(self) -> tuple[int, NDArray[np.int32]] | None:
        if self._lookup is None and len(self.seconds):
            width = int(self.seconds.max()) + 1
            if len(self.counts) * width <= _LOOKUP_PAIRS:
                group = np.repeat(np.arange(len(self.counts), dtype=np.int64), self.counts)
                table = np.full(len(self.counts) * width, -1, dtype=np.int32)
                table[group * width + self.seconds] = np.arange(len(self.seconds)) - np.repeat(
                    self.starts, self.counts
                )
                self._lookup = width, table
        return self._lookup

    def rank(self, dtm: I16, second: U16) -> U16:
        """Each slot's rank; ValueError when a pair is not in the table the ranks were built from."""
        lookup = self._looked_up()
        if lookup is not None:  # one array lookup a slot
            width, table = lookup
            group, code = dtm.astype(np.int32) - self.least, second.astype(np.int32)
            inside = (group >= 0) & (group < len(self.counts)) & (code < width)
            found = table[np.where(inside, group * width + code, 0)]
            if not np.all(inside & (found >= 0)):
                raise ValueError("a pair of DTM and second metric the ranks were not built from")
            return found.astype(np.uint16)
        known, ranks = self._sorted()
        keys = _keys(dtm, second)
        at = np.searchsorted(known, keys)
        if len(keys) and (at.max(initial=0) >= len(known) or np.any(known[at] != keys)):
            raise ValueError("a pair of DTM and second metric the ranks were not built from")
        return ranks[at].astype(np.uint16)

    def second(self, dtm: I16, rank: U16) -> U16:
        """Each slot's second code from its DTM and rank; BadRanks when one names no pair."""
        group = dtm.astype(np.int64) - self.least
        if len(group) == 0:
            return np.zeros(0, np.uint16)
        if int(group.min()) < 0 or int(group.max()) >= len(self.counts):
            raise BadRanks("a DTM value the ranks do not hold")
        r = rank.astype(np.int64)
        if np.any(r >= self.counts[group]):
            raise BadRanks("a rank past its DTM value's pairs")
        found: U16 = self.seconds[self.starts[group].astype(np.int64) + r]
        return found
