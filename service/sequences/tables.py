"""`SequenceTables`: the service's implementation of the engine's `Tables`, composing stored chunks, live
prefixes, the request's mode and the refusals into lookups from the cheapest source: formula, table,
period, live.

This is the hot path of every heap-game lookup. A stored heap's `value` costs a header and a chunk looked
up in memory; the bulk lookups (`lookup_many`, `lookup_array`, `values`) answer chunk by chunk and period
by period, never value by value.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from engine.errors import DeadlineExceeded, InvalidArgument, LimitExceeded, NimbaseError
from engine.kind import SequenceSource
from engine.lru import Usage
from engine.periods import Period
from engine.positions import MAX_HEAP, quote_int
from engine.values import SOURCE_ORDER, Source
from nimbase.settings import DEFAULT_CACHE
from service.clients import WAITED
from service.errors import Unavailable
from service.gate import DatabaseGate
from service.jobs import QueuedWork, Wanted
from service.learned import Journal
from service.limits import Limits
from service.sequences.live import Live, LiveSequences, halfway
from service.sequences.modes import Modes
from service.sequences.names import HEAP, SequenceKey, name
from service.sequences.refusals import Refusals
from service.sequences.stored import StoredSequences
from storage.errors import CorruptChunk, StorageUnavailable
from storage.packing import CHUNK_VALUES
from storage.sequences import SequenceInfo, SequenceStore

T = TypeVar("T")

#: Values of stored chunks a columnar lookup may copy per heap it asks to gather all its heaps at once.
GATHER_SPAN = 8
#: Bits of a heap below its chunk's first (chunks hold a power of two of values).
CHUNK_BITS = CHUNK_VALUES.bit_length() - 1

#: Values a first GetStats computes live when nothing is stored or computed yet.
STATS_PREFIX = 4096


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
        journal: Journal | None = None,
    ) -> None:
        """`live_bytes` and `chunk_bytes` bound the live prefixes and the stored chunks kept, by their
        arrays' bytes; one larger than its whole budget serves the request that made it, and is not kept.
        `queue_work` and `queue_solve` queue the automatic jobs that refusals name (`Refusals`); `journal`
        records the live prefixes grown (service.learned)."""
        self._modes = Modes()
        self._stored = StoredSequences(
            store, gate, self._modes, header_ttl=header_ttl, chunk_bytes=chunk_bytes
        )
        self._live = LiveSequences(limits, self._modes, live_bytes=live_bytes, journal=journal)
        self._refusals = Refusals(
            self._stored, self._live, limits, queue_work=queue_work, queue_solve=queue_solve
        )

    # -- modes ----------------------------------------------------------------------------------

    def from_memory(self, call: Callable[[], T]) -> T | None:
        """`call()` answered from memory alone, else None (`Modes.from_memory`)."""
        return self._modes.from_memory(call)

    def without_computing(self, call: Callable[[], T]) -> T | None:
        """`call()` answered from memory and storage, else None (`Modes.without_computing`)."""
        return self._modes.without_computing(call)

    def may_block(self) -> None:
        """Raise WouldBlock in memory-only mode (for callers about to wait on storage)."""
        self._modes.may_block()

    def may_compute(self) -> None:
        """Raise WouldBlock in memory-only and reads-only modes (for callers about to search or compute)."""
        self._modes.may_compute()

    def adopt_live(self, key: SequenceKey, live: Live) -> None:
        """Keep a live prefix a live process grew (service.learned)."""
        self._live.adopt(key, live)

    # -- what is stored -------------------------------------------------------------------------

    def info(self, game_id: str, family: str = HEAP) -> SequenceInfo | None:
        """The stored header of one sequence, refreshed every few seconds."""
        return self._stored.info(game_id, family)

    def stored_size(self, game_id: str, family: str) -> int:
        return self._stored.size(game_id, family)

    def stored_value(self, game_id: str, family: str, index: int) -> int | None:
        return self._stored.value(game_id, family, index)

    def stored_stats(self, game_id: str, family: str) -> Mapping[str, Any] | None:
        return self._stored.stats(game_id, family)

    def stored_stats_of(
        self, game_id: str, families: Sequence[str]
    ) -> Mapping[str, Mapping[str, Any] | None]:
        return self._stored.stats_of(game_id, families)

    def chunk(self, game_id: str, index: int, family: str = HEAP) -> NDArray[np.uint32]:
        """One stored chunk, verified, from the cache or the database (`StoredSequences.chunk`)."""
        return self._stored.chunk(game_id, index, family)

    def refusal(self, game_id: str, family: str, message: str, *, precondition: bool = False) -> NimbaseError:
        """`message` as the refusal of an answer that needs (game_id, family) stored whole, naming the job
        queued (or open) to store it (`Tables.refusal`)."""
        return self._refusals.unsolved(game_id, family, message, precondition=precondition)

    def want_stored(self, game_id: str, family: str) -> None:
        """Queue (or find) the job storing (game_id, family) whole, where the service queues jobs by itself
        (`Tables.want_stored`); a database that cannot be reached, or a job refused, queues nothing."""
        self._refusals.want_solved(game_id, family)

    def database_needed_but_down(self) -> bool:
        """Whether an answer failed for want of the database (to report UNAVAILABLE, not a limit)."""
        return self._stored.database_down()

    def forget(self, game_id: str | None = None) -> None:
        """Drop cached headers and chunks (all, or one game's, of every family): values computed live
        stay, being right whatever is stored."""
        self._stored.forget(game_id)

    def cached_bytes(self) -> dict[str, int]:
        """Bytes the live prefixes and the stored chunks cached now hold (each within its budget)."""
        return {"live": self._live.cached_bytes(), "chunks": self._stored.cached_bytes()}

    def usage(self) -> dict[str, Usage]:
        """What its caches (stored headers and chunks, live prefixes) hold, by name, for the gauges."""
        return {**self._stored.usage(), **self._live.usage()}

    # -- lookups --------------------------------------------------------------------------------

    def period(
        self, source: SequenceSource, deadline: float | None = None, *, compute: bool = False
    ) -> Period | None:
        """The certified period: stored, or found by live computation (when `compute`).

        A period sought live is a bonus to the answer it goes with (a sequence, statistics), which can do
        without it: the search takes half of the time left, so on a machine slower than its last step
        predicted the answer still arrives by the deadline (what was computed is kept for the next)."""
        info = self._stored.info(source.game_id, source.family)
        if info is not None and info.period is not None and info.period.certified:
            return info.period
        live = self._live.cached(source)
        if live is not None and live.period is not None:
            return live.period
        kernel = source.kernel()
        if compute and kernel is not None and kernel.certifies:
            try:
                sought = None if deadline is None else halfway(deadline)
                return self._live.grow(source, self._live.limit(source), sought).period
            except DeadlineExceeded:
                return None
        return None

    def value(self, source: SequenceSource, n: int, deadline: float | None = None) -> tuple[int, Source]:
        """v(n) and where it came from."""
        formula = source.formula_value(n)
        if formula is not None:
            return formula, "formula"
        stored = self._stored.value(source.game_id, source.family, n)
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

    # -- bulk lookups ---------------------------------------------------------------------------

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
        stored_upto = self._stored.size(source.game_id, source.family)
        pending = np.ones(len(ns), dtype=bool)
        if stored_upto > 0:
            stored = ns < stored_upto
            for index in np.unique(ns[stored] // CHUNK_VALUES).tolist():
                try:
                    chunk = self._stored.chunk_of(source.game_id, index, source.family, stored_upto)
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
        live: Live | None = None
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
            # A damaged chunk gets its own refusal.
            damage = self._stored.damage_at(source.game_id, n, source.family)
            if damage is not None:
                out[n] = damage.error()
            else:
                out[n] = failure if failure is not None else self._refusals.beyond(source, n)
        return out

    def lookup_array(
        self, source: SequenceSource, ns: NDArray[np.int64], deadline: float | None = None
    ) -> NDArray[np.int64]:
        """v(n) for every n of `ns` (each 0..2^63-1), in order: numpy in, numpy out, no Python object
        per value (the columnar route answers a million heaps a call this way).

        Where every heap is stored, they are gathered at once from the chunks they touch laid end to end
        (`_all_stored`; the values then come as stored, uint32). Else stored heaps are gathered chunk by
        chunk with fancy indexing, the others come from the period
        (its head looked up the same way) or the live prefix. All or nothing: where some heap cannot be
        answered, the largest such heap's error is raised (naming the work queued for it, as `value`
        does) and nothing is returned.
        """
        if len(ns) == 0:
            return np.zeros(0, dtype=np.int64)
        if source.formula_value(0) is not None:
            return self._formula_array(source, ns)
        gathered = self._all_stored(source, ns, deadline)
        if gathered is not None:  # the common case: the values as stored (uint32), not copied once more
            return cast(NDArray[np.int64], gathered)
        out = np.zeros(len(ns), dtype=np.int64)
        pending = self._stored_array(source, ns, out, deadline)
        if len(pending) == 0:
            return out
        rest = ns[pending]
        period = self.period(source)
        below = rest if period is None else rest[rest < period.head]
        live: Live | None = None
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
            raise self._refusals.beyond(source, int(rest[left].max()))
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

    def _all_stored(
        self, source: SequenceSource, ns: NDArray[np.int64], deadline: float | None
    ) -> NDArray[np.uint32] | None:
        """Every heap's stored value, gathered at once from the chunks they touch laid end to end, where
        every heap is stored, in a chunk that can be read now, and that copies at most `GATHER_SPAN` values
        a heap; else None (`_stored_array` then answers what it can)."""
        stored_upto = self._stored.size(source.game_id, source.family)
        if int(ns.max()) >= stored_upto:
            return None
        chunk_of = ns >> CHUNK_BITS if 1 << CHUNK_BITS == CHUNK_VALUES else ns // CHUNK_VALUES
        counts = np.bincount(chunk_of)
        touched = np.flatnonzero(counts)
        if len(touched) * CHUNK_VALUES > GATHER_SPAN * len(ns):
            return None
        # shift[c]: what turns a heap of chunk c into its index in the chunks laid end to end.
        shift = np.zeros(len(counts), dtype=np.int64)
        parts: list[NDArray[np.uint32]] = []
        laid = 0
        for index in touched.tolist():
            self._check_reading(source, deadline)
            try:
                chunk = self._stored.chunk_of(source.game_id, index, source.family, stored_upto)
            except (CorruptChunk, StorageUnavailable):
                return None
            parts.append(chunk)
            shift[index] = laid - index * CHUNK_VALUES
            laid += len(chunk)
        laid_out = np.concatenate(parts) if len(parts) > 1 else parts[0]
        at = shift[chunk_of]
        at += ns
        return laid_out[at]

    def _stored_array(
        self, source: SequenceSource, ns: NDArray[np.int64], out: NDArray[np.int64], deadline: float | None
    ) -> NDArray[np.intp]:
        """Write the stored value of every stored heap of `ns` into `out` (same index); the indices of the
        heaps left to answer (beyond the table, or in a chunk that cannot be read now, which the period or
        live computation may still answer)."""
        stored_upto = self._stored.size(source.game_id, source.family)
        inside = np.flatnonzero(ns < stored_upto)
        if len(inside) == 0:
            return np.arange(len(ns))
        chunk_of = ns[inside] // CHUNK_VALUES
        counts = np.bincount(chunk_of)
        return self._stored_by_chunk(source, ns, inside, chunk_of, counts, out, stored_upto, deadline)

    def _stored_by_chunk(
        self,
        source: SequenceSource,
        ns: NDArray[np.int64],
        inside: NDArray[np.intp],
        chunk_of: NDArray[np.int64],
        counts: NDArray[np.intp],
        out: NDArray[np.int64],
        stored_upto: int,
        deadline: float | None,
    ) -> NDArray[np.intp]:
        """`_stored_array`'s gathers: the heaps grouped by chunk, one gather each."""
        # A stable sort of 16-bit keys is numpy's radix sort: the heaps grouped by chunk in linear time.
        keys = chunk_of.astype(np.uint16) if len(counts) <= 1 << 16 else chunk_of
        order = inside[np.argsort(keys, kind="stable")] if len(counts) > 1 else inside
        ends = np.cumsum(counts)
        left = np.ones(len(ns), dtype=bool)
        left[inside] = False
        for index in np.flatnonzero(counts).tolist():
            self._check_reading(source, deadline)
            group = order[ends[index] - counts[index] : ends[index]]
            try:
                chunk = self._stored.chunk_of(source.game_id, index, source.family, stored_upto)
            except (CorruptChunk, StorageUnavailable):
                left[group] = True
                continue
            out[group] = chunk[ns[group] - index * CHUNK_VALUES]
        return np.flatnonzero(left)

    def _check_reading(self, source: SequenceSource, deadline: float | None) -> None:
        """Past the deadline, stop reading chunks (each may be read from the database)."""
        if deadline is not None and time.monotonic() > deadline:
            raise DeadlineExceeded(
                f"reading the stored chunks of {name(source)} ran past the request's deadline"
            )

    # -- ranges ----------------------------------------------------------------------------------

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
        if source.formula_value(0) is not None and source.formula_period() is not None:
            # A closed form with its period (Nim's): whole arrays as `lookup_array` reads them, no loop.
            return self._formula_array(source, np.arange(start, stop, dtype=np.int64)), "formula"
        if source.formula_value(start) is not None:
            for i in range(count):
                value = source.formula_value(start + i)
                assert value is not None
                out[i] = value
            return out, "formula"
        sources: list[Source] = []
        done = start
        stored_upto = self._stored.size(source.game_id, source.family)
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

    def word_bytes(
        self, source: SequenceSource, start: int, stop: int, deadline: float | None = None
    ) -> bytes:
        """Stored values start..stop as little-endian uint32 bytes, read by their range alone where the
        chunks are stored as plain words (`StoredSequences.word_bytes`: not verified by the chunks'
        checksums, so the caller checks what it reads). Values not all stored are refused (LimitExceeded:
        nothing else gives a stored object's words), a damaged chunk is UNAVAILABLE naming its repair, and
        an unreachable database UNAVAILABLE."""
        stored = self._stored_for(source, [(start, stop)], deadline)
        game_id, family = source.game_id, source.family
        return self._reading(
            source,
            f"values {start}..{stop}",
            lambda: self._stored.word_bytes(game_id, family, start, stop, stored),
        )

    def word_bytes_of(
        self, source: SequenceSource, ranges: Sequence[tuple[int, int]], deadline: float | None = None
    ) -> list[bytes]:
        """`word_bytes` of each range of `ranges`, those not in memory read together (one round trip)."""
        stored = self._stored_for(source, ranges, deadline)
        game_id, family = source.game_id, source.family
        return self._reading(
            source,
            f"{len(ranges)} ranges of values",
            lambda: self._stored.word_bytes_of(game_id, family, ranges, stored),
        )

    def _stored_for(
        self, source: SequenceSource, ranges: Sequence[tuple[int, int]], deadline: float | None
    ) -> int:
        """How many values of `source` are stored, once every range of `ranges` is found among them."""
        stored = self._stored.size(source.game_id, source.family)
        for start, stop in ranges:
            if not 0 <= start <= stop:
                raise InvalidArgument(f"invalid range {quote_int(start)}..{quote_int(stop)} of stored values")
            if stop > stored:
                raise LimitExceeded(
                    f"values {start}..{stop} of {name(source)} are not all stored (0..{stored})"
                )
        self._check_reading(source, deadline)
        return stored

    def _reading(self, source: SequenceSource, what: str, read: Callable[[], T]) -> T:
        """`read()`, a damaged chunk's error naming its repair and the database's absence UNAVAILABLE."""
        try:
            return read()
        except CorruptChunk as corrupt:
            damage = self._stored.damage_at(source.game_id, corrupt.chunk_index * CHUNK_VALUES, source.family)
            if damage is None:  # not remembered (its report could not be kept): refused all the same
                raise Unavailable(f"{what} of {name(source)} are damaged: {corrupt}") from None
            raise damage.error() from None
        except StorageUnavailable as down:
            raise Unavailable(f"{what} of {name(source)} need the database: {down}") from None

    def known_prefix(self, source: SequenceSource, deadline: float) -> tuple[NDArray[np.uint32], Source]:
        """The stored table from 0, else the live prefix (computing a first few values if none)."""
        info = self._stored.info(source.game_id, source.family)
        if info is None and self._stored.database_down():
            raise Unavailable(f"stats of {name(source)} need the database, which is unreachable")
        if info is not None and info.computed_upto > 0:
            values, _ = self.values(source, 0, info.computed_upto, deadline)
            return values.astype(np.uint32), "table"
        live = self._live.cached(source)
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
                chunk = self._stored.chunk_of(source.game_id, index, source.family, stored_upto)
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

    # -- live computation ------------------------------------------------------------------------

    def remoteness(self, source: SequenceSource, n: int, deadline: float | None) -> int | None:
        """Remoteness of one position from the kernel's pass over the live prefix (None where the
        kernel has no such pass, or the live values do not reach n)."""
        kernel = source.kernel()
        if kernel is None or not kernel.gives_remoteness or n >= self._live.limit(source):
            return None
        live = self._live.cached(source)  # what `_reach` returns first, looked up without its deadline
        if live is None or (n >= len(live.values) and live.period is None):
            try:  # a remoteness is a bonus: it may take half of what is left of the request's time
                live = self._reach(source, n, None if deadline is None else halfway(deadline))
            except (LimitExceeded, DeadlineExceeded):
                return None
        if n >= len(live.values):
            return None
        remoteness = live.remoteness
        if remoteness is None or len(remoteness) < len(live.values):
            self._modes.may_compute()
            remoteness = kernel.remoteness(live.values)
            if remoteness is None:
                return None
            self._live.add_remoteness(source, live, remoteness)
        return int(remoteness[n])

    def _reach(self, source: SequenceSource, n: int, deadline: float | None) -> Live:
        """A live prefix that holds v(n) or a certified period covering n; else the reason it can't be
        had now (the work queued for it, where possible), as an exception."""
        kernel = source.kernel()
        if kernel is None:
            raise LimitExceeded(f"{name(source)} has no kernel to compute values live")
        live = self._live.cached(source)
        if live is not None and (n < len(live.values) or live.period is not None):
            return live
        limit = self._live.limit(source)
        if n >= limit and not kernel.certifies:
            raise self._refusals.beyond(source, n)
        budget = None if deadline is None else deadline - time.monotonic()
        try:
            live = self._live.grow(source, min(n + 1, limit), deadline)
        except DeadlineExceeded as error:
            raise self._refusals.beyond(source, n, error, budget, WAITED.get()) from None
        if n < len(live.values) or live.period is not None:
            return live
        raise self._refusals.beyond(source, n)

    def _reach_most(
        self, source: SequenceSource, ns: NDArray[np.int64], deadline: float | None
    ) -> tuple[Live | None, Exception | None]:
        """A live prefix covering as many of the sorted heaps `ns` as can be had, and the others' error."""
        try:
            return self._reach(source, int(ns[-1]), deadline), None
        except (LimitExceeded, DeadlineExceeded, Unavailable) as error:
            below = ns[ns < self._live.limit(source)]
            if len(below) and below[-1] != ns[-1]:
                try:
                    return self._reach(source, int(below[-1]), deadline), error
                except (LimitExceeded, DeadlineExceeded, Unavailable):
                    pass
            return self._live.cached(source), error
