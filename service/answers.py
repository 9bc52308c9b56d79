"""Answers to repeated lookups, kept as the bytes a transport sends, so that asking again costs a
dictionary lookup: no parsing, no lookup through the game, no message built or serialized.

Game bots ask for the same few positions over and over (the start of a game, the positions a book
leads to); for them the lookup path, however short, is most of a server's time. Only answers that stay
the same are kept: those from a closed form or the stored table (`KEPT_SOURCES`). Any value is a fact,
but the answer also names its source, and a live one says `table` once the value is stored, one from a
certified period says `table` once the table is extended past it.

Keys are (method, request bytes), as the transport received them. Requests longer than
`MAX_REQUEST_BYTES` are not kept (hot lookups are short): that bounds what a key weighs, so the cache's
bytes (`NIMBASE_CACHE_ANSWER_BYTES`) bound its memory whatever is asked.
"""

from __future__ import annotations

import threading

from engine.lru import LRU, Usage

#: Sources of the answers kept: a stored table only grows, and a closed form never changes.
KEPT_SOURCES = frozenset({"formula", "table"})
#: Requests longer than this are answered as usual but not kept.
MAX_REQUEST_BYTES = 512
#: What an entry weighs besides its answer: its key at the longest, two bytes objects' headers, the
#: dictionary's and the order's links.
ENTRY_BYTES = MAX_REQUEST_BYTES + 256


def _weight(answer: bytes) -> int:
    return ENTRY_BYTES + len(answer)


class AnswerCache:
    """At most `max_bytes` of answers (each weighed as `ENTRY_BYTES` and its length), least recently
    used dropped first. Safe to share between threads and event loops: one lock, held for a dictionary
    operation that changes it."""

    def __init__(self, max_bytes: int) -> None:
        self._answers: LRU[tuple[str, bytes], bytes] = LRU(maxsize=max_bytes, getsizeof=_weight)
        self._max_bytes = max_bytes
        self._lock = threading.Lock()

    def get(self, method: str, request: bytes) -> bytes | None:
        """The answer kept for this request of `method`, if any (read without the lock, `LRU.read`: every
        repeated lookup asks here first)."""
        return self._answers.read((method, request))

    def keep(self, method: str, request: bytes, source: str | None, answer: bytes) -> None:
        """Keep `answer` to `request` if its `source` is one of `KEPT_SOURCES` and the request is short."""
        if source not in KEPT_SOURCES or len(request) > MAX_REQUEST_BYTES:
            return
        if _weight(answer) > self._max_bytes:  # larger than the whole budget (or the cache is off)
            return
        with self._lock:
            self._answers.keep((method, request), answer)

    def usage(self) -> Usage:
        """Its answers, their weights and its budget, for the server's gauges."""
        with self._lock:
            return self._answers.usage()

    def clear(self) -> None:
        with self._lock:
            self._answers.clear()

    def __len__(self) -> int:
        return len(self._answers)
