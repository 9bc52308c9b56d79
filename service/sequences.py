"""One-parameter sequences from the cheapest place that holds them: formula, table, period, live.

This is the service's implementation of the engine's `Tables`: the hot path of every heap-game
lookup. A sequence is a game's family (`SequenceSource.game_id` and `.family`: "heap" for single heaps).
Stored chunks and sequence headers are cached in process (hot lookups never touch the database), and
live computation grows one in-memory prefix per sequence, which also lets the kernel certify a period
that then answers every larger heap. Chunks and live prefixes are cached within byte budgets
(NIMBASE_CACHE_CHUNK_BYTES, NIMBASE_CACHE_LIVE_BYTES), so memory stops growing once they are full.

Locks are narrow: one small lock guards the caches and is never held while anything is read from the
database or computed; a live prefix grows under its own sequence's lock, so a long computation for
one sequence never delays lookups that memory answers (on the event loop, in memory-only mode).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from engine.errors import DeadlineExceeded, InvalidArgument, LimitExceeded, NimbaseError, NotApplicable
from engine.kind import SequenceKernel, SequenceSource
from engine.lru import LRU
from engine.periods import Period
from engine.positions import MAX_HEAP, quote_int
from engine.values import SOURCE_ORDER, Source
from nimbase.settings import DEFAULT_CACHE
from service.errors import Unavailable
from service.gate import DatabaseGate
from service.jobs import QueuedWork, Wanted
from service.limits import Limits
from storage.errors import CorruptChunk, StorageUnavailable
from storage.jobs import Job
from storage.packing import CHUNK_VALUES
from storage.sequences import SequenceInfo, SequenceStore

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Live prefixes grow in steps of at most this many values, checking the deadline between steps.
LIVE_STEP = 1 << 18
#: The first live step (and the smallest): small enough for a quadratic kernel to take milliseconds.
FIRST_LIVE = 1024
#: Steps predicted to take less than this (seconds) run without waiting for a turn.
QUICK_STEP = 0.02
#: A request whose deadline gave it less than this share of NIMBASE_LIMITS_REQUEST_SECONDS had a short one
#: of its own: refused for time, it is told to ask again with more, and no job is queued for it.
SHORT_DEADLINE_SHARE = 0.9
#: Values a first GetStats computes live when nothing is stored or computed yet.
STATS_PREFIX = 4096
HEAP = "heap"
#: Per-sequence growth locks kept (a few bytes each; an evicted idle lock is simply made again).
LIVE_LOCKS = 1024

#: A sequence's key in the caches: (game id, family).
SequenceKey = tuple[str, str]


class WouldBlock(Exception):
    """Raised in memory-only mode where an answer would need the database or real computation."""


@dataclass(slots=True)
class _Header:
    info: SequenceInfo | None
    fetched_at: float


@dataclass(frozen=True, slots=True)
class _Damage:
    """A stored chunk found corrupt or missing: never served, reported once, its repair queued (`job`;
    None when it could not be queued). `stop` ends the stored values it should hold."""

    game_id: str
    family: str
    index: int
    stop: int
    detail: str
    job: Job | None
    found_at: float

    def corrupt(self) -> CorruptChunk:
        """The damage as the store reported it, raised again while it is remembered."""
        return CorruptChunk(self.game_id, self.family, self.index, self.detail)

    def error(self) -> Unavailable:
        """UNAVAILABLE for values of the chunk that no other source gives now, naming its repair."""
        first = self.index * CHUNK_VALUES
        what = "heaps" if self.family == HEAP else f"values of family {self.family!r},"
        repair = (
            f"repair job {self.job.id} is {self.job.status} (GET /v1/jobs/{self.job.id}); ask again when it "
            "is done"
            if self.job is not None
            else "its repair is queued when the database answers; ask again later"
        )
        return Unavailable(
            f"{what} {first}..{self.stop - 1} of {self.game_id!r} are being repaired: their stored chunk "
            f"{self.index} is damaged ({self.detail}) and is never served, and neither a certified period "
            f"nor live computation answers them now; {repair}"
        )


@dataclass(frozen=True, slots=True)
class _Live:
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


class _Mode(threading.local):
    """Per thread: whether the thread's request must answer from memory only (`from_memory`), or from
    memory and storage without computing (`without_computing`)."""

    memory_only = False
    reads_only = False


class SequenceTables:
    """Answers v(n) for the sequences of any game, caching what it reads and computes."""

    def __init__(
        self,
        store: SequenceStore | None,
        gate: DatabaseGate,
        limits: Limits,
        *,
        header_ttl: float = 2.0,
        live_bytes: int = DEFAULT_CACHE.live_bytes,
        chunk_bytes: int = DEFAULT_CACHE.chunk_bytes,
        queue_work: Callable[[str, str, Wanted], QueuedWork | None] | None = None,
        queue_solve: Callable[[str, str], QueuedWork | None] | None = None,
    ) -> None:
        """`live_bytes` and `chunk_bytes` bound the live prefixes and the stored chunks kept, by their
        arrays' bytes; one larger than its whole budget serves the request that made it, and is not kept."""
        #: Called when values cannot be had now, with what the request wanted: queues the job that will
        #: store them, where one can (None: no queue).
        self.queue_work = queue_work
        #: Called when an object stored whole (a solved graph, an endgame table) is needed and not stored:
        #: queues the job that will store it (None: no queue).
        self.queue_solve = queue_solve
        self._store = store
        self._gate = gate
        self._limits = limits
        self._header_ttl = header_ttl
        self._headers: LRU[tuple[str, str], _Header] = LRU(maxsize=4096)
        self._chunks: LRU[tuple[str, str, int], NDArray[np.uint32]] = LRU(
            maxsize=chunk_bytes, getsizeof=_array_bytes
        )
        #: Chunks found damaged: not read again (nor reported again) for `header_ttl` seconds.
        self._damaged: LRU[tuple[str, str, int], _Damage] = LRU(maxsize=4096)
        self._live: LRU[SequenceKey, _Live] = LRU(maxsize=live_bytes, getsizeof=_live_bytes)
        self._live_locks: LRU[SequenceKey, threading.Lock] = LRU(maxsize=LIVE_LOCKS)
        #: Guards the caches above; held only for dictionary operations.
        self._lock = threading.Lock()
        #: Turns for live computation (Limits.live_computations at once).
        self._computing = threading.BoundedSemaphore(limits.live_computations)
        self._mode = _Mode()

    def from_memory(self, call: Callable[[], T]) -> T | None:
        """`call()` answered from memory alone, or None where it would wait on I/O or compute
        (`may_block` raised WouldBlock in it).

        The transports try requests this way on their event loop first, which saves a thread hop
        on the hot path, and fall back to a worker thread when None says it is needed.
        """
        mode = self._mode
        mode.memory_only = True
        try:
            return call()
        except WouldBlock:
            return None
        finally:
            mode.memory_only = False

    def without_computing(self, call: Callable[[], T]) -> T | None:
        """`call()` answered from memory and storage, or None where it would compute (`may_compute`
        raised WouldBlock in it): reads are cheap for this process to make, computations are not."""
        mode = self._mode
        mode.reads_only = True
        try:
            return call()
        except WouldBlock:
            return None
        finally:
            mode.reads_only = False

    def may_block(self) -> None:
        """Raise WouldBlock in memory-only mode (for callers about to wait on storage)."""
        if self._mode.memory_only:
            raise WouldBlock

    def may_compute(self) -> None:
        """Raise WouldBlock in memory-only and reads-only modes (for callers about to search or compute)."""
        mode = self._mode
        if mode.memory_only or mode.reads_only:
            raise WouldBlock

    # -- what is stored -------------------------------------------------------------------------

    def info(self, game_id: str, family: str = HEAP) -> SequenceInfo | None:
        """The stored header of one sequence, refreshed every few seconds."""
        now = time.monotonic()
        with self._lock:
            cached = self._headers.get((game_id, family))
        if cached is not None and now - cached.fetched_at < self._header_ttl:
            return cached.info
        if self._store is None:
            return None
        self.may_block()
        store = self._store
        try:
            info = self._gate.call(lambda: store.info(game_id, family))
        except StorageUnavailable:
            return cached.info if cached is not None else None
        with self._lock:
            self._headers[(game_id, family)] = _Header(info, now)
        return info

    def stored_size(self, game_id: str, family: str) -> int:
        info = self.info(game_id, family)
        return 0 if info is None else info.computed_upto

    def stored_value(self, game_id: str, family: str, index: int) -> int | None:
        stored = self.stored_size(game_id, family)
        if index >= stored:
            return None
        try:
            chunk = self._chunk(game_id, index // CHUNK_VALUES, family, stored)
        except (CorruptChunk, StorageUnavailable):
            return None
        return int(chunk[index % CHUNK_VALUES])

    def refusal(self, game_id: str, family: str, message: str, *, precondition: bool = False) -> NimbaseError:
        """`message` as the refusal of an answer that needs (game_id, family) stored whole, naming the job
        queued (or open) to store it (`Tables.refusal`); UNAVAILABLE when only the unreachable database
        could tell."""
        if self.database_needed_but_down():
            return Unavailable(f"{message}; the stored tables cannot be read: the database is unreachable")
        work = self.queue_solve(game_id, family) if self.queue_solve is not None else None
        if work is None:
            return NotApplicable(message) if precondition else LimitExceeded(message)
        return work.error(message, precondition=precondition)

    def database_needed_but_down(self) -> bool:
        """Whether an answer failed for want of the database (to report UNAVAILABLE, not a limit)."""
        return self._store is not None and not self._gate.is_open

    def chunk(self, game_id: str, index: int, family: str = HEAP) -> NDArray[np.uint32]:
        """One stored chunk, verified, from the cache or the database.

        A damaged chunk (corrupt, or its row missing: CorruptChunk) is reported and remembered: for the
        next `header_ttl` seconds reads of it fail at once, without the database, and a later read that
        finds it still damaged adds no report (the store keeps one per chunk until it is rewritten).
        A cached chunk that was the partial last one is read again once the table has grown past it.
        """
        return self._chunk(game_id, index, family, self.stored_size(game_id, family))

    def _chunk(self, game_id: str, index: int, family: str, stored: int) -> NDArray[np.uint32]:
        """`chunk`, the table's stored size known already (one header lookup per value, not two)."""
        key = (game_id, family, index)
        with self._lock:
            chunk = self._chunks.get(key)
        if chunk is not None and len(chunk) >= min(CHUNK_VALUES, stored - index * CHUNK_VALUES):
            return chunk
        with self._lock:
            damage = self._damaged.get(key)
        now = time.monotonic()
        if damage is not None and now - damage.found_at < self._header_ttl:
            raise damage.corrupt()
        assert self._store is not None
        self.may_block()
        store = self._store
        try:
            chunk = self._gate.call(lambda: store.read_chunk(game_id, family, index))
        except CorruptChunk as corrupt:
            self._report(corrupt, stored, now, known=damage is not None)
            raise
        with self._lock:
            self._chunks.keep(key, chunk)
            self._damaged.pop(key)
        return chunk

    def _report(self, corrupt: CorruptChunk, stored: int, now: float, *, known: bool) -> None:
        """Report a damaged chunk (queueing its repair) and remember it, with the repair job."""
        game_id, family, index = corrupt.game_id, corrupt.family, corrupt.chunk_index
        if known:
            log.info("chunk still damaged: %s", corrupt)
        else:
            log.error("damaged chunk detected, never served, queued for repair: %s", corrupt)
        store = self._store
        assert store is not None
        job: Job | None = None
        with contextlib.suppress(StorageUnavailable):
            job = self._gate.call(lambda: store.report_corruption(game_id, family, index, str(corrupt)))
        stop = min((index + 1) * CHUNK_VALUES, max(stored, index * CHUNK_VALUES + 1))
        damage = _Damage(game_id, family, index, stop, corrupt.detail, job, now)
        with self._lock:
            self._damaged[(game_id, family, index)] = damage

    def _damage_at(self, game_id: str, n: int, family: str = HEAP) -> _Damage | None:
        """The known damage of the stored chunk holding value n, if any."""
        with self._lock:
            damage = self._damaged.get((game_id, family, n // CHUNK_VALUES))
        return damage if damage is not None and n < damage.stop else None

    def forget(self, game_id: str | None = None) -> None:
        """Drop cached headers and chunks (all, or one game's, of every family): values computed live
        stay, being right whatever is stored."""
        with self._lock:
            if game_id is None:
                self._headers.clear()
                self._chunks.clear()
                self._damaged.clear()
                return
            for header in [k for k in self._headers if k[0] == game_id]:
                del self._headers[header]
            for key in [k for k in self._chunks if k[0] == game_id]:
                del self._chunks[key]
            for key in [k for k in self._damaged if k[0] == game_id]:
                del self._damaged[key]

    def cached_bytes(self) -> dict[str, int]:
        """Bytes the live prefixes and the stored chunks cached now hold (each within its budget)."""
        with self._lock:
            return {"live": int(self._live.currsize), "chunks": int(self._chunks.currsize)}

    # -- lookups --------------------------------------------------------------------------------

    def period(
        self, source: SequenceSource, deadline: float | None = None, *, compute: bool = False
    ) -> Period | None:
        """The certified period: stored, or found by live computation (when `compute`)."""
        info = self.info(source.game_id, source.family)
        if info is not None and info.period is not None and info.period.certified:
            return info.period
        live = self._cached_live(source)
        if live is not None and live.period is not None:
            return live.period
        kernel = source.kernel()
        if compute and kernel is not None and kernel.certifies:
            try:
                return self._grow(source, self._live_limit(source), deadline).period
            except DeadlineExceeded:
                return None
        return None

    def value(self, source: SequenceSource, n: int, deadline: float | None = None) -> tuple[int, Source]:
        """v(n) and where it came from."""
        formula = source.formula_value(n)
        if formula is not None:
            return formula, "formula"
        stored = self.stored_value(source.game_id, source.family, n)
        if stored is not None:
            return stored, "table"
        period = self.period(source)
        if period is None or n < period.head:
            live = self._reach(source, n, deadline)
            if n < len(live.values):
                return int(live.values[n]), "live"
            period = live.period
            assert period is not None  # _reach covers n or certifies a period
        base, _ = self.value(source, period.reduce(n), deadline)
        return base + period.saltus * period.cycles(n), "period"

    def lookup_many(
        self, source: SequenceSource, heaps: list[int], deadline: float | None = None
    ) -> dict[int, tuple[int, Source] | Exception]:
        """v(n) for many n at once: chunk by chunk and period by period, not one by one.

        Bulk lookups (BatchGetValues, StreamValues) go through here so their cost per heap is a
        few array operations; a heap that cannot be answered gets its error, not the whole call.
        """
        distinct = sorted(set(heaps))
        out: dict[int, tuple[int, Source] | Exception] = {}
        if not distinct:
            return out
        if source.formula_value(distinct[0]) is not None:
            for n in distinct:
                value = source.formula_value(n)
                assert value is not None
                out[n] = (value, "formula")
            return out
        ns = np.array(distinct, dtype=np.int64)
        stored_upto = self.stored_size(source.game_id, source.family)
        pending = np.ones(len(ns), dtype=bool)
        if stored_upto > 0:
            stored = ns < stored_upto
            for index in np.unique(ns[stored] // CHUNK_VALUES).tolist():
                try:
                    chunk = self._chunk(source.game_id, index, source.family, stored_upto)
                except (CorruptChunk, StorageUnavailable):
                    continue
                mask = stored & (ns // CHUNK_VALUES == index)
                for n, value in zip(ns[mask].tolist(), chunk[ns[mask] % CHUNK_VALUES].tolist(), strict=True):
                    out[n] = (value, "table")
                pending &= ~mask
        if not pending.any():
            return out
        rest = ns[pending]
        period = self.period(source)
        live: _Live | None = None
        failure: Exception | None = None
        if period is None or int(rest[0]) < period.head:
            live, failure = self._reach_most(
                source, rest if period is None else rest[rest < period.head], deadline
            )
            period = period or (live.period if live is not None else None)
        if period is not None:
            beyond = rest >= period.head
            if beyond.any():
                reduced, cycles = period.reduce_many(rest[beyond])
                heads = self.lookup_many(source, reduced.tolist(), deadline)
                for n, r, c in zip(rest[beyond].tolist(), reduced.tolist(), cycles.tolist(), strict=True):
                    head = heads[r]
                    out[n] = head if isinstance(head, Exception) else (head[0] + period.saltus * c, "period")
                rest = rest[~beyond]
        if len(rest) == 0:
            return out
        known = len(live.values) if live is not None else 0
        covered = rest < known
        if covered.any():
            assert live is not None
            for n, value in zip(rest[covered].tolist(), live.values[rest[covered]].tolist(), strict=True):
                out[n] = (value, "live")
        for n in rest[~covered].tolist():
            damage = self._damage_at(source.game_id, n, source.family)  # a damaged chunk: its own refusal
            if damage is not None:
                out[n] = damage.error()
            else:
                out[n] = failure if failure is not None else self._beyond(source, n)
        return out

    def lookup_array(
        self, source: SequenceSource, ns: NDArray[np.int64], deadline: float | None = None
    ) -> NDArray[np.int64]:
        """v(n) for every n of `ns` (each 0..2^63-1), in order: numpy in, numpy out, no Python object
        per value (the columnar route answers a million heaps a call this way).

        Stored heaps are gathered chunk by chunk with fancy indexing, the others come from the period
        (its head looked up the same way) or the live prefix. All or nothing: where some heap cannot be
        answered, the largest such heap's error is raised (naming the work queued for it, as `value`
        does) and nothing is returned.
        """
        if len(ns) == 0:
            return np.zeros(0, dtype=np.int64)
        if source.formula_value(0) is not None:
            return self._formula_array(source, ns)
        out = np.zeros(len(ns), dtype=np.int64)
        pending = self._stored_array(source, ns, out, deadline)
        if len(pending) == 0:
            return out
        rest = ns[pending]
        period = self.period(source)
        below = rest if period is None else rest[rest < period.head]
        live: _Live | None = None
        if len(below):
            live = self._reach(source, int(below.max()), deadline)
            period = period or live.period
        left = np.ones(len(rest), dtype=bool)
        if live is not None:
            covered = rest < len(live.values)
            out[pending[covered]] = live.values[rest[covered]]
            left &= ~covered
        if period is not None:
            beyond = left & (rest >= period.head)
            if beyond.any():
                reduced, cycles = period.reduce_many(rest[beyond])
                out[pending[beyond]] = self.lookup_array(source, reduced, deadline) + period.saltus * cycles
                left &= ~beyond
        if left.any():  # not expected: _reach covers its heap or certifies a period
            raise self._beyond(source, int(rest[left].max()))
        return out

    def _formula_array(self, source: SequenceSource, ns: NDArray[np.int64]) -> NDArray[np.int64]:
        """A closed form's values: through its period (Nim's saltus 1) where it has one, else once per
        distinct heap."""
        period = source.formula_period()
        if period is None:
            distinct, inverse = np.unique(ns, return_inverse=True)
            found = np.array([source.formula_value(n) for n in distinct.tolist()], dtype=np.int64)
            return found[inverse]
        head = np.array([source.formula_value(n) for n in range(period.head)], dtype=np.int64)
        reduced, cycles = period.reduce_many(ns)
        return head[reduced] + period.saltus * cycles

    def _stored_array(
        self, source: SequenceSource, ns: NDArray[np.int64], out: NDArray[np.int64], deadline: float | None
    ) -> NDArray[np.intp]:
        """Write the stored value of every stored heap of `ns` into `out` (same index), one gather per
        chunk; the indices of the heaps left to answer (beyond the table, or in a chunk that cannot be
        read now, which the period or live computation may still answer)."""
        game_id, family = source.game_id, source.family
        stored_upto = self.stored_size(game_id, family)
        inside = np.flatnonzero(ns < stored_upto)
        if len(inside) == 0:
            return np.arange(len(ns))
        chunk_of = ns[inside] // CHUNK_VALUES
        counts = np.bincount(chunk_of)
        # A stable sort of 16-bit keys is numpy's radix sort: the heaps grouped by chunk in linear time.
        keys = chunk_of.astype(np.uint16) if len(counts) <= 1 << 16 else chunk_of
        order = inside[np.argsort(keys, kind="stable")] if len(counts) > 1 else inside
        ends = np.cumsum(counts)
        left = np.ones(len(ns), dtype=bool)
        left[inside] = False
        for index in np.flatnonzero(counts).tolist():
            if deadline is not None and time.monotonic() > deadline:  # chunks read from the database
                raise DeadlineExceeded(
                    f"reading the stored chunks of {_name(source)} ran past the request's deadline"
                )
            group = order[ends[index] - counts[index] : ends[index]]
            try:
                chunk = self._chunk(game_id, index, family, stored_upto)
            except (CorruptChunk, StorageUnavailable):
                left[group] = True
                continue
            out[group] = chunk[ns[group] - index * CHUNK_VALUES]
        return np.flatnonzero(left)

    def _beyond(
        self, source: SequenceSource, n: int, cause: Exception | None = None, budget: float | None = None
    ) -> Exception:
        """Why heap n cannot be answered now, with the work queued for it (where the service has a queue
        and a job could answer it). `budget` is the seconds the request had when it began to reach n."""
        damage = self._damage_at(source.game_id, n, source.family)
        if damage is not None:  # n is stored, in a chunk being repaired: no extension job would help
            return damage.error()
        if isinstance(cause, DeadlineExceeded):
            short = self._short_deadline(source, n, cause, budget)
            if short is not None:
                return short
        item = _item(source)
        if self.database_needed_but_down():
            return Unavailable(
                f"{item} {n} of {_name(source)} needs the stored table and the database is unreachable"
            )
        upto = max(self._live_limit(source), self.stored_size(source.game_id, source.family))
        why = (f"{cause}; " if isinstance(cause, DeadlineExceeded) else "") + (
            f"{item} {n} of {_name(source)} is beyond what can be answered now: no certified period is known"
        )
        message = (
            f"{why}, the table and live computation reach {item}s below {upto} (largest answerable {item}: "
            f"{upto - 1})"
        )
        kernel = source.kernel()
        wanted = Wanted(n, item, kernel is not None and kernel.certifies)
        work = self.queue_work(source.game_id, source.family, wanted) if self.queue_work is not None else None
        if work is None:
            return LimitExceeded(message)
        return work.error(message)

    def _short_deadline(
        self, source: SequenceSource, n: int, cause: DeadlineExceeded, budget: float | None
    ) -> DeadlineExceeded | None:
        """The refusal of a request stopped only by its own deadline, shorter than the full one, before
        live work the full limits allow (n below the live limit, and what is predicted of its cost within
        NIMBASE_LIMITS_REQUEST_SECONDS): live computation answers it with time, so no job is queued (one
        client's `x-deadline-ms: 1` queued a worker job of 2^24 values); None otherwise."""
        full = self._limits.request_seconds
        if budget is None or budget >= SHORT_DEADLINE_SHARE * full or n >= self._live_limit(source):
            return None
        cost = self._live_seconds(source, n + 1)
        if cost is not None and cost > full:
            return None
        about = "" if cost is None else f", about {cost:.2g} s from what is computed"
        return DeadlineExceeded(
            f"{cause}; {_item(source)} {n} of {_name(source)} is within what live computation answers within "
            f"the full deadline of {full:g} s (NIMBASE_LIMITS_REQUEST_SECONDS){about}: ask again with a "
            "longer deadline; no job is queued for it"
        )

    def _live_seconds(self, source: SequenceSource, stop: int) -> float | None:
        """Seconds growing the live prefix to `stop` values should take, predicted as `_grow` predicts its
        steps from the last one's speed; None before any step was measured."""
        live = self._cached_live(source)
        if live is None or live.seconds_per_value is None:
            return None
        size, seconds = len(live.values), 0.0
        while size < stop:
            step = min(stop, size + max(FIRST_LIVE, min(size, LIVE_STEP)))
            seconds += live.seconds_per_value * (step - size) * step / max(size, 1)
            size = step
        return seconds

    def values(
        self, source: SequenceSource, start: int, stop: int, deadline: float | None = None
    ) -> tuple[NDArray[np.int64], Source]:
        """v(n) for start <= n < stop, as one array, and the costliest source used.

        Every n must fit a signed 64-bit integer (0 <= n <= 2^63-1): the indices are int64 arrays, and
        past 2^63-1 `np.arange` wraps them to about -2^63, which `Period.reduce_many` takes for indices
        below the period's head and uses as they are (an IndexError on the head's values).
        """
        if start < 0 or stop - 1 > MAX_HEAP:
            raise InvalidArgument(
                f"sequence indices {quote_int(start)}..{quote_int(stop)} are outside 0..{MAX_HEAP} "
                "(signed 64-bit integers)"
            )
        count = stop - start
        out = np.zeros(count, dtype=np.int64)
        if count == 0:
            return out, "formula"
        if source.formula_value(start) is not None:
            for i in range(count):
                value = source.formula_value(start + i)
                assert value is not None
                out[i] = value
            return out, "formula"
        sources: list[Source] = []
        done = start
        stored_upto = self.stored_size(source.game_id, source.family)
        if start < stored_upto:
            try:
                table_stop = min(stop, stored_upto)
                part, used = self._stored_range(source, start, table_stop, stored_upto, deadline)
                out[: table_stop - start] = part
                sources += used
                done = table_stop
            except StorageUnavailable:
                pass
        if done < stop:
            period = self.period(source)
            if period is None or done < period.head:
                live = self._reach(source, stop - 1, deadline)
                period = live.period
                upto = min(stop, len(live.values))
                if upto > done:
                    out[done - start : upto - start] = live.values[done:upto]
                    sources.append("live")
                    done = upto
            if done < stop:
                assert period is not None and done >= period.head
                # The head (preperiod and one period) is a strictly shorter range: no loop.
                head, _ = self.values(source, 0, period.head, deadline)
                idx, cycles = period.reduce_many(np.arange(done, stop, dtype=np.int64))
                out[done - start :] = head[idx] + period.saltus * cycles
                sources.append("period")
        return out, max(sources, key=SOURCE_ORDER.index)

    def known_prefix(self, source: SequenceSource, deadline: float) -> tuple[NDArray[np.uint32], Source]:
        """The stored table from 0, else the live prefix (computing a first few values if none)."""
        info = self.info(source.game_id, source.family)
        if info is None and self.database_needed_but_down():
            raise Unavailable(f"stats of {_name(source)} need the database, which is unreachable")
        if info is not None and info.computed_upto > 0:
            values, _ = self.values(source, 0, info.computed_upto, deadline)
            return values.astype(np.uint32), "table"
        live = self._cached_live(source)
        if live is not None and len(live.values):
            return live.values, "live"
        values, _ = self.values(source, 0, STATS_PREFIX, deadline)
        return values.astype(np.uint32), "live"

    def _stored_range(
        self, source: SequenceSource, start: int, stop: int, stored_upto: int, deadline: float | None
    ) -> tuple[NDArray[np.int64], list[Source]]:
        """The stored values for start <= n < stop and the sources used: a damaged chunk's part comes
        from the period or live computation instead, else its refusal is raised (UNAVAILABLE, naming
        the repair), so one damaged chunk never costs the rest of the range."""
        out = np.zeros(stop - start, dtype=np.int64)
        sources: set[Source] = set()
        for index in range(start // CHUNK_VALUES, (stop - 1) // CHUNK_VALUES + 1):
            base = index * CHUNK_VALUES
            lo, hi = max(start, base), min(stop, base + CHUNK_VALUES)
            try:
                chunk = self._chunk(source.game_id, index, source.family, stored_upto)
            except CorruptChunk:
                found = self.lookup_many(source, list(range(lo, hi)), deadline)
                for n in range(lo, hi):
                    answer = found[n]
                    if isinstance(answer, Exception):
                        raise answer from None
                    out[n - start] = answer[0]
                    sources.add(answer[1])
                continue
            out[lo - start : hi - start] = chunk[lo - base : hi - base]
            sources.add("table")
        return out, sorted(sources, key=SOURCE_ORDER.index)

    # -- live computation -----------------------------------------------------------------------

    def remoteness(self, source: SequenceSource, n: int, deadline: float | None) -> int | None:
        """Remoteness of one position from the kernel's pass over the live prefix (None where the
        kernel has no such pass, or the live values do not reach n)."""
        kernel = source.kernel()
        if kernel is None or not kernel.gives_remoteness or n >= self._live_limit(source):
            return None
        try:  # a remoteness is a bonus: it may take half of what is left of the request's time
            live = self._reach(source, n, None if deadline is None else _halfway(deadline))
        except (LimitExceeded, DeadlineExceeded):
            return None
        if n >= len(live.values):
            return None
        remoteness = live.remoteness
        if remoteness is None or len(remoteness) < len(live.values):
            self.may_compute()
            remoteness = kernel.remoteness(live.values)
            if remoteness is None:
                return None
            self._add_remoteness(source, live, remoteness)
        return int(remoteness[n])

    def _live_limit(self, source: SequenceSource) -> int:
        """Most values computed live for one sequence (the request's deadline may stop it sooner)."""
        own = source.live_limit
        return self._limits.live_values if own is None else min(own, self._limits.live_values)

    def _cached_live(self, source: SequenceSource) -> _Live | None:
        with self._lock:
            return self._live.get((source.game_id, source.family))

    def _store_live(self, source: SequenceSource, live: _Live, *, replacing: _Live | None = None) -> None:
        """Cache a live prefix (unless it exceeds the whole budget); with `replacing`, only while that
        one is still the cached entry (a concurrent growth is never undone)."""
        key = (source.game_id, source.family)
        with self._lock:
            if replacing is None or self._live.get(key) is replacing:
                self._live.keep(key, live)

    def _add_remoteness(self, source: SequenceSource, live: _Live, remoteness: NDArray[np.int64]) -> None:
        """Keep the remoteness computed over a cached prefix with it (weighed anew)."""
        self._store_live(source, replace(live, remoteness=remoteness), replacing=live)

    def _sequence_lock(self, source: SequenceSource) -> threading.Lock:
        key = (source.game_id, source.family)
        with self._lock:
            lock = self._live_locks.get(key)
            if lock is None:
                lock = self._live_locks[key] = threading.Lock()
            return lock

    def _reach(self, source: SequenceSource, n: int, deadline: float | None) -> _Live:
        """A live prefix that holds v(n) or a certified period covering n; else the reason it can't be
        had now (the work queued for it, where possible), as an exception."""
        kernel = source.kernel()
        if kernel is None:
            raise LimitExceeded(f"{_name(source)} has no kernel to compute values live")
        live = self._cached_live(source)
        if live is not None and (n < len(live.values) or live.period is not None):
            return live
        limit = self._live_limit(source)
        if n >= limit and not kernel.certifies:
            raise self._beyond(source, n)
        budget = None if deadline is None else deadline - time.monotonic()
        try:
            live = self._grow(source, min(n + 1, limit), deadline)
        except DeadlineExceeded as error:
            raise self._beyond(source, n, error, budget) from None
        if n < len(live.values) or live.period is not None:
            return live
        raise self._beyond(source, n)

    def _reach_most(
        self, source: SequenceSource, ns: NDArray[np.int64], deadline: float | None
    ) -> tuple[_Live | None, Exception | None]:
        """A live prefix covering as many of the sorted heaps `ns` as can be had, and the others' error."""
        try:
            return self._reach(source, int(ns[-1]), deadline), None
        except (LimitExceeded, DeadlineExceeded, Unavailable) as error:
            below = ns[ns < self._live_limit(source)]
            if len(below) and below[-1] != ns[-1]:
                try:
                    return self._reach(source, int(below[-1]), deadline), error
                except (LimitExceeded, DeadlineExceeded, Unavailable):
                    pass
            return self._cached_live(source), error

    def _grow(self, source: SequenceSource, stop: int, deadline: float | None) -> _Live:
        """Grow the sequence's live prefix geometrically towards `stop`, certifying the period after each
        growth, until `stop` values are known or the period is certified.

        Each step's cost is predicted from the last one's (per value, scaled by the size ratio, as for a
        quadratic kernel: conservative for the linear ones), so a request gives up at once when the next
        step would overrun its deadline instead of finding out afterwards; whatever was computed is kept,
        and the next request continues from it.
        """
        kernel = source.kernel()
        assert kernel is not None
        live = self._cached_live(source)
        if live is not None and (len(live.values) >= stop or live.period is not None):
            return live
        self.may_compute()
        lock = self._sequence_lock(source)
        # Waits end a little before the deadline, so a request refused for time still has time to say
        # why (and name the job queued) instead of running out itself.
        deadline = None if deadline is None else _soon(deadline)
        if not lock.acquire(timeout=_remaining(deadline)):
            raise DeadlineExceeded(
                f"computing {_name(source)} live: another request was computing it until the deadline"
            )
        turn = _Turn(self._computing, self._limits.live_computations, _name(source))
        try:
            return self._grow_locked(source, kernel, stop, deadline, turn)
        finally:
            turn.release()
            lock.release()

    def _grow_locked(
        self, source: SequenceSource, kernel: SequenceKernel, stop: int, deadline: float | None, turn: _Turn
    ) -> _Live:
        # Another request may have grown it meanwhile. From here on the prefix is the local `live`, which
        # this request uses (and returns) even if the cache evicts it or cannot hold it.
        live = self._cached_live(source)
        if live is None:
            live = _Live(np.zeros(0, dtype=np.uint32), None, 0)
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
                        f"computing {_name(source)} live from {_item(source)} {size} to {step} would take "
                        f"about {predicted:.2g} s, beyond the request's deadline"
                    )
                started = time.perf_counter()
                values = kernel.extend(values, step)
                if step - size >= FIRST_LIVE:  # a tiny step measures the call's overhead, not the kernel
                    seconds_per_value = (time.perf_counter() - started) / (step - size)
            live = self._keep(source, values, live, seconds_per_value)
            if kernel.certifies and live.period is None and len(values) > live.certified_upto:
                live = _Live(values, kernel.certify(values), len(values), None, seconds_per_value)
                self._store_live(source, live)
        return live

    def _keep(
        self, source: SequenceSource, values: NDArray[np.uint32], live: _Live, seconds_per_value: float | None
    ) -> _Live:
        """Cache a grown prefix (what a request computed is kept even when it gives up) and return it: the
        caller goes on with the returned prefix, never with a re-read of the cache."""
        if len(values) == len(live.values) and seconds_per_value == live.seconds_per_value:
            return live
        kept = _Live(values, live.period, live.certified_upto, None, seconds_per_value)
        self._store_live(source, kept)
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


def _name(source: SequenceSource) -> str:
    """How messages name a sequence: its game quoted, with its family unless it is single heaps."""
    if source.family == HEAP:
        return repr(source.game_id)
    return f"family {source.family!r} of {source.game_id!r}"


def _item(source: SequenceSource) -> str:
    """What messages call one index of a sequence: a heap, or a value of another family."""
    return "heap" if source.family == HEAP else "value"


def _array_bytes(array: NDArray[Any]) -> int:
    """Bytes an array keeps alive: a view's whole base (at least 1, so no entry weighs nothing)."""
    base = array.base
    held = max(array.nbytes, base.nbytes) if isinstance(base, np.ndarray) else array.nbytes
    return max(1, int(held))


def _live_bytes(live: _Live) -> int:
    """Bytes of a live prefix: its values, and its remoteness where computed."""
    return _array_bytes(live.values) + (0 if live.remoteness is None else _array_bytes(live.remoteness))


def _soon(deadline: float, share: float = 0.2, most: float = 0.5) -> float:
    """`deadline` brought forward by `share` of the time left, by at most `most` seconds."""
    now = time.monotonic()
    return deadline - min(most, max(0.0, share * (deadline - now)))


def _halfway(deadline: float) -> float:
    """Halfway from now to `deadline`."""
    now = time.monotonic()
    return now + max(0.0, deadline - now) / 2


def _remaining(deadline: float | None) -> float:
    """Seconds until `deadline` for a lock's timeout (-1: wait as long as it takes)."""
    return -1 if deadline is None else max(0.0, deadline - time.monotonic())
