"""Stored single-heap sequences: verified reads and the fenced write path of the workers.

A sequence (game_id, family) is stored as chunks of CHUNK_VALUES packed values plus a row in
`sequences` holding how many values are stored contiguously from 0 (`computed_upto`), the largest
value and the certified period. Reads verify every chunk's checksum and never return bad data; writes
happen in one transaction together with the job's progress, fenced by the job lease and by the stored
length the writer started from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import sqlalchemy as sa
from numpy.typing import NDArray
from sqlalchemy.dialects import postgresql

from engine.errors import InvalidArgument
from engine.periods import Period
from storage.database import unavailable_on_disconnect
from storage.errors import CorruptChunk, InvalidPayload, LeaseLost, NotStored, StaleWrite
from storage.jobs import OPEN_STATUSES, Job, open_repair_insert
from storage.packing import CHUNK_VALUES, checksum, decode, encode
from storage.schema import corruption_reports, jobs, sequence_chunks, sequences


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
    )


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


class SequenceStore:
    """Reads and writes of stored sequences."""

    def __init__(self, engine: sa.Engine) -> None:
        self._engine = engine

    # ---- reads -------------------------------------------------------------------------------

    def info(self, game_id: str, family: str) -> SequenceInfo | None:
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            row = conn.execute(sa.select(sequences).where(_key(game_id, family))).first()
        return None if row is None else _info_from_row(row)

    def list_sequences(self, game_id: str) -> list[SequenceInfo]:
        """The headers of `game_id`'s stored sequences, by family."""
        stmt = sa.select(sequences).where(sequences.c.game_id == game_id).order_by(sequences.c.family)
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            return [_info_from_row(row) for row in conn.execute(stmt)]

    def list_sequences_all(self, limit: int = 1000) -> list[SequenceInfo]:
        """Every stored sequence's header (length, largest value, certified period), of every game, most
        recently updated first, at most `limit` of them."""
        if limit < 1:
            raise InvalidArgument(f"limit must be >= 1, got {limit}")
        stmt = (
            sa.select(sequences)
            .order_by(sequences.c.updated_at.desc(), sequences.c.game_id, sequences.c.family)
            .limit(limit)
        )
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            return [_info_from_row(row) for row in conn.execute(stmt)]

    def read_chunk(self, game_id: str, family: str, index: int) -> NDArray[np.uint32]:
        """The verified values of chunk `index` (NotStored when absent, CorruptChunk when damaged)."""
        stmt = sa.select(sequence_chunks).where(
            _chunk_key(game_id, family), sequence_chunks.c.chunk_index == index
        )
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            row = conn.execute(stmt).first()
        if row is None:
            start = index * CHUNK_VALUES
            raise NotStored(game_id, family, start, start + CHUNK_VALUES, self._stored(game_id, family))
        return verified_values(game_id, family, row)

    def read_range(self, game_id: str, family: str, start: int, stop: int) -> NDArray[np.uint32]:
        """The verified values for start <= n < stop."""
        if not 0 <= start <= stop:
            raise ValueError(f"invalid range {start}..{stop}")
        if start == stop:
            return np.zeros(0, dtype=np.uint32)
        first, last = start // CHUNK_VALUES, (stop - 1) // CHUNK_VALUES
        stmt = (
            sa.select(sequence_chunks)
            .where(_chunk_key(game_id, family), sequence_chunks.c.chunk_index.between(first, last))
            .order_by(sequence_chunks.c.chunk_index)
        )
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            rows = conn.execute(stmt).all()
        parts: list[NDArray[np.uint32]] = []
        covered = first * CHUNK_VALUES
        for row in rows:
            if int(row.chunk_index) * CHUNK_VALUES != covered:
                break
            values = verified_values(game_id, family, row)
            parts.append(values)
            covered += len(values)
            if len(values) != CHUNK_VALUES:
                break
        if covered < stop:
            raise NotStored(game_id, family, start, stop, self._stored(game_id, family))
        joined = np.concatenate(parts)
        offset = first * CHUNK_VALUES
        return joined[start - offset : stop - offset]

    def read_prefix(self, game_id: str, family: str, stop: int) -> NDArray[np.uint32]:
        """The verified values for 0 <= n < stop."""
        return self.read_range(game_id, family, 0, stop)

    def table_bytes(self) -> int:
        """Bytes the chunk table takes in PostgreSQL, TOAST and indexes included."""
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            size = conn.execute(sa.text("SELECT pg_total_relation_size('sequence_chunks')")).scalar_one()
        return int(size)

    def _stored(self, game_id: str, family: str) -> int:
        info = self.info(game_id, family)
        return 0 if info is None else info.computed_upto

    # ---- corruption --------------------------------------------------------------------------

    def report_corruption(
        self, game_id: str, family: str, chunk_index: int, detail: str | None = None
    ) -> Job:
        """Record a damaged chunk and queue its repair; the open repair job (one per chunk)."""
        upto = (chunk_index + 1) * CHUNK_VALUES
        find = sa.select(jobs).where(
            jobs.c.game_id == game_id,
            jobs.c.family == family,
            jobs.c.kind == "repair",
            jobs.c.chunk_index == chunk_index,
            jobs.c.status.in_(OPEN_STATUSES),
        )
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            conn.execute(
                corruption_reports.insert().values(
                    game_id=game_id, family=family, chunk_index=chunk_index, detail=detail
                )
            )
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
    ) -> None:
        """Store values[start:] (values holds the whole prefix 0..len-1) as one checkpoint.

        In one transaction: the job's lease is checked and its progress set (LeaseLost when it is
        not held), the sequence row is locked and must still hold exactly `start` values
        (StaleWrite otherwise), every chunk from the one holding `start` is upserted (a partial last
        chunk is rewritten), and computed_upto, max_value and a certified `period` are recorded.
        With `finish`, the job is marked done in the same transaction.
        """
        stop = len(values)
        if not 0 <= start <= stop:
            raise ValueError(f"start {start} outside the {stop} values given")
        progress: dict[str, Any] = {"done": done, "total": total, "heartbeat_at": sa.func.now()}
        if finish:
            progress.update(status="done", done=total, finished_at=sa.func.now(), lease_expires_at=None)
        first = start // CHUNK_VALUES
        chunk_rows = _chunk_rows(game_id, family, values, first * CHUNK_VALUES, stop)
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            self._fence_job(conn, job_id, worker_id, progress)
            computed_upto, max_value = self._lock_sequence(conn, game_id, family)
            if computed_upto != start:
                raise StaleWrite(game_id, family, start, computed_upto)
            if chunk_rows:
                conn.execute(_upsert_chunks(), chunk_rows)
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
            conn.execute(sequences.update().where(_key(game_id, family)).values(**update))

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
        """Replace stored chunk `chunk_index` by `values` (recomputed), fenced by the job lease."""
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            self._fence_job(conn, job_id, worker_id, {"heartbeat_at": sa.func.now()})
            computed_upto, _ = self._lock_sequence(conn, game_id, family)
            start = chunk_index * CHUNK_VALUES
            count = min(CHUNK_VALUES, computed_upto - start)
            if count <= 0:
                raise NotStored(game_id, family, start, start + CHUNK_VALUES, computed_upto)
            if len(values) != count:
                raise ValueError(f"chunk {chunk_index} holds {count} values, got {len(values)}")
            conn.execute(_upsert_chunks(), _chunk_rows(game_id, family, values, start, start + count, start))

    @staticmethod
    def _fence_job(conn: sa.Connection, job_id: int, worker_id: str, values: dict[str, Any]) -> None:
        stmt = (
            jobs.update()
            .where(jobs.c.id == job_id, jobs.c.lease_owner == worker_id, jobs.c.status == "running")
            .values(**values)
        )
        if conn.execute(stmt).rowcount != 1:
            raise LeaseLost(job_id, worker_id)

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
    game_id: str, family: str, values: NDArray[np.uint32], lo: int, hi: int, base: int = 0
) -> Sequence[dict[str, Any]]:
    """Packed rows for the chunks covering lo..hi-1 (lo chunk-aligned); values[i - base] is g(i)."""
    rows = []
    for chunk_start in range(lo, hi, CHUNK_VALUES):
        index = chunk_start // CHUNK_VALUES
        part = values[chunk_start - base : min(chunk_start + CHUNK_VALUES, hi) - base]
        width, codec, payload = encode(part)
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
