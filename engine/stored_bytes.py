"""Objects stored whole as a family of uint32 words: Lights Out's eliminations, solved game graphs, chess
endgame tables.

The sequence storage holds uint32 values in checksummed, bit-packed, deflated chunks; an object that is
not a sequence (bytes made at once by a worker) goes through it as words: its byte count (two words, low
first), then the bytes zero-padded to whole words (`encode_words`; `decode_words` reads them back,
ValueError when they are not all there, e.g. while a job is still writing them). Everything else is the
sequences' own: chunks, checkpoints, leases, repairs, caches.

- `BytesKernel` is what a worker runs for such a family: it makes the object at once (`make`, with
  progress), and `length` tells the worker how many words to store: the job ends there whatever `upto`
  it was given.
- `StoredBytes` is the family as the service's sequence tables see it (read only, never grown live),
  and `read_stored(game_id, family, ctx, what, decode)` gives the stored object through `ctx.tables`,
  decoded, or None where none is stored whole or what is stored does not decode.
- An object too large to read whole for each use is read by parts: `stored_object_size` gives its byte
  count once all of it is stored, and `read_stored_range` a byte range of it, as the stored words holding
  that range (`Tables.word_bytes`). A worker stores an object made whole as plain words (no bit-packing,
  no deflate: storage.packing.encode_plain), so the database gives such a range alone, not its chunk.
  Such a part is not verified by its chunk's checksum (which covers the whole chunk): a kind reading
  by ranges checks what it reads by its own checksums (chess tables' blocks carry their CRC-32).
"""

from __future__ import annotations

import struct
import zlib
from abc import abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from engine.errors import NimbaseError
from engine.kind import Context, SequenceDefaults, SequenceKernel
from engine.periods import Period

U32 = NDArray[np.uint32]
T = TypeVar("T")


def encode_words(data: bytes) -> U32:
    """`data` as uint32 words: its byte count (two words, low first), then the bytes zero-padded."""
    size = len(data)
    padded = data + b"\x00" * (-size % 4)
    words = np.frombuffer(padded, dtype="<u4").astype(np.uint32)
    return np.concatenate([np.array([size & 0xFFFFFFFF, size >> 32], dtype=np.uint32), words])


def decode_words(words: U32, what: str = "a stored object") -> bytes:
    """The bytes `encode_words` stored (words past them, zeros an automatic job added, are ignored);
    ValueError when they are not all there."""
    if len(words) < 2:
        raise ValueError(f"{what} holds at least its size")
    size = int(words[0]) | int(words[1]) << 32
    data = np.ascontiguousarray(words[2:], dtype="<u4").tobytes()
    if size > len(data):
        raise ValueError(f"{what} of {size} bytes holds {len(data)}")
    return data[:size]


