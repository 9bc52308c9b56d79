"""What is stored of the sequences: headers and verified chunks read from PostgreSQL and cached in process,
so hot lookups never touch the database, and damaged chunks, never served.

Headers are read again every `header_ttl` seconds (a table grows while it is served); chunks are kept
within a byte budget (NIMBASE_CACHE_CHUNK_BYTES). A chunk found corrupt or missing is reported once,
its repair queued, and remembered for `header_ttl` seconds, in which reads of it fail without the
database. One small lock guards the caches, held only for dictionary operations.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.lru import LRU, Usage
from nimbase.settings import DEFAULT_CACHE
from service.errors import Unavailable
from service.gate import DatabaseGate
from service.sequences.modes import Modes
from service.sequences.names import HEAP
from service.sequences.weights import array_bytes
from storage.errors import CorruptChunk, StorageUnavailable
from storage.jobs import Job
from storage.packing import CHUNK_VALUES
from storage.sequences import SequenceInfo, SequenceStore
from storage.word_ranges import WordsPart

log = logging.getLogger(__name__)

#: Bytes of stored statistics kept in process (each counted as its JSON's length): statistics are a few
#: kilobytes a table (the P-positions listed the most of them).
STATS_BYTES = 16 << 20
#: The words read at once, and kept, when a range read falls within an object's first ones: what a reader
#: by ranges reads first (its size, header, index) comes from one read. 64 KiB a stored object.
HEAD_WORDS = 16 << 10
#: Bytes of such heads kept in process (a few hundred objects').
HEADS_BYTES = 16 << 20


@dataclass(slots=True)
class _Header:
    info: SequenceInfo | None
    fetched_at: float


@dataclass(frozen=True, slots=True)
class Damage:
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


class StoredSequences:
    """The stored headers and chunks of every sequence, cached (`store` None: nothing is stored)."""

    def __init__(
        self,
        store: SequenceStore | None,
        gate: DatabaseGate,
        modes: Modes,
        *,
        header_ttl: float = 2.0,
        chunk_bytes: int = DEFAULT_CACHE.chunk_bytes,
    ) -> None:
        self._store = store
        self._gate = gate
        self._modes = modes
        self._header_ttl = header_ttl
        self._headers: LRU[tuple[str, str], _Header] = LRU(maxsize=4096)
        self._chunks: LRU[tuple[str, str, int], NDArray[np.uint32]] = LRU(
            maxsize=chunk_bytes, getsizeof=array_bytes
        )
        #: Chunks found damaged: not read again (nor reported again) for `header_ttl` seconds.
        self._damaged: LRU[tuple[str, str, int], Damage] = LRU(maxsize=4096)
        #: Headers being read again behind a memory answer (`_refresh_behind`).
        self._refreshing: set[tuple[str, str]] = set()
        #: The headers of every family of a game, read at once (`stats_of`), with when they were read.
        self._game_headers: LRU[str, tuple[float, dict[str, SequenceInfo]]] = LRU(maxsize=256)
        #: Stored statistics read, with how many values they cover (current while the header says so).
        self._stats: LRU[tuple[str, str], tuple[int, Mapping[str, Any], int]] = LRU(
            maxsize=STATS_BYTES, getsizeof=lambda kept: kept[2]
        )
        #: The first HEAD_WORDS words (or all, when fewer are stored) of objects read by ranges, as bytes,
        #: with when they were read: not verified by a chunk's checksum, so kept `header_ttl` seconds only
        #: (a table stored again is read again, as its header is).
        self._heads: LRU[tuple[str, str], tuple[float, bytes]] = LRU(
            maxsize=HEADS_BYTES, getsizeof=lambda kept: len(kept[1])
        )
        #: Guards the caches above; held only for dictionary operations.
        self._lock = threading.Lock()

    def may_block(self) -> None:
        """Raise WouldBlock in memory-only mode: for what must read the headers as stored now."""
        self._modes.may_block()

    def info(self, game_id: str, family: str = HEAP) -> SequenceInfo | None:
        """The stored header of one sequence, refreshed every few seconds."""
        now = time.monotonic()
        cached = self._headers.read((game_id, family))  # without the lock: every stored lookup asks here
        if cached is not None and now - cached.fetched_at < self._header_ttl:
            return cached.info
        if self._store is None:
            return None
        if cached is not None and self._modes.memory_only:
            # A memory answer does not wait for the database: what the header says stays true (a table
            # only grows), and a thread of its own reads it again behind the answer (once it is given:
            # a call that memory does not answer reads the header itself in the thread it goes to).
            self._modes.behind_answer(partial(self._refresh_behind, game_id, family))
            return cached.info
        self._modes.may_block()
        store = self._store
        try:
            info = self._gate.call(lambda: store.info(game_id, family))
        except StorageUnavailable:
            return cached.info if cached is not None else None
        with self._lock:
            self._headers[(game_id, family)] = _Header(info, now)
        return info

    def _refresh_behind(self, game_id: str, family: str) -> None:
        """Read a header again in a thread of its own (one at a time per header), for `info` in memory-only
        mode, which answers from the header it has meanwhile."""
        key = (game_id, family)
        with self._lock:
            if key in self._refreshing:
                return
            self._refreshing.add(key)

        def refresh() -> None:
            try:
                self.info(game_id, family)  # this thread's mode is not memory-only: it reads
            finally:
                with self._lock:
                    self._refreshing.discard(key)

        threading.Thread(target=refresh, name="nimbase-header", daemon=True).start()

    def stats(self, game_id: str, family: str = HEAP) -> Mapping[str, Any] | None:
        """The statistics stored beside the sequence (storage: `SequenceStore.stats`) when they cover
        every stored value, read once per stored length and kept; None otherwise (none stored, a job still
        writing the sequence, the database unreachable)."""
        info = self.info(game_id, family)
        if info is None or not info.stats_current:
            return None
        key = (game_id, family)
        with self._lock:
            kept = self._stats.get(key)
        if kept is not None and kept[0] == info.computed_upto:
            return kept[1]
        if self._store is None:
            return None
        self._modes.may_block()
        store = self._store
        try:
            found = self._gate.call(lambda: store.stats(game_id, family))
        except StorageUnavailable:
            return None
        if found is None or found[0] != info.computed_upto:
            return None  # the table grew since its header was read: the next header says so
        upto, stats = found
        with self._lock:
            self._stats.keep(key, (upto, stats, len(json.dumps(stats))))
        return stats

    def stats_of(self, game_id: str, families: Sequence[str]) -> dict[str, Mapping[str, Any] | None]:
        """`stats` of several families of one game (a rules game's tiers): their headers in one query
        (refreshed every `header_ttl` seconds, per game) and the statistics not kept yet in one more."""
        now = time.monotonic()
        with self._lock:
            cached = self._game_headers.get(game_id)
        if cached is None or now - cached[0] >= self._header_ttl:
            if self._store is None:
                return dict.fromkeys(families)
            self._modes.may_block()
            store = self._store
            try:
                listed = self._gate.call(lambda: store.list_sequences(game_id))
            except StorageUnavailable:
                return dict.fromkeys(families)
            cached = (now, {info.family: info for info in listed})
            with self._lock:
                self._game_headers[game_id] = cached
        infos = cached[1]
        found: dict[str, Mapping[str, Any] | None] = {}
        missing = []
        for family in families:
            info = infos.get(family)
            if info is None or not info.stats_current:
                found[family] = None
                continue
            with self._lock:
                kept = self._stats.get((game_id, family))
            if kept is not None and kept[0] == info.computed_upto:
                found[family] = kept[1]
            else:
                missing.append(family)
        if missing:
            assert self._store is not None
            self._modes.may_block()
            store = self._store
            try:
                read = self._gate.call(lambda: store.stats_many(game_id, missing))
            except StorageUnavailable:
                read = {}
            for family in missing:
                upto_stats = read.get(family)
                info = infos[family]
                if upto_stats is None or upto_stats[0] != info.computed_upto:
                    found[family] = None
                    continue
                found[family] = upto_stats[1]
                with self._lock:
                    self._stats.keep((game_id, family), (*upto_stats, len(json.dumps(upto_stats[1]))))
        return found

    def size(self, game_id: str, family: str) -> int:
        """How many values of (game_id, family) are stored from 0 (0 when none or unreachable)."""
        info = self.info(game_id, family)
        return 0 if info is None else info.computed_upto

    def value(self, game_id: str, family: str, index: int) -> int | None:
        """One stored value, or None where it is not stored or cannot be read now (the hot path of a stored
        heap: its header and chunk are read without the lock when fresh and cached)."""
        stored = self.size(game_id, family)
        if index >= stored:
            return None
        try:
            chunk = self.chunk_of(game_id, index // CHUNK_VALUES, family, stored)
        except (CorruptChunk, StorageUnavailable):
            return None
        return int(chunk[index % CHUNK_VALUES])

    def database_down(self) -> bool:
        """Whether the stored tables exist but cannot be read now (the database is unreachable)."""
        return self._store is not None and not self._gate.is_open

    def chunk(self, game_id: str, index: int, family: str = HEAP) -> NDArray[np.uint32]:
        """One stored chunk, verified, from the cache or the database.

        A damaged chunk (corrupt, or its row missing: CorruptChunk) is reported and remembered: for the
        next `header_ttl` seconds reads of it fail at once, without the database, and a later read that
        finds it still damaged adds no report (the store keeps one per chunk until it is rewritten).
        A cached chunk that was the partial last one is read again once the table has grown past it.
        """
        return self.chunk_of(game_id, index, family, self.size(game_id, family))

    def chunk_of(self, game_id: str, index: int, family: str, stored: int) -> NDArray[np.uint32]:
        """`chunk`, the table's stored size known already (one header lookup per value, not two)."""
        key = (game_id, family, index)
        chunk = self._chunks.read(key)  # without the lock, as `info` reads its header
        if chunk is not None and len(chunk) >= min(CHUNK_VALUES, stored - index * CHUNK_VALUES):
            return chunk
        with self._lock:
            damage = self._damaged.get(key)
        now = time.monotonic()
        if damage is not None and now - damage.found_at < self._header_ttl:
            raise damage.corrupt()
        assert self._store is not None
        self._modes.may_block()
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

    def word_bytes(self, game_id: str, family: str, start: int, stop: int, stored: int) -> bytes:
        """Stored values start..stop (within the `stored` ones) as little-endian uint32 bytes: from the
        chunks cached (read whole before), else read by their range alone where the chunks are stored as
        plain words (storage.word_ranges: checked for shape, not by the chunk's checksum, so the caller
        checks what it reads) and not cached, since a whole chunk was not read; a chunk stored otherwise is
        read whole, verified, and cached as `chunk_of` caches it. A range within the object's first
        HEAD_WORDS words comes from its head, read once and kept (`_head`): a reader's first reads (its
        size, header, index) cost one read together. A damaged chunk is reported and raised (CorruptChunk)
        as `chunk_of` does."""
        if start >= stop:
            return b""
        if stop <= HEAD_WORDS and self._chunks.read((game_id, family, 0)) is None:
            return self._head(game_id, family, stored, stop)[4 * start : 4 * stop]
        first, last = start // CHUNK_VALUES, (stop - 1) // CHUNK_VALUES
        kept = self._kept_chunks(game_id, family, first, last, stored)
        missing = [index for index in range(first, last + 1) if index not in kept]
        parts: dict[int, bytes] = {}
        if missing:
            parts = self._read_parts(game_id, family, start, stop, missing[0], missing[-1], stored)
        return _joined(kept, parts, start, stop)

    def word_bytes_of(
        self, game_id: str, family: str, ranges: Sequence[tuple[int, int]], stored: int
    ) -> list[bytes]:
        """`word_bytes` of each range of `ranges`: those the head or the chunks cached hold answered here,
        all the others read together, in one statement (one round trip for a reader needing several
        ranges at once, as a position's moves need several blocks of one table)."""
        out: list[bytes] = []
        unread: list[int] = []
        for n, (start, stop) in enumerate(ranges):
            if start >= stop:
                out.append(b"")
            elif stop <= HEAD_WORDS and self._chunks.read((game_id, family, 0)) is None:
                out.append(self._head(game_id, family, stored, stop)[4 * start : 4 * stop])
            else:
                first, last = start // CHUNK_VALUES, (stop - 1) // CHUNK_VALUES
                kept = self._kept_chunks(game_id, family, first, last, stored)
                if len(kept) == last - first + 1:
                    out.append(_joined(kept, {}, start, stop))
                else:
                    out.append(b"")
                    unread.append(n)
        if unread:
            asked = [ranges[n] for n in unread]
            for n, parts in zip(unread, self._read_parts_of(game_id, family, asked, stored), strict=True):
                out[n] = b"".join(parts[index] for index in sorted(parts))
        return out

    def _kept_chunks(
        self, game_id: str, family: str, first: int, last: int, stored: int
    ) -> dict[int, NDArray[np.uint32]]:
        """The chunks first..last kept in process whole (by index)."""
        kept: dict[int, NDArray[np.uint32]] = {}
        for index in range(first, last + 1):
            chunk = self._chunks.read((game_id, family, index))
            if chunk is not None and len(chunk) >= min(CHUNK_VALUES, stored - index * CHUNK_VALUES):
                kept[index] = chunk
        return kept

    def _head(self, game_id: str, family: str, stored: int, stop: int) -> bytes:
        """The object's first HEAD_WORDS words (all, when fewer are stored: at least `stop`), kept."""
        key = (game_id, family)
        kept = self._heads.read(key)
        now = time.monotonic()
        if kept is not None and len(kept[1]) >= 4 * stop and now - kept[0] < self._header_ttl:
            return kept[1]
        upto = min(HEAD_WORDS, stored)
        head = b"".join(
            self._read_parts(game_id, family, 0, upto, 0, (upto - 1) // CHUNK_VALUES, stored).values()
        )
        with self._lock:
            self._heads.keep(key, (now, head))
        return head

    def _read_parts(
        self, game_id: str, family: str, start: int, stop: int, first: int, last: int, stored: int
    ) -> dict[int, bytes]:
        """`word_bytes`' read of chunks first..last (their part of start..stop), by chunk index."""
        lo, hi = max(start, first * CHUNK_VALUES), min(stop, (last + 1) * CHUNK_VALUES)
        store = self._before_reading(game_id, family, [(lo, hi)])
        read = self._reading(game_id, family, stored, lambda: [store.read_parts(game_id, family, lo, hi)])
        return read[0]

    def _read_parts_of(
        self, game_id: str, family: str, ranges: Sequence[tuple[int, int]], stored: int
    ) -> list[dict[int, bytes]]:
        """`word_bytes_of`' read of `ranges`, in one statement: each range's parts by chunk index."""
        store = self._before_reading(game_id, family, ranges)
        return self._reading(game_id, family, stored, lambda: store.read_parts_of(game_id, family, ranges))

    def _before_reading(self, game_id: str, family: str, ranges: Sequence[tuple[int, int]]) -> SequenceStore:
        """The store to read `ranges` from, once none of their chunks is known damaged (else its error)
        and this thread may block."""
        now = time.monotonic()
        for start, stop in ranges:
            for index in range(start // CHUNK_VALUES, (stop - 1) // CHUNK_VALUES + 1):
                with self._lock:
                    damage = self._damaged.get((game_id, family, index))
                if damage is not None and now - damage.found_at < self._header_ttl:
                    raise damage.corrupt()
        assert self._store is not None
        self._modes.may_block()
        return self._store

    def _reading(
        self, game_id: str, family: str, stored: int, read: Callable[[], list[list[WordsPart]]]
    ) -> list[dict[int, bytes]]:
        """The parts `read` gives (by range, each by chunk index), through the database gate: a damaged
        chunk reported and raised, the chunks read whole kept, those read well no longer damaged."""
        now = time.monotonic()
        try:
            found = self._gate.call(read)
        except CorruptChunk as corrupt:
            with self._lock:
                known = (game_id, family, corrupt.chunk_index) in self._damaged
            self._report(corrupt, stored, now, known=known)
            raise
        with self._lock:
            for parts in found:
                for part in parts:
                    self._damaged.pop((game_id, family, part.index))
                    if part.chunk is not None:
                        self._chunks.keep((game_id, family, part.index), part.chunk)
        return [{part.index: part.data for part in parts} for parts in found]

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
        damage = Damage(game_id, family, index, stop, corrupt.detail, job, now)
        with self._lock:
            self._damaged[(game_id, family, index)] = damage

    def damage_at(self, game_id: str, n: int, family: str = HEAP) -> Damage | None:
        """The known damage of the stored chunk holding value n, if any."""
        with self._lock:
            damage = self._damaged.get((game_id, family, n // CHUNK_VALUES))
        return damage if damage is not None and n < damage.stop else None

    def forget(self, game_id: str | None = None) -> None:
        """Drop cached headers and chunks (all, or one game's, of every family)."""
        with self._lock:
            if game_id is None:
                self._headers.clear()
                self._chunks.clear()
                self._damaged.clear()
                self._heads.clear()
                self._stats.clear()
                self._game_headers.clear()
                return
            self._game_headers.pop(game_id)
            for stats in [k for k in self._stats if k[0] == game_id]:
                del self._stats[stats]
            for header in [k for k in self._headers if k[0] == game_id]:
                del self._headers[header]
            for key in [k for k in self._chunks if k[0] == game_id]:
                del self._chunks[key]
            for key in [k for k in self._damaged if k[0] == game_id]:
                del self._damaged[key]
            for head in [k for k in self._heads if k[0] == game_id]:
                del self._heads[head]

    def cached_bytes(self) -> int:
        """Bytes the stored chunks cached now hold (within their budget)."""
        with self._lock:
            return int(self._chunks.currsize)

    def usage(self) -> dict[str, Usage]:
        """What its caches hold, by name, for the server's gauges."""
        with self._lock:
            return {
                "sequence_headers": self._headers.usage(),
                "sequence_chunks": self._chunks.usage(),
                "sequence_damaged": self._damaged.usage(),
                "sequence_heads": self._heads.usage(),
                "sequence_stats": self._stats.usage(),
            }


def _joined(
    kept: Mapping[int, NDArray[np.uint32]], parts: Mapping[int, bytes], start: int, stop: int
) -> bytes:
    """Values start..stop as little-endian uint32 bytes, chunk by chunk: from the chunks `kept` whole,
    else from the `parts` read (by chunk index)."""
    out = []
    for index in range(start // CHUNK_VALUES, (stop - 1) // CHUNK_VALUES + 1):
        if index in kept:
            base = index * CHUNK_VALUES
            lo, hi = max(start, base) - base, min(stop, base + CHUNK_VALUES) - base
            out.append(kept[index][lo:hi].astype("<u4").tobytes())
        else:
            out.append(parts[index])
    return b"".join(out)
