"""Objects stored whole (a solved graph, an endgame table, a shape's elimination, its statistics), kept in
the process: one ladder for every kind that needs one.

A kind asks its `Keeper` (`Context.kept.keeper(SPEC)`, owned by the service; the kind declares SPEC and
its budget in its own settings, engine.kind_settings) for an object by key, and the keeper walks the
ladder, cheapest first:
- kept: the object in memory, if one is kept; a stored one is final, one made live is looked up in
  storage again every STORED_RECHECK_SECONDS (`StoredLook`: a job may have stored it since);
- stored: the object a worker's job stored, read through the request's `ctx.tables`
  (engine.stored_bytes.read_stored), kept from then on (`source` "table");
- made live: where the kind allows it for this request (else its `refuse` raises the refusal naming the
  queued job), made once per key under the key's own lock (engine.once: other requests for it wait on
  that lock until their deadline, `Deadline.holding`, and find it made), kept (`source` "live").

Kept objects are bounded by bytes (an LRU, least recently used dropped first); an object larger than the
whole budget serves its request and is not kept.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar, cast

from engine.deadline import Deadline
from engine.kind_settings import KeeperSpec, KindSettings, SettingsDeclaration
from engine.lru import Usage
from engine.once import Once

T = TypeVar("T")

#: While a kind answers from an object it made live, it looks for a stored one this often at most: a job
#: may have stored it since (answers then say `source: "table"`), but looking on every request would cost
#: each its header read, and a database round trip whenever the header is stale.
STORED_RECHECK_SECONDS = 5.0


class StoredLook:
    """When to look in storage again for an object made live: `due` once STORED_RECHECK_SECONDS have
    passed since it was made (just after storage was looked at) or since the last look."""

    __slots__ = ("_at",)

    def __init__(self) -> None:
        self._at = time.monotonic()

    def due(self) -> bool:
        """Whether to look now; a look said due counts as done (two threads may both look: harmless)."""
        now = time.monotonic()
        if now - self._at < STORED_RECHECK_SECONDS:
            return False
        self._at = now
        return True

    def expire(self) -> None:
        """Make the next look due at once."""
        self._at = -math.inf


#: Where a kept object came from: a worker's job ("table") or this process ("live").
Origin = Literal["table", "live"]


@dataclass(frozen=True, slots=True)
class Kept(Generic[T]):
    """An object and where it came from (answers say so as their `source`)."""

    value: T
    source: Origin
    #: Its bytes, as the keeper counts them.
    weight: int


class Keeper:
    """Objects stored whole, kept by key within `max_bytes` (each counted as the weight its kind gives).

    Thread-safe. Keys should name what they key (a kind's own tuple, e.g. ("chess", "KRvK")): a keeper
    may be shared by several uses."""

    def __init__(self, max_bytes: int) -> None:
        self._kept: Once[Hashable, Kept[object]] = Once(max_bytes, lambda _key, kept: kept.weight)
        #: For each key kept live: when to look in storage again (under `_lock`).
        self._looks: dict[Hashable, StoredLook] = {}
        self._lock = threading.Lock()

    @property
    def max_bytes(self) -> int:
        return self._kept.max_bytes

    @property
    def kept_bytes(self) -> int:
        """The weights of every kept object together."""
        return self._kept.kept_bytes

    def usage(self) -> Usage:
        """Its objects, their bytes and its budget, for the server's gauges."""
        return self._kept.usage()

    def peek(self, key: Hashable) -> Kept[object] | None:
        """What is kept for `key` (now the most recently used), if anything: never reads, never makes."""
        entry = self._kept.entry(key)
        return None if entry is None else entry.value

    def __contains__(self, key: Hashable) -> bool:
        return key in self._kept

    def keep(self, key: Hashable, value: T, source: Origin, weight: int) -> Kept[T]:
        """Keep `value` for `key` (unless it alone is larger than the whole budget); the kept record."""
        kept = Kept(value, source, weight)
        stored = self._kept.keep(key, cast(Kept[object], kept))
        with self._lock:
            if stored:
                if source == "live":
                    self._looks[key] = StoredLook()  # made just after storage was looked at
                else:
                    self._looks.pop(key, None)
            for gone in [k for k in self._looks if k not in self._kept]:
                del self._looks[gone]
        return kept

    def discard(self, key: Hashable) -> None:
        """Keep nothing for `key` any more (what a kind kept meanwhile, now made whole)."""
        self._kept.discard(key)
        with self._lock:
            self._looks.pop(key, None)

    def get(
        self,
        key: Hashable,
        deadline: Deadline,
        *,
        what: str,
        read: Callable[[], T | None],
        make: Callable[[], T],
        weigh: Callable[[T], int],
        refuse: Callable[[], None] | None = None,
        before_make: Callable[[], None] | None = None,
    ) -> Kept[T]:
        """The object for `key`: kept, else `read` from storage (None: not stored), else (after `refuse`,
        which raises where it may not be made for this request, and `before_make`) `make`d once under
        the key's lock, waited for until `deadline` (`what` names the work in DeadlineExceeded)."""
        kept = cast("Kept[T] | None", self.peek(key))
        if kept is not None and (kept.source == "table" or not self._look_due(key)):
            return kept
        stored = self._read(key, read, weigh)
        if stored is not None:
            return stored
        if kept is not None:
            return kept
        if refuse is not None:
            refuse()
        if before_make is not None:
            before_make()
        with self._kept.holding(key, lambda lock: deadline.holding(lock, what)):
            kept = cast("Kept[T] | None", self.peek(key))
            if kept is not None:
                return kept
            value = make()
            return self.keep(key, value, "live", weigh(value))

    def stored(
        self, key: Hashable, read: Callable[[], T | None], weigh: Callable[[T], int]
    ) -> Kept[T] | None:
        """The stored object for `key`: kept (a stored one is final), else `read` now and kept; None where
        nothing is stored (for objects a kind makes live for each request, not kept)."""
        kept = cast("Kept[T] | None", self.peek(key))
        if kept is not None and kept.source == "table":
            return kept
        return self._read(key, read, weigh)

    def _read(self, key: Hashable, read: Callable[[], T | None], weigh: Callable[[T], int]) -> Kept[T] | None:
        stored = read()
        return None if stored is None else self.keep(key, stored, "table", weigh(stored))

    def look_again(self) -> None:
        """Have the next `get` of every object made live look in storage first (a service adopting
        objects made where storage was not read: service.warm_up)."""
        with self._lock:
            for look in self._looks.values():
                look.expire()

    def _look_due(self, key: Hashable) -> bool:
        with self._lock:
            look = self._looks.get(key)
        return look is not None and look.due()


class Keepers:
    """The keepers a service owns, lent to each request as `Context.kept`: one per `KeeperSpec` a kind
    declares, made on first use with the byte budget the kinds' settings give it (NIMBASE_CACHE_*_BYTES).
    Naming no kind, it needs no edit when a kind that keeps something is added."""

    def __init__(self, settings: KindSettings | None = None) -> None:
        self._settings = KindSettings() if settings is None else settings
        self._keepers: dict[KeeperSpec, Keeper] = {}
        self._lock = threading.Lock()

    def keeper(self, spec: KeeperSpec) -> Keeper:
        """The keeper `spec` declares (made now, empty, if this is its first use)."""
        with self._lock:
            keeper = self._keepers.get(spec)
            if keeper is None:
                keeper = self._keepers[spec] = Keeper(spec.budget_of(self._settings))
            return keeper

    def look_again(self) -> None:
        """`Keeper.look_again` of every keeper made so far."""
        with self._lock:
            made = list(self._keepers.values())
        for keeper in made:
            keeper.look_again()

    def usage(self, specs: Iterable[KeeperSpec] = ()) -> dict[KeeperSpec, Usage]:
        """What each keeper made so far holds, and each of `specs` not made yet (empty, with its budget):
        the server's gauges list every keeper the kinds declare from its start."""
        with self._lock:
            made = dict(self._keepers)
        found = {spec: Usage(0, 0, spec.budget_of(self._settings)) for spec in specs}
        found.update({spec: keeper.usage() for spec, keeper in made.items()})
        return found


def keeper_names(declarations: Iterable[SettingsDeclaration]) -> dict[KeeperSpec, str]:
    """Each keeper the `declarations` declare, named as its budget's variable is without its group and
    unit (NIMBASE_CACHE_CHESS_TABLE_BYTES: "chess_table"): a name for gauges that no table of kinds lists."""
    return {
        spec: f"{declaration.prefix}_{spec.budget.removesuffix('_bytes')}"
        for declaration in declarations
        for spec in declaration.keepers
    }
