"""Stored single-heap sequences: verified reads and the fenced write path of the workers.

A sequence (game_id, family) is stored as chunks of CHUNK_VALUES packed values plus a row in
`sequences` holding how many values are stored contiguously from 0 (`computed_upto`), the largest
value and the certified period. Reads verify every chunk's checksum, and that every chunk the stored
length covers is there and full, so they never return bad data; a damaged chunk is reported once (until
a write replaces it) and its repair queued. The one exception: a range of a chunk stored as plain words
(`read_parts`, storage.word_ranges) is read alone, checked for its shape only, for a reader that checks
what it reads by checksums of its own. Writes happen in one transaction together with the job's
progress, fenced by the job lease and by the stored length the writer started from. An object made whole
stored by an older version in the packed form has its chunks stored again as plain words, one at a time,
its values unchanged (`packed_chunks`, `rewrite_plain`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import sqlalchemy as sa
from numpy.typing import NDArray
from sqlalchemy.dialects import postgresql

from engine.errors import InvalidArgument
from engine.periods import Period
from storage.checkpoints import delete_records
from storage.database import unavailable_on_disconnect
from storage.errors import CorruptChunk, InvalidPayload, MissingChunk, NotStored, StaleWrite
from storage.jobs import OPEN_STATUSES, Job, fence, open_repair_insert
from storage.packing import (
    CHUNK_VALUES,
    PLAIN_WIDTH,
    RAW,
    checksum,
    decode,
    encode,
    encode_plain,
    is_plain,
)
from storage.schema import corruption_reports, jobs, sequence_chunks, sequences
from storage.word_ranges import WordsPart, read_word_parts, read_word_ranges


@dataclass(frozen=True, slots=True)
class SequenceInfo:
    """What is stored of one sequence."""

    game_id: str
    family: str
    computed_upto: int
    max_value: int | None
    max_value_at: int | None
    period: Period | None
    updated_at: datetime
    #: How many values the stored statistics cover (`SequenceStore.stats`); None where none are stored.
    stats_upto: int | None = None

    @property
    def stats_current(self) -> bool:
        """Whether statistics are stored for every stored value (not for a shorter prefix, nor none)."""
        return self.stats_upto is not None and self.stats_upto == self.computed_upto


def _info_from_row(row: sa.Row[Any]) -> SequenceInfo:
    m = row._mapping
    period = None
    if m["period"] is not None:
        period = Period(
            preperiod=int(m["preperiod"]),
            period=int(m["period"]),
            saltus=int(m["saltus"] or 0),
            certified=bool(m["certified"]),
        )
    return SequenceInfo(
        game_id=m["game_id"],
        family=m["family"],
        computed_upto=int(m["computed_upto"]),
        max_value=m["max_value"],
        max_value_at=m["max_value_at"],
        period=period,
        updated_at=m["updated_at"],
        stats_upto=None if m["stats_upto"] is None else int(m["stats_upto"]),
    )


#: The header's columns: all but the statistics, read only when asked for (`SequenceStore.stats`).
_HEADER = [column for column in sequences.c if column.name != "stats"]


def _key(game_id: str, family: str) -> sa.ColumnElement[bool]:
    return sa.and_(sequences.c.game_id == game_id, sequences.c.family == family)


def _chunk_key(game_id: str, family: str) -> sa.ColumnElement[bool]:
    return sa.and_(sequence_chunks.c.game_id == game_id, sequence_chunks.c.family == family)


def verified_values(game_id: str, family: str, row: sa.Row[Any]) -> NDArray[np.uint32]:
    """The values of a chunk row, after checking its checksum (CorruptChunk otherwise)."""
    m = row._mapping
    index, count, width, codec = int(m["chunk_index"]), int(m["count"]), int(m["width"]), int(m["codec"])
    payload = bytes(m["payload"])
    if checksum(game_id, family, index, count, width, payload, codec) != int(m["checksum"]):
        raise CorruptChunk(game_id, family, index)
    try:
        return decode(width, codec, count, payload)
    except InvalidPayload as exc:
        raise CorruptChunk(game_id, family, index, str(exc)) from exc


def _read_chunk(conn: sa.Connection, game_id: str, family: str, index: int) -> NDArray[np.uint32]:
    """`SequenceStore.read_chunk` on `conn`."""
    # The header and the chunk in one statement, so one snapshot: a chunk written after the header
    # was read cannot pass for a missing one.
    chunk = sa.and_(
        sequence_chunks.c.game_id == sequences.c.game_id,
        sequence_chunks.c.family == sequences.c.family,
        sequence_chunks.c.chunk_index == index,
    )
    stmt = (
        sa.select(sequences.c.computed_upto.label("stored"), sequence_chunks)
        .select_from(sequences.outerjoin(sequence_chunks, chunk))
        .where(_key(game_id, family))
    )
    row = conn.execute(stmt).first()
    start = index * CHUNK_VALUES
    stored = 0 if row is None else int(row.stored)
    if row is None or row.chunk_index is None:
        if start < stored:
            raise MissingChunk(game_id, family, index, stored)
        raise NotStored(game_id, family, start, start + CHUNK_VALUES, stored)
    values = verified_values(game_id, family, row)
    _check_count(game_id, family, index, len(values), stored)
    return values


def _repaired_since(conn: sa.Connection, game_id: str, family: str, index: int) -> bool:
    """Whether chunk `index`, found damaged by a reader, reads whole now (a repair rewrote it since)."""
    try:
        _read_chunk(conn, game_id, family, index)
    except (CorruptChunk, NotStored):
        return False
    return True


class SequenceStore:
    """Reads and writes of stored sequences."""

    def __init__(self, engine: sa.Engine) -> None:
        self._engine = engine

    # ---- reads -------------------------------------------------------------------------------

    def info(self, game_id: str, family: str) -> SequenceInfo | None:
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            row = conn.execute(sa.select(*_HEADER).where(_key(game_id, family))).first()
        return None if row is None else _info_from_row(row)

    def stats(self, game_id: str, family: str) -> tuple[int, dict[str, Any]] | None:
        """The statistics stored beside (game_id, family) and how many values they cover, or None where
        none are stored (a table stored before they were, or nothing stored)."""
        stmt = sa.select(sequences.c.stats_upto, sequences.c.stats).where(_key(game_id, family))
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            row = conn.execute(stmt).first()
        if row is None or row.stats is None or row.stats_upto is None:
            return None
        return int(row.stats_upto), dict(row.stats)

    def stats_many(self, game_id: str, families: Sequence[str]) -> dict[str, tuple[int, dict[str, Any]]]:
        """`stats` of several families of one game in one query (those with none stored left out)."""
        stmt = sa.select(sequences.c.family, sequences.c.stats_upto, sequences.c.stats).where(
            sequences.c.game_id == game_id,
            sequences.c.family.in_(list(families)),
            sequences.c.stats.is_not(None),
            sequences.c.stats_upto.is_not(None),
        )
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            rows = conn.execute(stmt).all()
        return {row.family: (int(row.stats_upto), dict(row.stats)) for row in rows}

    def list_sequences(self, game_id: str) -> list[SequenceInfo]:
        """The headers of `game_id`'s stored sequences, by family."""
        stmt = sa.select(*_HEADER).where(sequences.c.game_id == game_id).order_by(sequences.c.family)
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            return [_info_from_row(row) for row in conn.execute(stmt)]

    def list_sequences_all(self, limit: int = 1000) -> list[SequenceInfo]:
        """Every stored sequence's header (length, largest value, certified period), of every game, most
        recently updated first, at most `limit` of them."""
        if limit < 1:
            raise InvalidArgument(f"limit must be >= 1, got {limit}")
        stmt = (
            sa.select(*_HEADER)
            .order_by(sequences.c.updated_at.desc(), sequences.c.game_id, sequences.c.family)
            .limit(limit)
        )
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            return [_info_from_row(row) for row in conn.execute(stmt)]

    def read_chunk(self, game_id: str, family: str, index: int) -> NDArray[np.uint32]:
        """The verified values of chunk `index`: NotStored beyond the stored prefix, CorruptChunk when
        damaged (MissingChunk when its row is gone although the prefix covers it)."""
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            return _read_chunk(conn, game_id, family, index)

    def read_range(self, game_id: str, family: str, start: int, stop: int) -> NDArray[np.uint32]:
        """The verified values for start <= n < stop."""
        if not 0 <= start <= stop:
            raise ValueError(f"invalid range {start}..{stop}")
        if start == stop:
            return np.zeros(0, dtype=np.uint32)
        first, last = start // CHUNK_VALUES, (stop - 1) // CHUNK_VALUES
        header = sa.select(sequences.c.computed_upto).where(_key(game_id, family))
        stmt = (
            sa.select(sequence_chunks)
            .where(_chunk_key(game_id, family), sequence_chunks.c.chunk_index.between(first, last))
            .order_by(sequence_chunks.c.chunk_index)
        )
        # The header first: chunks are never deleted and are written with the header, so every chunk
        # it covers must be there when the chunks are read just after (else the row is missing).
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            stored = int(conn.execute(header).scalar() or 0)
            rows = conn.execute(stmt).all()
        parts: list[NDArray[np.uint32]] = []
        covered = first * CHUNK_VALUES
        for row in rows:
            index = int(row.chunk_index)
            if index * CHUNK_VALUES != covered:
                break
            values = verified_values(game_id, family, row)
            _check_count(game_id, family, index, len(values), stored)
            parts.append(values)
            covered += len(values)
            if len(values) != CHUNK_VALUES:
                break
        if covered < stop:
            if covered < stored:
                raise MissingChunk(game_id, family, covered // CHUNK_VALUES, stored)
            raise NotStored(game_id, family, start, stop, stored)
        joined = np.concatenate(parts)
        offset = first * CHUNK_VALUES
        return joined[start - offset : stop - offset]

    def read_parts(self, game_id: str, family: str, start: int, stop: int) -> list[WordsPart]:
        """Values start..stop as bytes, chunk by chunk, read without the rest of the chunks stored as
        plain words (not verified by their checksums: storage.word_ranges says what is checked)."""
        if not 0 <= start <= stop:
            raise ValueError(f"invalid range {start}..{stop}")
        if start == stop:
            return []
        # One statement, so one snapshot without a transaction: no BEGIN and ROLLBACK, each a round trip
        # to the database, as long as the read itself (the hot path of a cold block).
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            autocommit = conn.execution_options(isolation_level="AUTOCOMMIT")
            return read_word_parts(autocommit, game_id, family, start, stop)

    def read_parts_of(
        self, game_id: str, family: str, ranges: Sequence[tuple[int, int]]
    ) -> list[list[WordsPart]]:
        """`read_parts` of each range of `ranges` (each non-empty), in one statement (one round trip)."""
        for start, stop in ranges:
            if not 0 <= start < stop:
                raise ValueError(f"invalid range {start}..{stop}")
        if not ranges:
            return []
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            autocommit = conn.execution_options(isolation_level="AUTOCOMMIT")
            return read_word_ranges(autocommit, game_id, family, ranges)

    def read_prefix(self, game_id: str, family: str, stop: int) -> NDArray[np.uint32]:
        """The verified values for 0 <= n < stop."""
        return self.read_range(game_id, family, 0, stop)

    def packed_chunks(self, game_id: str, family: str) -> list[int]:
        """The indices of the stored chunks of (game_id, family) not stored as plain words (storage.packing
        .is_plain: bit-packed or deflated, as an older version stored objects made whole), in order: one
        query over the chunk rows' forms, their payloads not read."""
        c = sequence_chunks.c
        stmt = (
            sa.select(c.chunk_index)
            .where(_chunk_key(game_id, family), sa.or_(c.width != PLAIN_WIDTH, c.codec != RAW))
            .order_by(c.chunk_index)
        )
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            return [int(index) for index in conn.execute(stmt).scalars()]

    def table_bytes(self) -> int:
        """Bytes the chunk table takes in PostgreSQL, TOAST and indexes included."""
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            size = conn.execute(sa.text("SELECT pg_total_relation_size('sequence_chunks')")).scalar_one()
        return int(size)

    # ---- corruption --------------------------------------------------------------------------

    def report_corruption(
        self, game_id: str, family: str, chunk_index: int, detail: str | None = None
    ) -> Job:
        """Record a damaged chunk and queue its repair; the open repair job (one per chunk).

        A chunk has at most one report until it is rewritten (a unique index on the reports not yet
        repaired), so however many readers find the damage, it is recorded once; the repair job is
        queued again only when no repair of the chunk is open (the last one failed or was cancelled). A
        report of a chunk that reads whole again, once repaired, is answered by its last repair job: the
        reader read it before that repair was written.
        """
        upto = (chunk_index + 1) * CHUNK_VALUES
        report = (
            postgresql.insert(corruption_reports)
            .values(game_id=game_id, family=family, chunk_index=chunk_index, detail=detail)
            .on_conflict_do_nothing(
                index_elements=[
                    corruption_reports.c.game_id,
                    corruption_reports.c.family,
                    corruption_reports.c.chunk_index,
                ],
                index_where=sa.text("repaired_at IS NULL"),
            )
        )
        repairs = sa.select(jobs).where(
            jobs.c.game_id == game_id,
            jobs.c.family == family,
            jobs.c.kind == "repair",
            jobs.c.chunk_index == chunk_index,
        )
        find = repairs.where(jobs.c.status.in_(OPEN_STATUSES))
        latest = repairs.order_by(jobs.c.id.desc()).limit(1)
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            # Locked as every write of a chunk locks it: a repair committed before this report is seen
            # below (the chunk reads whole: the reader read it before the repair, and its report is
            # answered by that repair, not queued again), one committed after finds this report's job open.
            conn.execute(
                sa.select(sequences.c.computed_upto).where(_key(game_id, family)).with_for_update(read=True)
            )
            if _repaired_since(conn, game_id, family, chunk_index):
                repaired = conn.execute(latest).first()
                if repaired is not None:
                    return Job.from_row(repaired)
            conn.execute(report)
            while True:  # the open job may finish between the insert and the select: insert again
                conn.execute(open_repair_insert(game_id, family, chunk_index, upto))
                row = conn.execute(find).first()
                if row is not None:
                    return Job.from_row(row)

    # ---- the worker's write path -------------------------------------------------------------

    def write_extension(
        self,
        *,
        job_id: int,
        worker_id: str,
        game_id: str,
        family: str,
        start: int,
        values: NDArray[np.uint32],
        period: Period | None,
        done: int,
        total: int,
        finish: bool = False,
        stats: Mapping[str, Any] | None = None,
        plain: bool = False,
    ) -> None:
        """Store values[start:] (values holds the whole prefix 0..len-1) as one checkpoint.

        In one transaction: the job's lease is checked and its progress set (LeaseLost when it is
        not held), the sequence row is locked and must still hold exactly `start` values
        (StaleWrite otherwise), every chunk from the one holding `start` is upserted (a partial last
        chunk is rewritten), and computed_upto, max_value and a certified `period` are recorded.
        With `finish`, the job is marked done in the same transaction, and the checkpoints of the
        object (storage.checkpoints), of no use once it is stored whole, are deleted. `stats` (the
        kernel's statistics of all values 0..len-1) are stored with them; without, the statistics stored
        before cover fewer values than are stored, and are no longer current. With `plain`, the chunks are
        stored as plain words (storage.packing.encode_plain: an object whose bytes are compressed already,
        read by ranges), else bit-packed and deflated where that pays.
        """
        stop = len(values)
        if not 0 <= start <= stop:
            raise ValueError(f"start {start} outside the {stop} values given")
        progress: dict[str, Any] = {"done": done, "total": total, "heartbeat_at": sa.func.now()}
        if finish:
            progress.update(status="done", done=total, finished_at=sa.func.now(), lease_expires_at=None)
        first = start // CHUNK_VALUES
        chunk_rows = _chunk_rows(game_id, family, values, first * CHUNK_VALUES, stop, plain=plain)
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            self._fence_job(conn, job_id, worker_id, progress)
            computed_upto, max_value = self._lock_sequence(conn, game_id, family)
            if computed_upto != start:
                raise StaleWrite(game_id, family, start, computed_upto)
            if chunk_rows:
                conn.execute(_upsert_chunks(), chunk_rows)
                conn.execute(_mark_repaired(game_id, family, first))
            update: dict[str, Any] = {"computed_upto": stop, "updated_at": sa.func.now()}
            if stop > start:
                new = values[start:stop]
                at = int(np.argmax(new))
                top = int(new[at])
                if max_value is None or top > max_value:
                    update.update(max_value=top, max_value_at=start + at)
            if period is not None and period.certified:
                update.update(
                    preperiod=period.preperiod, period=period.period, saltus=period.saltus, certified=True
                )
            if stats is not None:
                update.update(stats=dict(stats), stats_upto=stop)
            conn.execute(sequences.update().where(_key(game_id, family)).values(**update))
            if finish:
                conn.execute(delete_records(game_id, family))

    def rewrite_chunk(
        self,
        *,
        job_id: int,
        worker_id: str,
        game_id: str,
        family: str,
        chunk_index: int,
        values: NDArray[np.uint32],
    ) -> None:
        """Replace stored chunk `chunk_index` by `values` (recomputed), fenced by the job lease, in the form
        the chunk had (plain words stay plain: whoever reads it by ranges still can)."""
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            self._fence_job(conn, job_id, worker_id, {"heartbeat_at": sa.func.now()})
            computed_upto, _ = self._lock_sequence(conn, game_id, family)
            start = chunk_index * CHUNK_VALUES
            count = min(CHUNK_VALUES, computed_upto - start)
            if count <= 0:
                raise NotStored(game_id, family, start, start + CHUNK_VALUES, computed_upto)
            if len(values) != count:
                raise ValueError(f"chunk {chunk_index} holds {count} values, got {len(values)}")
            form = conn.execute(
                sa.select(sequence_chunks.c.width, sequence_chunks.c.codec).where(
                    _chunk_key(game_id, family), sequence_chunks.c.chunk_index == chunk_index
                )
            ).first()
            plain = form is not None and is_plain(int(form.width), int(form.codec))
            rows = _chunk_rows(game_id, family, values, start, start + count, start, plain=plain)
            conn.execute(_upsert_chunks(), rows)
            conn.execute(_mark_repaired(game_id, family, chunk_index, chunk_index))

    def rewrite_plain(
        self,
        *,
        job_id: int,
        worker_id: str,
        game_id: str,
        family: str,
        chunk_index: int,
        done: int | None = None,
        total: int | None = None,
    ) -> bool:
        """Store chunk `chunk_index` again as plain words (storage.packing.encode_plain), its values
        unchanged, so that a reader takes a range of it alone; whether it was rewritten (False: it was plain
        already, as for a resumed job's chunks done before). In one transaction fenced by the job lease
        (LeaseLost otherwise), which records done/total when given: the sequence row is locked, the chunk
        read and verified by its checksum (CorruptChunk otherwise, nothing written), and written back with
        its checksum recomputed. The stored length and header stay as they were."""
        progress: dict[str, Any] = {"heartbeat_at": sa.func.now()}
        if done is not None and total is not None:
            progress.update(done=done, total=total)
        start = chunk_index * CHUNK_VALUES
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            self._fence_job(conn, job_id, worker_id, progress)
            stored = conn.execute(
                sa.select(sequences.c.computed_upto).where(_key(game_id, family)).with_for_update()
            ).scalar()
            stored = 0 if stored is None else int(stored)
            row = conn.execute(
                sa.select(sequence_chunks).where(
                    _chunk_key(game_id, family), sequence_chunks.c.chunk_index == chunk_index
                )
            ).first()
            if row is None:
                if start < stored:
                    raise MissingChunk(game_id, family, chunk_index, stored)
                raise NotStored(game_id, family, start, start + CHUNK_VALUES, stored)
            if is_plain(int(row.width), int(row.codec)):
                return False
            values = verified_values(game_id, family, row)
            _check_count(game_id, family, chunk_index, len(values), stored)
            rows = _chunk_rows(game_id, family, values, start, start + len(values), start, plain=True)
            conn.execute(_upsert_chunks(), rows)
        return True

    @staticmethod
    def _fence_job(conn: sa.Connection, job_id: int, worker_id: str, values: dict[str, Any]) -> None:
        fence(conn, job_id, worker_id, values)

    @staticmethod
    def _lock_sequence(conn: sa.Connection, game_id: str, family: str) -> tuple[int, int | None]:
        """Lock the sequence row (created empty if absent); its (computed_upto, max_value)."""
        conn.execute(
            postgresql.insert(sequences)
            .values(game_id=game_id, family=family, computed_upto=0)
            .on_conflict_do_nothing(index_elements=[sequences.c.game_id, sequences.c.family])
        )
        computed_upto, max_value = conn.execute(
            sa.select(sequences.c.computed_upto, sequences.c.max_value)
            .where(_key(game_id, family))
            .with_for_update()
        ).one()
        return int(computed_upto), None if max_value is None else int(max_value)


def _check_count(game_id: str, family: str, index: int, count: int, stored: int) -> None:
    """A chunk must hold every stored value of its range: a shorter one is damaged (CorruptChunk)."""
    expected = min(CHUNK_VALUES, stored - index * CHUNK_VALUES)
    if count < expected:
        raise CorruptChunk(
            game_id, family, index, f"it holds {count} values, though values 0..{stored} are stored"
        )


def _mark_repaired(game_id: str, family: str, first: int, last: int | None = None) -> sa.Update:
    """Close the open corruption reports of chunks first..last (None: to the end), just rewritten."""
    index = corruption_reports.c.chunk_index
    return (
        corruption_reports.update()
        .where(
            corruption_reports.c.game_id == game_id,
            corruption_reports.c.family == family,
            index >= first if last is None else index.between(first, last),
            corruption_reports.c.repaired_at.is_(None),
        )
        .values(repaired_at=sa.func.now())
    )


def _upsert_chunks() -> sa.Insert:
    stmt = postgresql.insert(sequence_chunks)
    return stmt.on_conflict_do_update(
        index_elements=[sequence_chunks.c.game_id, sequence_chunks.c.family, sequence_chunks.c.chunk_index],
        set_={
            "count": stmt.excluded["count"],
            "width": stmt.excluded.width,
            "codec": stmt.excluded.codec,
            "payload": stmt.excluded.payload,
            "checksum": stmt.excluded.checksum,
        },
    )


def _chunk_rows(
    game_id: str,
    family: str,
    values: NDArray[np.uint32],
    lo: int,
    hi: int,
    base: int = 0,
    *,
    plain: bool = False,
) -> Sequence[dict[str, Any]]:
    """Rows for the chunks covering lo..hi-1 (lo chunk-aligned), packed (or as plain words, `plain`);
    values[i - base] is g(i)."""
    rows = []
    for chunk_start in range(lo, hi, CHUNK_VALUES):
        index = chunk_start // CHUNK_VALUES
        part = values[chunk_start - base : min(chunk_start + CHUNK_VALUES, hi) - base]
        width, codec, payload = encode_plain(part) if plain else encode(part)
        rows.append(
            {
                "game_id": game_id,
                "family": family,
                "chunk_index": index,
                "count": len(part),
                "width": width,
                "codec": codec,
                "payload": payload,
                "checksum": checksum(game_id, family, index, len(part), width, payload, codec),
            }
        )
    return rows
