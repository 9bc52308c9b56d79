"""Sequences computed live: one in-memory prefix per sequence, grown within the request's deadline.

A prefix grows geometrically from 0, its kernel certifying the period after each growth (a certified
period then answers every larger index). Each step's cost is predicted from the last one's measured
speed, so a request gives up at once when the next step would overrun its deadline instead of finding
out afterwards; what was computed is kept, and the next request continues from it. Only costly steps
wait for one of the few turns (Limits.live_computations). Prefixes are cached within a byte budget
(NIMBASE_CACHE_LIVE_BYTES); each grows under its own sequence's lock, and the cache's lock is held only
for dictionary operations (engine.once).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from engine.errors import DeadlineExceeded
from engine.kind import SequenceKernel, SequenceSource
from engine.lru import Usage
from engine.once import Once
from engine.periods import Period
from nimbase.settings import DEFAULT_CACHE
from service.learned import LIVE, Journal
from service.limits import Limits
from service.sequences.modes import Modes
from service.sequences.names import SequenceKey, item, name
from service.sequences.weights import array_bytes

#: Live prefixes grow in steps of at most this many values, checking the deadline between steps.
LIVE_STEP = 1 << 18
#: The first live step (and the smallest): small enough for a quadratic kernel to take milliseconds.
FIRST_LIVE = 1024
#: Steps predicted to take less than this (seconds) run without waiting for a turn.
QUICK_STEP = 0.02


@dataclass(frozen=True, slots=True)
class Live:
    """A sequence's values computed live from 0, the period they certify, and the kernel's measured speed.

    Frozen: the cache weighs an entry once, when it is stored, so a change is a new entry.
    """

    values: NDArray[np.uint32]
    period: Period | None
    #: How many values the period certificate was last tried on.
    certified_upto: int
    remoteness: NDArray[np.int64] | None = None
    #: Seconds per value of the last step (None before the first): predicts the next step's cost.
    seconds_per_value: float | None = None


class LiveSequences:
    """The live prefixes of every sequence: cached, grown on demand, their growth's cost predicted."""

    def __init__(
        self,
        limits: Limits,
        modes: Modes,
        *,
        live_bytes: int = DEFAULT_CACHE.live_bytes,
        journal: Journal | None = None,
    ) -> None:
        """`journal` records the prefixes grown here (service.learned)."""
        self._limits = limits
        self._journal = journal if journal is not None else Journal()
        self._modes = modes
        #: The prefixes by sequence, and each sequence's growth lock.
        self._live: Once[SequenceKey, Live] = Once(live_bytes, lambda _key, live: _live_bytes(live))
        #: Turns for live computation (Limits.live_computations at once).
        self._computing = threading.BoundedSemaphore(limits.live_computations)

    def limit(self, source: SequenceSource) -> int:
        """Most values computed live for one sequence (the request's deadline may stop it sooner)."""
        own = source.live_limit
        return self._limits.live_values if own is None else min(own, self._limits.live_values)

    def cached(self, source: SequenceSource) -> Live | None:
        """The sequence's cached prefix, if any."""
        entry = self._live.entry((source.game_id, source.family))
        return None if entry is None else entry.value

    def cached_bytes(self) -> int:
        """Bytes the live prefixes cached now hold (within their budget)."""
        return self._live.kept_bytes

    def usage(self) -> dict[str, Usage]:
        """What its cache holds, by name, for the server's gauges."""
        return {"sequence_live": self._live.usage()}

    def _store(self, source: SequenceSource, live: Live, *, replacing: Live | None = None) -> None:
        """Cache a live prefix (unless it exceeds the whole budget); with `replacing`, only while that
        one is still the cached entry (a concurrent growth is never undone)."""
        key = (source.game_id, source.family)
        if replacing is None:
            self._live.keep(key, live)
        else:
            self._live.replace(key, live, replacing)
        self._journal.record(LIVE, key, live)

    def adopt(self, key: SequenceKey, live: Live) -> None:
        """Keep a prefix grown elsewhere (a live process: service.learned) where it knows at least what the
        cached one knows: as many values, the period if that is certified, the remoteness if computed."""
        kept = self._live.entry(key)
        if kept is None:
            self._live.keep(key, live)
            return
        cached = kept.value
        if (
            len(live.values) >= len(cached.values)
            and (live.period is not None or cached.period is None)
            and (live.remoteness is not None or cached.remoteness is None)
        ):
            self._live.replace(key, live, cached)

    def add_remoteness(self, source: SequenceSource, live: Live, remoteness: NDArray[np.int64]) -> None:
        """Keep the remoteness computed over a cached prefix with it (weighed anew)."""
        self._store(source, replace(live, remoteness=remoteness), replacing=live)

    def seconds(self, source: SequenceSource, stop: int) -> float | None:
        """Seconds growing the live prefix to `stop` values should take, predicted as `grow` predicts its
        steps from the last one's speed; None before any step was measured."""
        live = self.cached(source)
        if live is None or live.seconds_per_value is None:
            return None
        size, seconds = len(live.values), 0.0
        while size < stop:
            step = min(stop, size + max(FIRST_LIVE, min(size, LIVE_STEP)))
            seconds += live.seconds_per_value * (step - size) * step / max(size, 1)
            size = step
        return seconds

    def grow(self, source: SequenceSource, stop: int, deadline: float | None) -> Live:
        """Grow the sequence's live prefix geometrically towards `stop`, certifying the period after each
        growth, until `stop` values are known or the period is certified.

        Each step's cost is predicted from the last one's (per value, scaled by the size ratio, as for a
        quadratic kernel: conservative for the linear ones), so a request gives up at once when the next
        step would overrun its deadline instead of finding out afterwards; whatever was computed is kept,
        and the next request continues from it.
        """
        kernel = source.kernel()
        assert kernel is not None
        live = self.cached(source)
        if live is not None and (len(live.values) >= stop or live.period is not None):
            return live
        self._modes.may_compute()
        # Waits end a little before the deadline, so a request refused for time still has time to say
        # why (and name the job queued) instead of running out itself.
        deadline = None if deadline is None else _soon(deadline)
        with self._live.holding((source.game_id, source.family), _until(deadline, name(source))):
            turn = _Turn(self._computing, self._limits.live_computations, name(source))
            try:
                return self._grow_locked(source, kernel, stop, deadline, turn)
            finally:
                turn.release()

    def _grow_locked(
        self, source: SequenceSource, kernel: SequenceKernel, stop: int, deadline: float | None, turn: _Turn
    ) -> Live:
        # Another request may have grown it meanwhile. From here on the prefix is the local `live`, which
        # this request uses (and returns) even if the cache evicts it or cannot hold it.
        live = self.cached(source)
        if live is None:
            live = Live(np.zeros(0, dtype=np.uint32), None, 0)
        seconds_per_value = live.seconds_per_value
        while len(live.values) < stop and live.period is None:
            values = live.values
            target = min(stop, max(FIRST_LIVE, 4 * len(values)))
            while len(values) < target:
                size = len(values)
                step = min(target, size + max(FIRST_LIVE, min(size, LIVE_STEP)))
                predicted = None
                if seconds_per_value is not None:
                    predicted = seconds_per_value * (step - size) * step / max(size, 1)
                if step > FIRST_LIVE if predicted is None else predicted > QUICK_STEP:
                    turn.take(deadline)  # only costly steps wait for one of the few turns
                if deadline is not None and predicted is not None and time.monotonic() + predicted > deadline:
                    self._keep(source, values, live, seconds_per_value)
                    raise DeadlineExceeded(
                        f"computing {name(source)} live from {item(source)} {size} to {step} would take "
                        f"about {predicted:.2g} s, beyond the request's deadline"
                    )
                started = time.perf_counter()
                values = kernel.extend(values, step)
                if step - size >= FIRST_LIVE:  # a tiny step measures the call's overhead, not the kernel
                    seconds_per_value = (time.perf_counter() - started) / (step - size)
            live = self._keep(source, values, live, seconds_per_value)
            if kernel.certifies and live.period is None and len(values) > live.certified_upto:
                live = Live(values, kernel.certify(values), len(values), None, seconds_per_value)
                self._store(source, live)
        return live

    def _keep(
        self, source: SequenceSource, values: NDArray[np.uint32], live: Live, seconds_per_value: float | None
    ) -> Live:
        """Cache a grown prefix (what a request computed is kept even when it gives up) and return it: the
        caller goes on with the returned prefix, never with a re-read of the cache."""
        if len(values) == len(live.values) and seconds_per_value == live.seconds_per_value:
            return live
        kept = Live(values, live.period, live.certified_upto, None, seconds_per_value)
        self._store(source, kept)
        return kept


