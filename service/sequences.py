"""Single-heap values, from the cheapest place that holds them: formula, table, period, live.

This is the hot path of every heap-game lookup, so stored chunks and sequence headers are cached in
process (hot lookups never touch the database), and live computation grows one in-memory prefix per
game, which also lets the kernel certify a period that then answers every larger heap.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from engine.errors import DeadlineExceeded, LimitExceeded
from engine.games.base import HeapGame, SequenceKernel
from engine.games.subtraction import SubtractionGame
from engine.games.wythoff import WythoffGame
from engine.kernels.remoteness import heap_remoteness
from engine.periods import Period
from engine.values import Source
from service.errors import Unavailable
from service.gate import DatabaseGate
from service.limits import Limits
from storage.errors import CorruptChunk, StorageUnavailable
from storage.packing import CHUNK_VALUES
from storage.sequences import SequenceInfo, SequenceStore

log = logging.getLogger(__name__)

#: Live prefixes grow in steps of this many values, checking the deadline between steps.
LIVE_STEP = 1 << 18
HEAP = "heap"


class WouldBlock(Exception):
    """Raised in memory-only mode where an answer would need the database or real computation."""


@dataclass(slots=True)
class _Header:
    info: SequenceInfo | None
    fetched_at: float


@dataclass(slots=True)
class _Live:
    values: NDArray[np.uint32]
    period: Period | None
    certified_upto: int
    remoteness: NDArray[np.int64] | None = None


class HeapSequences:
    """Answers g(n) for single heaps of one game at a time, caching what it reads and computes."""

    def __init__(
        self,
        store: SequenceStore | None,
        gate: DatabaseGate,
        limits: Limits,
        *,
        header_ttl: float = 2.0,
        cached_chunks: int = 256,
        live_games: int = 8,
    ) -> None:
        self._store = store
        self._gate = gate
        self._limits = limits
        self._header_ttl = header_ttl
        self._cached_chunks = cached_chunks
        self._live_games = live_games
        self._headers: dict[tuple[str, str], _Header] = {}
        self._chunks: OrderedDict[tuple[str, str, int], NDArray[np.uint32]] = OrderedDict()
        self._live: OrderedDict[str, _Live] = OrderedDict()
        self._kernels: dict[str, SequenceKernel | None] = {}
        self._lock = threading.RLock()
        self._mode = threading.local()

    @contextlib.contextmanager
    def memory_only(self) -> Iterator[None]:
        """Within this block, answer from memory or raise WouldBlock: never wait on I/O or compute.

        The transports try requests this way on their event loop first, which saves a thread hop
        on the hot path, and fall back to a worker thread when WouldBlock says it is needed.
        """
        self._mode.memory_only = True
        try:
            yield
        finally:
            self._mode.memory_only = False

    def require_blocking_allowed(self) -> None:
        """Raise WouldBlock in memory-only mode (for callers about to search or compute)."""
        if getattr(self._mode, "memory_only", False):
            raise WouldBlock

    # -- what is stored -------------------------------------------------------------------------

    def info(self, game: HeapGame | WythoffGame, family: str = HEAP) -> SequenceInfo | None:
        """The stored header of one of the game's sequences, refreshed every few seconds."""
        now = time.monotonic()
        cached = self._headers.get((game.game_id, family))
        if cached is not None and now - cached.fetched_at < self._header_ttl:
            return cached.info
        if self._store is None:
            return None
        self.require_blocking_allowed()
        store = self._store
        try:
            info = self._gate.call(lambda: store.info(game.game_id, family))
        except StorageUnavailable:
            return cached.info if cached is not None else None
        self._headers[(game.game_id, family)] = _Header(info, now)
        return info

    def database_needed_but_down(self) -> bool:
        """Whether an answer failed for want of the database (to report UNAVAILABLE, not a limit)."""
        return self._store is not None and not self._gate.is_open

    def chunk(self, game_id: str, index: int, family: str = HEAP) -> NDArray[np.uint32]:
        """One stored chunk, verified, from the cache or the database (CorruptChunk if damaged)."""
        key = (game_id, family, index)
        with self._lock:
            chunk = self._chunks.get(key)
            if chunk is not None:
                self._chunks.move_to_end(key)
                return chunk
        assert self._store is not None
        self.require_blocking_allowed()
        store = self._store
        try:
            chunk = self._gate.call(lambda: store.read_chunk(game_id, family, index))
        except CorruptChunk as corrupt:
            log.error("corrupt chunk detected, queued for repair: %s", corrupt)
            with contextlib.suppress(StorageUnavailable):
                self._gate.call(lambda: store.report_corruption(game_id, family, index))
            raise
        with self._lock:
            self._chunks[key] = chunk
            while len(self._chunks) > self._cached_chunks:
                self._chunks.popitem(last=False)
        return chunk

    def forget(self, game_id: str | None = None) -> None:
        """Drop cached headers and chunks (all, or one game's)."""
        with self._lock:
            if game_id is None:
                self._headers.clear()
                self._chunks.clear()
                return
            for header in [k for k in self._headers if k[0] == game_id]:
                del self._headers[header]
            for key in [k for k in self._chunks if k[0] == game_id]:
                del self._chunks[key]

    # -- lookups --------------------------------------------------------------------------------

    def kernel(self, game: HeapGame) -> SequenceKernel | None:
        kernel = self._kernels.get(game.game_id)
        if kernel is None and game.game_id not in self._kernels:
            kernel = game.kernel()
            self._kernels[game.game_id] = kernel
        return kernel

    def period(
        self, game: HeapGame, deadline: float | None = None, *, compute: bool = False
    ) -> Period | None:
        """The certified period: stored, or found by live computation (when `compute`)."""
        info = self.info(game)
        if info is not None and info.period is not None and info.period.certified:
            return info.period
        with self._lock:
            live = self._live.get(game.game_id)
        if live is not None and live.period is not None:
            return live.period
        if compute and self.kernel(game) is not None:
            return self._live_period(game, deadline)
        return None

    def value(self, game: HeapGame, n: int, deadline: float | None = None) -> tuple[int, Source]:
        """g(n) and where it came from."""
        formula = game.formula_value(n)
        if formula is not None:
            return formula, "formula"
        stored = self._stored(game, n)
        if stored is not None:
            return stored, "table"
        period = self.period(game)
        if period is None and n >= self._live_limit(game):
            period = self.period(game, deadline, compute=True)
        if period is not None and n >= period.head:
            base, _ = self.value(game, period.reduce(n), deadline)
            return base + period.saltus * period.cycles(n), "period"
        if n < self._live_limit(game):
            return int(self._live_prefix(game, n + 1, deadline).values[n]), "live"
        raise self._beyond(game, n)

    def lookup_many(
        self, game: HeapGame, heaps: list[int], deadline: float | None = None
    ) -> dict[int, tuple[int, Source] | Exception]:
        """g(n) for many heaps at once: chunk by chunk and period by period, not heap by heap.

        Bulk lookups (BatchGetValues, StreamValues) go through here so their cost per heap is a
        few array operations; a heap that cannot be answered gets its error, not the whole call.
        """
        distinct = sorted(set(heaps))
        out: dict[int, tuple[int, Source] | Exception] = {}
        if not distinct:
            return out
        if game.formula_value(distinct[0]) is not None:
            for n in distinct:
                value = game.formula_value(n)
                assert value is not None
                out[n] = (value, "formula")
            return out
        ns = np.array(distinct, dtype=np.int64)
        info = self.info(game)
        pending = np.ones(len(ns), dtype=bool)
        if info is not None and info.computed_upto > 0:
            stored = ns < info.computed_upto
            for index in np.unique(ns[stored] // CHUNK_VALUES).tolist():
                try:
                    chunk = self.chunk(game.game_id, index)
                except (CorruptChunk, StorageUnavailable):
                    continue
                mask = stored & (ns // CHUNK_VALUES == index)
                for n, value in zip(ns[mask].tolist(), chunk[ns[mask] % CHUNK_VALUES].tolist(), strict=True):
                    out[n] = (value, "table")
                pending &= ~mask
        if not pending.any():
            return out
        rest = ns[pending]
        period = self.period(game)
        if period is None and int(rest[-1]) >= self._live_limit(game):
            try:
                period = self.period(game, deadline, compute=True)
            except (LimitExceeded, DeadlineExceeded) as error:
                return out | {n: error for n in rest.tolist()}
        if period is not None:
            beyond = rest >= period.head
            if beyond.any():
                reduced, cycles = period.reduce_many(rest[beyond])
                heads = self.lookup_many(game, reduced.tolist(), deadline)
                for n, r, c in zip(rest[beyond].tolist(), reduced.tolist(), cycles.tolist(), strict=True):
                    head = heads[r]
                    out[n] = head if isinstance(head, Exception) else (head[0] + period.saltus * c, "period")
                rest = rest[~beyond]
        if len(rest) == 0:
            return out
        live_ok = rest < self._live_limit(game)
        if live_ok.any():
            try:
                live = self._live_prefix(game, int(rest[live_ok][-1]) + 1, deadline).values
                for n, value in zip(rest[live_ok].tolist(), live[rest[live_ok]].tolist(), strict=True):
                    out[n] = (value, "live")
            except (LimitExceeded, DeadlineExceeded) as error:
                out.update({n: error for n in rest[live_ok].tolist()})
        for n in rest[~live_ok].tolist():
            out[n] = self._beyond(game, n)
        return out

    def _stored(self, game: HeapGame, n: int) -> int | None:
        info = self.info(game)
        if info is None or n >= info.computed_upto:
            return None
        try:
            return int(self.chunk(game.game_id, n // CHUNK_VALUES)[n % CHUNK_VALUES])
        except (CorruptChunk, StorageUnavailable):
            return None

    def _beyond(self, game: HeapGame, n: int) -> Exception:
        if self.database_needed_but_down():
            return Unavailable(
                f"heap {n} of {game.game_id!r} needs the stored table and the database is unreachable"
            )
        info = self.info(game)
        upto = max(self._live_limit(game), info.computed_upto if info else 0)
        return LimitExceeded(
            f"heap {n} of {game.game_id!r} is beyond what can be answered: no certified period is known, "
            f"the table and live computation reach heaps below {upto} (largest answerable heap: {upto - 1})"
        )

    def values(
        self, game: HeapGame, start: int, stop: int, deadline: float | None = None
    ) -> tuple[NDArray[np.int64], Source]:
        """g(n) for start <= n < stop, as one array, and the costliest source used."""
        count = stop - start
        out = np.zeros(count, dtype=np.int64)
        if count == 0:
            return out, "formula"
        first = game.formula_value(start)
        if first is not None:
            for i in range(count):
                value = game.formula_value(start + i)
                assert value is not None
                out[i] = value
            return out, "formula"
        sources: list[Source] = []
        done = start
        info = self.info(game)
        if info is not None and start < info.computed_upto:
            try:
                table_stop = min(stop, info.computed_upto)
                out[: table_stop - start] = self._stored_range(game, start, table_stop)
                sources.append("table")
                done = table_stop
            except (CorruptChunk, StorageUnavailable):
                pass
        if done < stop:
            period = self.period(game)
            if period is None and stop > self._live_limit(game):
                period = self.period(game, deadline, compute=True)
            if period is not None and stop > period.head:
                # The head (preperiod and one period) is a strictly shorter range: no loop.
                head, _ = self.values(game, 0, period.head, deadline)
                idx, cycles = period.reduce_many(np.arange(done, stop, dtype=np.int64))
                out[done - start :] = head[idx] + period.saltus * cycles
                sources.append("period")
            elif stop <= self._live_limit(game):
                out[done - start :] = self._live_prefix(game, stop, deadline).values[done:stop]
                sources.append("live")
            else:
                raise self._beyond(game, stop - 1)
        order: tuple[Source, ...] = ("formula", "table", "period", "live")
        return out, max(sources, key=order.index)

    def _stored_range(self, game: HeapGame, start: int, stop: int) -> NDArray[np.uint32]:
        parts = []
        for index in range(start // CHUNK_VALUES, (stop - 1) // CHUNK_VALUES + 1):
            chunk = self.chunk(game.game_id, index)
            lo = max(start, index * CHUNK_VALUES) - index * CHUNK_VALUES
            hi = min(stop, (index + 1) * CHUNK_VALUES) - index * CHUNK_VALUES
            parts.append(chunk[lo:hi])
        return np.concatenate(parts)

    # -- live computation -----------------------------------------------------------------------

    def live_values(self, game: HeapGame) -> NDArray[np.uint32]:
        """The values computed live so far for this game (maybe none)."""
        with self._lock:
            live = self._live.get(game.game_id)
        return live.values if live is not None else np.zeros(0, dtype=np.uint32)

    def heap_remoteness(self, game: SubtractionGame, n: int, deadline: float | None) -> int | None:
        """Remoteness of one heap, from a live pass over all smaller heaps (None past the limit)."""
        if n >= self._live_limit(game):
            return None
        live = self._live_prefix(game, n + 1, deadline)
        with self._lock:
            if live.remoteness is None or len(live.remoteness) < len(live.values):
                self.require_blocking_allowed()
                live.remoteness = heap_remoteness(live.values, game.moves)
            return int(live.remoteness[n])

    def _live_limit(self, game: HeapGame) -> int:
        """Heaps below this are computed live for one request."""
        own = game.live_limit
        return self._limits.live_values if own is None else min(own, self._limits.live_values)

    def _live_period(self, game: HeapGame, deadline: float | None) -> Period | None:
        """Grow the live prefix geometrically until the kernel certifies a period (or the limit)."""
        size = 4096
        while True:
            live = self._live_prefix(game, size, deadline)
            if live.period is not None or len(live.values) >= self._live_limit(game):
                return live.period
            size *= 4

    def _live_prefix(self, game: HeapGame, stop: int, deadline: float | None) -> _Live:
        """A live prefix of at least `stop` values (bounded by the live limit), period attempted."""
        kernel = self.kernel(game)
        if kernel is None:
            raise LimitExceeded(f"{game.game_id!r} has no kernel to compute values live")
        stop = min(stop, self._live_limit(game))
        with self._lock:
            live = self._live.get(game.game_id)
            if live is not None:
                self._live.move_to_end(game.game_id)
                if len(live.values) >= stop:
                    return live
            self.require_blocking_allowed()
            values = live.values if live is not None else np.zeros(0, dtype=np.uint32)
            target = max(stop, min(2 * len(values), self._live_limit(game)), 1024)
            target = min(target, self._live_limit(game))
            while len(values) < target:
                if deadline is not None and time.monotonic() > deadline:
                    raise DeadlineExceeded(
                        f"computing {game.game_id!r} live reached heap {len(values)} of {target} "
                        "before the request's deadline"
                    )
                values = kernel.extend(values, min(target, len(values) + LIVE_STEP))
            period = live.period if live is not None else None
            if period is None and (live is None or len(values) > live.certified_upto):
                period = kernel.certify(values)
            live = _Live(values, period, len(values))
            self._live[game.game_id] = live
            while len(self._live) > self._live_games:
                self._live.popitem(last=False)
            return live