def words_for(size: int) -> int:
    """How many words `encode_words` makes of `size` bytes."""
    return 2 + -(-size // 4)


class BytesKernel(SequenceKernel):
    """A worker's kernel for an object stored as words: `make` gives its bytes, once (kept for the next
    steps of the job); `extend` slices the words and pads past them with zeros."""

    certifies = False

    def __init__(self) -> None:
        self._words: U32 | None = None

    @abstractmethod
    def make(self, progress: Callable[[int, int], None] | None = None) -> bytes:
        """The object's bytes (the costly part: progress(done, total) as it goes)."""

    def words(self, progress: Callable[[int, int], None] | None = None) -> U32:
        if self._words is None:
            self._words = encode_words(self.make(progress))
        return self._words

    def length(self, progress: Callable[[int, int], None] | None = None) -> int | None:
        return len(self.words(progress))

    def extend(self, prefix: U32, stop: int) -> U32:
        words = self.words()
        if stop <= len(words):
            return words[:stop].copy()
        return np.concatenate([words, np.zeros(stop - len(words), dtype=np.uint32)])

    def certify(self, values: U32) -> Period | None:
        return None

    def load(self) -> None:
        """Nothing: an object is made whole before its steps, under no time bound."""

    def object_stats(self) -> dict[str, Any] | None:
        """The made object's whole-table statistics (JSON), once `make` has made it; None where the kind
        stores none. A kernel computes them as it makes the object, while it holds it unpacked."""
        return None

    def stats_part(self, values: U32, start: int) -> dict[str, Any] | None:
        """The object's statistics once every word of it is in `values` (the step storing its last words),
        else None: an object is summarised whole, never in parts."""
        words = self._words
        if words is None or len(values) < len(words):
            return None
        return self.object_stats()

    def reference(self, stop: int) -> list[int]:
        return [int(v) for v in self.extend(np.zeros(0, np.uint32), stop)]


@dataclass(frozen=True, slots=True)
class StoredBytes(SequenceDefaults):
    """A family stored as words, as the sequence tables see it (`SequenceSource`): read only, never
    computed live (`live_limit` 0, no kernel)."""

    game_id: str
    family: str
    live_limit: int | None = 0


def read_stored(game_id: str, family: str, ctx: Context, what: str, decode: Callable[[bytes], T]) -> T | None:
    """The object stored as (game_id, family) through `ctx.tables`, `decode`d from its bytes, or None:
    nothing stored, not all of it yet (a job still writing), not readable now (the database down, a
    damaged chunk), or bytes that do not decode (another version's layout: the caller makes it again).
    `decode` says so by raising ValueError (struct.error and zlib.error count as such)."""
    try:
        stored = ctx.tables.stored_size(game_id, family)
        low, high = ctx.tables.stored_value(game_id, family, 0), ctx.tables.stored_value(game_id, family, 1)
        if low is None or high is None or stored < words_for(low | high << 32):
            return None  # not all there (a job still writing it): not worth reading what is
        words, _ = ctx.tables.known_prefix(StoredBytes(game_id, family), ctx.deadline.at)
        return decode(decode_words(words, what))
    except (NimbaseError, ValueError, struct.error, zlib.error):
        return None


def stored_object_size(game_id: str, family: str, ctx: Context) -> int | None:
    """The byte count of the object stored whole as (game_id, family), or None where none is stored, not
    all of it yet (a job still writing it) or it cannot be read now. Its first two words are read alone
    (`Tables.word_bytes`), not the chunk holding them."""
    try:
        stored = ctx.tables.stored_size(game_id, family)
        if stored < 2:
            return None
        head = ctx.tables.word_bytes(StoredBytes(game_id, family), 0, 2, ctx.deadline.at)
    except NimbaseError:
        return None
    size = int.from_bytes(head, "little")
    return size if stored >= words_for(size) else None


def read_stored_range(game_id: str, family: str, ctx: Context, start: int, stop: int) -> bytes:
    """Bytes start..stop of the object stored whole as (game_id, family), read through `ctx.tables` as
    the stored words holding them: a kind reads part of a large object without reading all of it.

    Where its chunks are stored as plain words (what a worker stores now), only those words are read
    from the database, and they are NOT checked against their chunk's checksum, which covers the whole
    chunk: the caller checks them by a checksum of its own (a chess block's CRC-32, checked as it is
    decoded) and refuses what fails it. Chunks stored otherwise (bit-packed, deflated: an older store)
    are read whole and verified. Whole-object readers (`read_stored`, a worker's inputs) read whole
    chunks, verified. The tables' own errors (a damaged chunk's UNAVAILABLE naming its repair, the
    database down, a refusal past the stored words) are raised."""
    if not 0 <= start <= stop:
        raise ValueError(f"invalid byte range {start}..{stop}")
    if start == stop:
        return b""
    first, last = 2 + start // 4, 2 + -(-stop // 4)
    data = ctx.tables.word_bytes(StoredBytes(game_id, family), first, last, ctx.deadline.at)
    at = start - 4 * (first - 2)
    return data[at : at + stop - start]


def read_stored_ranges(
    game_id: str, family: str, ctx: Context, ranges: Sequence[tuple[int, int]]
) -> list[bytes]:
    """`read_stored_range` of each byte range of `ranges` (start <= stop), the words storage must give
    read together: one round trip to the database for a reader needing several parts at once."""
    words: list[tuple[int, int]] = []
    for start, stop in ranges:
        if not 0 <= start <= stop:
            raise ValueError(f"invalid byte range {start}..{stop}")
        words.append((2 + start // 4, 2 + -(-stop // 4)) if start < stop else (0, 0))
    found = ctx.tables.word_bytes_of(StoredBytes(game_id, family), words, ctx.deadline.at)
    out = []
    for (start, stop), (first, _), data in zip(ranges, words, found, strict=True):
        at = start - 4 * (first - 2)
        out.append(data[at : at + stop - start] if start < stop else b"")
    return out