class _Turn:
    """One of the few turns at live computation, taken only when a step is costly (a request that
    needs a thousand values, e.g. for a remoteness, never waits behind long computations)."""

    def __init__(self, turns: threading.BoundedSemaphore, count: int, name: str) -> None:
        self._turns = turns
        self._count = count
        self._name = name
        self._held = False

    def take(self, deadline: float | None) -> None:
        if self._held:
            return
        if not self._turns.acquire(timeout=_remaining(deadline)):
            raise DeadlineExceeded(
                f"computing {self._name} live: {self._count} other live computations ran until the deadline"
            )
        self._held = True

    def release(self) -> None:
        if self._held:
            self._turns.release()
            self._held = False


def _live_bytes(live: Live) -> int:
    """Bytes of a live prefix: its values, and its remoteness where computed."""
    return array_bytes(live.values) + (0 if live.remoteness is None else array_bytes(live.remoteness))


def _soon(deadline: float, share: float = 0.2, most: float = 0.5) -> float:
    """`deadline` brought forward by `share` of the time left, by at most `most` seconds."""
    now = time.monotonic()
    return deadline - min(most, max(0.0, share * (deadline - now)))


def halfway(deadline: float) -> float:
    """Halfway from now to `deadline` (the time a bonus computed live may take)."""
    now = time.monotonic()
    return now + max(0.0, deadline - now) / 2


def _until(deadline: float | None, what: str) -> Callable[[threading.Lock], AbstractContextManager[object]]:
    """Holding a sequence's growth lock, waited for until `deadline` at most."""

    @contextlib.contextmanager
    def hold(lock: threading.Lock) -> Iterator[None]:
        if not lock.acquire(timeout=_remaining(deadline)):
            raise DeadlineExceeded(
                f"computing {what} live: another request was computing it until the deadline"
            )
        try:
            yield
        finally:
            lock.release()

    return hold


def _remaining(deadline: float | None) -> float:
    """Seconds until `deadline` for a lock's timeout (-1: wait as long as it takes)."""
    return -1 if deadline is None else max(0.0, deadline - time.monotonic())
