"""A least-recently-used cache bounded by a count or by bytes: the service's hot lookups, and the objects
the engine keeps whole (engine.keep).

Every GetValue reads four or five caches (the game, the table's header, the chunk, the live prefix, the
memo). cachetools' LRUCache costs about 0.5 µs a read (a membership test, a lookup through two layers
of methods and the reordering); this one costs a dictionary lookup and a `move_to_end`, a third of
that, for the same behaviour: least recently used dropped first, and a value larger than the whole
budget refused with ValueError, the cache left as it was (`keep` says so instead: callers then serve
it without keeping it).

Not thread-safe by itself: its users (the service, engine.keep) hold their own lock around every use,
except `read`, which may be called without it where a lookup is all the caller does.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

_MISSING = object()


@dataclass(frozen=True, slots=True)
class Usage:
    """What a cache holds now, for the server's gauges (service.metrics): its entries and, for a cache
    bounded by bytes, their bytes and its budget; for one bounded by a count, that count (`max_entries`)."""

    entries: int
    #: None where the cache is bounded by a count (its entries are not weighed).
    bytes: int | None = None
    budget_bytes: int | None = None
    max_entries: int | None = None


class LRU(Generic[K, V]):
    """At most `maxsize` entries, or, with `getsizeof`, entries whose sizes add up to at most `maxsize`."""

    __slots__ = ("_data", "_getsizeof", "_sizes", "currsize", "maxsize")

    def __init__(self, maxsize: int, getsizeof: Callable[[V], int] | None = None) -> None:
        self._data: OrderedDict[K, V] = OrderedDict()
        #: Each entry's size as it was weighed when stored (None: every entry counts 1).
        self._sizes: dict[K, int] | None = None if getsizeof is None else {}
        self._getsizeof = getsizeof
        self.maxsize = maxsize
        self.currsize = 0

    def get(self, key: K) -> V | None:
        """The value kept for `key` (now the most recently used), or None."""
        value = self._data.get(key, _MISSING)
        if value is _MISSING:
            return None
        self._data.move_to_end(key)
        return value  # type: ignore[return-value]

    def read(self, key: K) -> V | None:
        """`get`, safe without the owner's lock (each dictionary operation holds the GIL; a key dropped by
        another thread between the lookup and the reordering is served once more, not reordered): what a
        hot lookup costs without a lock taken and released."""
        value = self._data.get(key, _MISSING)
        if value is _MISSING:
            return None
        try:  # noqa: SIM105 - contextlib.suppress would cost this hot read a context manager
            self._data.move_to_end(key)
        except KeyError:
            pass
        return value  # type: ignore[return-value]

    def __getitem__(self, key: K) -> V:
        value = self._data[key]
        self._data.move_to_end(key)
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __setitem__(self, key: K, value: V) -> None:
        size = 1 if self._getsizeof is None else self._getsizeof(value)
        if size > self.maxsize:
            raise ValueError(f"a value of size {size} does not fit a cache of {self.maxsize}")
        self.pop(key)
        while self._data and self.currsize + size > self.maxsize:
            self._drop(self._oldest())
        self._data[key] = value
        if self._sizes is not None:
            self._sizes[key] = size
        self.currsize += size

    def _oldest(self) -> K:
        """The least recently used key: a `read` without the owner's lock may reorder the dictionary
        between its iterator's making and its first step, which OrderedDict refuses; then look again."""
        while True:
            try:
                return next(iter(self._data))
            except RuntimeError:
                continue

    def keep(self, key: K, value: V) -> bool:
        """`self[key] = value`, unless the value alone is larger than the whole budget: then the cache is
        left as it was (the caller serves the value without keeping it). Whether it was kept."""
        try:
            self[key] = value
        except ValueError:
            return False
        return True

    def __delitem__(self, key: K) -> None:
        if key not in self._data:
            raise KeyError(key)
        self._drop(key)

    def pop(self, key: K) -> V | None:
        """Forget `key`; its value, or None if none was kept."""
        if key not in self._data:
            return None
        value = self._data[key]
        self._drop(key)
        return value

    def clear(self) -> None:
        self._data.clear()
        if self._sizes is not None:
            self._sizes.clear()
        self.currsize = 0

    def usage(self) -> Usage:
        """Its entries, and their bytes within its budget (or its count bound, without `getsizeof`)."""
        if self._sizes is None:
            return Usage(len(self._data), max_entries=self.maxsize)
        return Usage(len(self._data), self.currsize, self.maxsize)

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._data))  # a copy: a `read` without the lock may reorder the dictionary

    def __len__(self) -> int:
        return len(self._data)

    def _drop(self, key: K) -> None:
        del self._data[key]
        self.currsize -= 1 if self._sizes is None else self._sizes.pop(key)
