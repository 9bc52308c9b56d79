"""What a request lends a kind (`engine.kind.Context`), made without a service: roomy limits, fresh
keepers, a memo and stand-ins for the tables, for the engine's tests (and the service tests' keepers)."""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from engine.deadline import Deadline
from engine.errors import LimitExceeded
from engine.keep import Keepers
from engine.kind import Allowance, Context
from engine.kind_settings import KindSettings
from engine.registry import kind_settings as registry_kind_settings
from engine.stored_bytes import StoredBytes
from nimbase.settings import Limits

#: Bounds roomy enough that a test's searches and move lists are never cut short.
ROOMY = Limits(search_states=10**6, remoteness_states=10**6, ranked_moves=1000, answer_chars=10**7)


T = TypeVar("T")


def kind_settings(**variables: str) -> KindSettings:
    """The kinds' own settings as the service reads them (engine.registry.kind_settings), from
    variables given by name (`NIMBASE_LIMITS_CHESS_LIVE_MEN="2"`); none: every kind's defaults."""
    return registry_kind_settings(variables)


def fresh_keepers(settings: KindSettings | None = None) -> Keepers:
    """Empty keepers with the budgets of `settings` (the defaults unless given), as the service makes them."""
    return Keepers(kind_settings() if settings is None else settings)


def engine_context(
    tables: object = None,
    limits: Limits = ROOMY,
    memo: object = None,
    kept: Keepers | None = None,
    settings: KindSettings | None = None,
) -> Context:
    """What a request lends a kind, without a service: `tables` (None where the kind reads none, or a
    fake), the real `Limits` (every field a kind may read), a minute's deadline, `memo` (None: none),
    the kinds' own `settings` (their defaults unless given) and `kept` (fresh keepers with those
    settings' budgets unless given: nothing kept from another test)."""
    settings = kind_settings() if settings is None else settings
    return Context(
        tables=cast(Any, tables),
        limits=limits,
        deadline=Deadline(time.monotonic() + 60),
        memo=cast(Any, memo),
        allowance=Allowance(10**6),
        kept=fresh_keepers(settings) if kept is None else kept,
        settings=settings,
    )


class DictMemo:
    """`engine.kind.Memo` without bounds: what a kind keeps of its searches, for one test."""

    def __init__(self) -> None:
        self.kept: dict[Hashable, object] = {}

    def get_or_compute(self, key: Hashable, compute: Callable[[], T]) -> T:
        if key not in self.kept:
            self.kept[key] = compute()
        return cast(T, self.kept[key])

    def peek(self, key: Hashable) -> object | None:
        return self.kept.get(key)


class HeapValues:
    """The tables' side of a heap game, with nothing stored: v(n) from a plain function (a closed form,
    or an oracle's list), single heaps' remoteness unknown (so sums are searched)."""

    def __init__(self, value_of: Callable[[int], int]) -> None:
        self.value_of = value_of

    def value(self, source: object, n: int, deadline: float) -> tuple[int, str]:
        return self.value_of(n), "formula"

    def lookup_many(self, source: object, ns: list[int], deadline: float) -> dict[int, tuple[int, str]]:
        return {n: self.value(source, n, deadline) for n in ns}

    def remoteness(self, source: object, n: int, deadline: float) -> int | None:
        return None

    def may_block(self) -> None:
        pass

    def may_compute(self) -> None:
        pass


def heap_context(value_of: Callable[[int], int]) -> Context:
    """A context answering a heap game's single heaps by `value_of`, with a memo for its searches."""
    return engine_context(HeapValues(value_of), memo=DictMemo())


class StoredWords:
    """The tables' side of `engine.stored_bytes.read_stored`: words stored per (game, family), nothing
    else (what a worker's job would have stored)."""

    def __init__(self) -> None:
        self.words: dict[tuple[str, str], NDArray[np.uint32]] = {}
        #: Statistics stored beside the words (what the job's kernel made, `SequenceKernel.stats_part`).
        self.stats: dict[tuple[str, str], dict[str, Any]] = {}
        #: How many ranges `word_bytes` read (blocks of blocked tables read as probes need them).
        self.ranges_read = 0
        #: The objects an answer asked a worker's job to store (`Tables.want_stored`), in order.
        self.wanted: list[tuple[str, str]] = []

    def may_block(self) -> None:
        pass

    def may_compute(self) -> None:
        pass

    def want_stored(self, game_id: str, family: str) -> None:
        self.wanted.append((game_id, family))

    def stored_size(self, game_id: str, family: str) -> int:
        return len(self.words.get((game_id, family), ()))

    def known_prefix(self, source: StoredBytes, deadline: float) -> tuple[NDArray[np.uint32], str]:
        return self.words[(source.game_id, source.family)], "table"

    def stored_value(self, game_id: str, family: str, index: int) -> int | None:
        words = self.words.get((game_id, family), ())
        return int(words[index]) if index < len(words) else None

    def stored_stats(self, game_id: str, family: str) -> dict[str, Any] | None:
        return self.stats.get((game_id, family))

    def stored_stats_of(self, game_id: str, families: list[str]) -> dict[str, dict[str, Any] | None]:
        return {family: self.stats.get((game_id, family)) for family in families}

    def word_bytes(self, source: StoredBytes, start: int, stop: int, deadline: float) -> bytes:
        """Stored words start..stop as bytes (a range of a stored object's bytes, engine.stored_bytes)."""
        words = self.words[(source.game_id, source.family)]
        if stop > len(words):
            raise LimitExceeded(f"words {start}..{stop} of {source.game_id} are not all stored")
        self.ranges_read += 1
        return words[start:stop].astype("<u4").tobytes()

    def word_bytes_of(
        self, source: StoredBytes, ranges: Sequence[tuple[int, int]], deadline: float
    ) -> list[bytes]:
        """`word_bytes` of each range, counted as one read."""
        words = self.words[(source.game_id, source.family)]
        if any(stop > len(words) for _, stop in ranges):
            raise LimitExceeded(f"words of {source.game_id} are not all stored")
        self.ranges_read += 1
        return [words[start:stop].astype("<u4").tobytes() for start, stop in ranges]
