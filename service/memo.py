"""A bounded cache shared by requests, computing each missing entry once however many ask for it.

Like lila-tablebase's `try_get_with`: one small lock guards the cache and is held only for dictionary
operations; an entry being computed has a lock of its own, so a second request for it waits for the
first instead of computing it again, and requests for other entries never wait at all. A request that
may not wait (memory-first lookups on the event loop) is told so by `may_block` before it would.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from engine.lru import LRU, Usage
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


class _Entry:
    """A cached value with its weight (the cache weighs values only; a long key weighs too)."""

    __slots__ = ("value", "weight")

    def __init__(self, value: Any, weight: int) -> None:
        self.value = value
        self.weight = weight


class Memo:
    """LRU cache of at most `max_bytes` (see `_weight`), with per-entry computation locks."""

    def __init__(self, max_bytes: int, may_block: Callable[[], None], journal: Journal | None = None) -> None:
        """`journal` records the entries computed here (service.learned)."""
        self._cache: LRU[Hashable, _Entry] = LRU(maxsize=max_bytes, getsizeof=lambda e: e.weight)
        self._lock = threading.Lock()
        self._computing: dict[Hashable, threading.Lock] = {}
        self._may_block = may_block
        self._journal = journal if journal is not None else Journal()

    def get_or_compute(self, key: Hashable, compute: Callable[[], T]) -> T:
        with self._lock:
            kept = self._cache.get(key)
            if kept is not None:
                found: T = kept.value
                return found
            entry = self._computing.setdefault(key, threading.Lock())
        self._may_block()
        with entry:
            with self._lock:
                kept = self._cache.get(key)
                if kept is not None:
                    again: T = kept.value
                    return again
            try:
                value = compute()
            except BaseException:
                with self._lock:
                    self._computing.pop(key, None)
                raise
            with self._lock:
                # An entry larger than the whole cache is computed for this caller only.
                self._cache.keep(key, _Entry(value, _weight(key, value)))
                self._computing.pop(key, None)
            self._journal.record(MEMO, key, value)
            return value

    def adopt(self, key: Hashable, value: object) -> None:
        """Keep an entry computed elsewhere (a live process: service.learned), unless one is kept."""
        with self._lock:
            if self._cache.get(key) is None:
                self._cache.keep(key, _Entry(value, _weight(key, value)))

    def peek(self, key: Hashable) -> object | None:
        with self._lock:
            entry = self._cache.get(key)
        return None if entry is None else entry.value

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()

    def usage(self) -> Usage:
        """Its entries, their weights and its budget, for the server's gauges."""
        with self._lock:
            return self._cache.usage()
