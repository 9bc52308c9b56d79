"""What a live process computed that the server keeps too: the entries its memo and its live sequences
gained while it answered a call travel back with the answer (service.isolation), and the server keeps them
in its own memory, so that the next request needing them is a memory answer, given where it arrives.

Without this, a request whose answer needs a computation once (a remoteness search of a Nim sum, the live
prefix that gives a heap's remoteness, a period certified live) went to a live process every time it was
asked: the server's memory never held what the process had computed, and the answer cache, which keeps
only memory answers, never answered it either.

The entries are facts (a search's result, values computed from 0 and the period they certify): whichever
process computed them, keeping them answers the same. The caches that take them keep their byte budgets.
"""

from __future__ import annotations

import contextlib
import logging
import pickle
from collections.abc import Hashable, Iterator

log = logging.getLogger(__name__)

#: One learned entry: the cache it belongs to (`MEMO`, `LIVE`), its key and its value.
Entry = tuple[str, Hashable, object]

MEMO = "memo"
LIVE = "live"
#: Most bytes of arrays one call sends back (a live prefix of 2^22 values and their remoteness weighs
#: 48 MiB): what is left out is asked of a live process again, as before. It bounds the copy a process
#: makes within its memory cap, and what the pipe carries.
MAX_BYTES = 16 << 20


class Journal:
    """Records what the caches that share it gain, while `recording` (in a live process, one call at a
    time); records nothing otherwise (in the server)."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: list[Entry] | None = None

    def record(self, cache: str, key: Hashable, value: object) -> None:
        entries = self._entries
        if entries is not None:
            entries.append((cache, key, value))

    @contextlib.contextmanager
    def recording(self) -> Iterator[list[Entry]]:
        """The entries gained inside the block (the list fills as they are)."""
        entries: list[Entry] = []
        self._entries = entries
        try:
            yield entries
        finally:
            self._entries = None


def pack(entries: list[Entry]) -> bytes | None:
    """The entries for the pipe, or None when there are none or they do not pickle (or do not fit in the
    process's memory cap): the answer then goes back alone, as it did before."""
    if not entries:
        return None
    # A prefix grown in steps is recorded at each: only the last of each key is worth sending.
    last = {(cache, key): value for cache, key, value in entries}
    sent: list[Entry] = []
    room = MAX_BYTES
    for (cache, key), value in last.items():
        weight = array_bytes(value)
        if weight <= room:
            room -= weight
            sent.append((cache, key, value))
    if not sent:
        return None
    try:
        return pickle.dumps(sent, protocol=pickle.HIGHEST_PROTOCOL)
    except (MemoryError, pickle.PicklingError, TypeError, AttributeError):
        log.warning("what a live computation learned could not be sent back (%d entries)", len(entries))
        return None


def array_bytes(value: object) -> int:
    """Bytes of the arrays an entry holds (a live prefix's values and remoteness, a result's array)."""
    total = int(getattr(value, "nbytes", 0))
    for name in ("values", "remoteness"):
        total += int(getattr(getattr(value, name, None), "nbytes", 0))
    return total


def unpack(packed: bytes) -> list[Entry]:
    entries: list[Entry] = pickle.loads(packed)
    return entries
