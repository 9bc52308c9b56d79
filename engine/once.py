"""Compute once per key, under the key's own lock, kept within a byte budget: the one primitive behind the
keepers of objects stored whole (engine.keep), the service's memo (service.memo) and the live sequences'
growth (service.sequences.live).

One small lock guards the kept values (an LRU, least recently used dropped first) and the keys' locks,
and is held only for dictionary operations. A key being made has a lock of its own: a second caller for
it waits on that lock (as its caller says: until a deadline, or a timeout) and then finds the value kept,
while callers for other keys never wait at all. A key's lock is dropped once nobody holds or waits for
it, so the locks are as many as the keys being made. A value larger than the whole budget serves its
caller and is not kept.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import AbstractContextManager
from typing import Generic, TypeVar

from engine.lru import LRU, Usage

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Entry(Generic[V]):
    """A kept value and the bytes it is counted as."""

    __slots__ = ("value", "weight")

    def __init__(self, value: V, weight: int) -> None:
        self.value = value
        self.weight = weight


class _KeyLock:
    """A key's lock and how many callers hold or wait for it."""

    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0


def _plain(lock: threading.Lock) -> AbstractContextManager[object]:
    return lock


class Once(Generic[K, V]):
    """Values by key, each made once however many ask, kept within `max_bytes` (each weighed by
    `weigh(key, value)`). Thread-safe."""

    def __init__(self, max_bytes: int, weigh: Callable[[K, V], int]) -> None:
        self._kept: LRU[K, Entry[V]] = LRU(max_bytes, getsizeof=lambda entry: entry.weight)
        self._keys: dict[K, _KeyLock] = {}
        self._weigh = weigh
        self._lock = threading.Lock()

    @property
    def max_bytes(self) -> int:
        return self._kept.maxsize

    @property
    def kept_bytes(self) -> int:
        """The weights of every kept value together."""
        with self._lock:
            return self._kept.currsize

    def usage(self) -> Usage:
        """Its values, their bytes and its budget, for the server's gauges."""
        with self._lock:
            return self._kept.usage()

    def entry(self, key: K) -> Entry[V] | None:
        """What is kept for `key` (now the most recently used), if anything: never makes, never waits (a
        read without the lock, `LRU.read`: every stored heap's remoteness looks here)."""
        return self._kept.read(key)

    def __contains__(self, key: K) -> bool:
        with self._lock:
            return key in self._kept

    def keep(self, key: K, value: V) -> bool:
        """Keep `value` for `key` (unless it alone is larger than the whole budget); whether it was kept."""
        entry = Entry(value, self._weigh(key, value))
        with self._lock:
            return self._kept.keep(key, entry)

    def replace(self, key: K, value: V, replacing: V) -> bool:
        """Keep `value` for `key` only while what is kept there is `replacing` (or nothing); whether it
        was."""
        entry = Entry(value, self._weigh(key, value))
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None and kept.value is not replacing:
                return False
            return self._kept.keep(key, entry)

    def discard(self, key: K) -> None:
        """Keep nothing for `key` (whether or not anything was)."""
        with self._lock:
            self._kept.pop(key)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

    @contextlib.contextmanager
    def holding(
        self, key: K, hold: Callable[[threading.Lock], AbstractContextManager[object]] = _plain
    ) -> Iterator[None]:
        """The key's own lock held (`hold` waits for it: a deadline's, a timeout's); dropped once nobody
        holds or waits for it."""
        with self._lock:
            entry = self._keys.setdefault(key, _KeyLock())
            entry.users += 1
        try:
            with hold(entry.lock):
                yield
        finally:
            with self._lock:
                entry.users -= 1
                if entry.users == 0:
                    del self._keys[key]

    def get(
        self,
        key: K,
        make: Callable[[], V],
        hold: Callable[[threading.Lock], AbstractContextManager[object]] = _plain,
    ) -> V:
        """The value for `key`: kept, else made under the key's lock (once: a caller that waited finds it
        kept) and kept."""
        found = self.entry(key)
        if found is not None:
            return found.value
        with self.holding(key, hold):
            found = self.entry(key)
            if found is not None:
                return found.value
            value = make()
            self.keep(key, value)
            return value
