"""A bounded cache shared by requests, computing each missing entry once however many ask for it.

Like lila-tablebase's `try_get_with`, by engine.once: one small lock guards the cache and is held only
for dictionary operations; an entry being computed has a lock of its own, so a second request for it
waits for the first instead of computing it again, and requests for other entries never wait at all. A
request that may not wait (memory-first lookups on the event loop) is told so by `may_block` before it
would.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from engine.lru import Usage
from engine.once import Once
from service.learned import MEMO, Journal

T = TypeVar("T")


#: Bytes any entry is counted as besides its arrays, and per 64 heaps of a position in its key: generous
#: for a search's answer or a stats dict, so `max_bytes` bounds what the memo holds.
ENTRY_BYTES = 4096


def _weight(key: Hashable, value: Any) -> int:
    """Bytes of an entry: its array's, and ENTRY_BYTES per entry and per 64 parts of a tuple key (positions
    are keys)."""
    parts = sum(len(part) for part in key if isinstance(part, tuple)) if isinstance(key, tuple) else 0
    return ENTRY_BYTES * (1 + parts // 64) + int(getattr(value, "nbytes", 0))


class Memo:
    """LRU cache of at most `max_bytes` (see `_weight`), with per-entry computation locks."""

    def __init__(self, max_bytes: int, may_block: Callable[[], None], journal: Journal | None = None) -> None:
        """`journal` records the entries computed here (service.learned)."""
        self._once: Once[Hashable, Any] = Once(max_bytes, _weight)
        self._may_block = may_block
        self._journal = journal if journal is not None else Journal()

    def get_or_compute(self, key: Hashable, compute: Callable[[], T]) -> T:
        kept = self._once.entry(key)
        if kept is not None:
            found: T = kept.value
            return found
        self._may_block()

        def make() -> T:
            value = compute()
            self._journal.record(MEMO, key, value)
            return value

        # An entry larger than the whole cache is computed for this caller only.
        made: T = self._once.get(key, make)
        return made

    def adopt(self, key: Hashable, value: object) -> None:
        """Keep an entry computed elsewhere (a live process: service.learned), unless one is kept."""
        if self._once.entry(key) is None:
            self._once.keep(key, value)

    def peek(self, key: Hashable) -> object | None:
        entry = self._once.entry(key)
        return None if entry is None else entry.value

    def clear(self) -> None:
        self._once.clear()

    def usage(self) -> Usage:
        """Its entries, their weights and its budget, for the server's gauges."""
        return self._once.usage()
