"""Checkpoints of objects made whole: the records a job's kernel hands out as each stage of its solve ends
(engine.kind.ChecksPoints), kept so that a job whose worker was killed resumes from the last one.

Records belong to the object the job stores (game id and family), not to one attempt: whichever worker
takes the job up once the lease runs out reads them back and goes on. They are numbered from 0 in the
order the kernel made them, each only of use after those before it, so a read gives the longest run of
whole, verified records from 0 and nothing after a damaged or missing one. A record is split in parts
of at most PART_BYTES (a five-man solve's records take tens of megabytes), each checksummed over its
identity and bytes; its parts are written in one transaction fenced by the job lease exactly as the
sequences' writes are (storage.jobs.fence), which first drops any record at or after its number (left
by an attempt whose later records could not be read). They are deleted in the transaction that stores
the object whole (`delete_records`, from storage.sequences). The service never reads them.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import sqlalchemy as sa

from storage.database import unavailable_on_disconnect
from storage.jobs import fence
from storage.schema import job_checkpoints

#: Largest part of a record stored in one row.
PART_BYTES = 1 << 23


def checksum(game_id: str, family: str, record: int, part: int, parts: int, payload: bytes) -> int:
    """CRC32 over the part's identity and bytes, so a part copied to the wrong place fails too."""
    header = f"{game_id}\x00{family}\x00{record}\x00{part}\x00{parts}\x00".encode()
    return zlib.crc32(payload, zlib.crc32(header))


def _key(game_id: str, family: str) -> sa.ColumnElement[bool]:
    return sa.and_(job_checkpoints.c.game_id == game_id, job_checkpoints.c.family == family)


def delete_records(game_id: str, family: str, first: int = 0) -> sa.Delete:
    """Delete the object's records from number `first` on (0: all of them)."""
    return job_checkpoints.delete().where(_key(game_id, family), job_checkpoints.c.record >= first)


class CheckpointStore:
    """Appending, reading back and dropping the checkpoint records of objects made whole."""

    def __init__(self, engine: sa.Engine) -> None:
        self._engine = engine

    def append(
        self, *, job_id: int, worker_id: str, game_id: str, family: str, record: int, data: bytes
    ) -> None:
        """Store `data` as record number `record` of (game_id, family), in one transaction fenced by the
        job lease (LeaseLost when `worker_id` no longer holds it: nothing is written), replacing any
        record from that number on."""
        if record < 0:
            raise ValueError(f"a checkpoint record's number must be >= 0, got {record}")
        view = memoryview(data)
        parts = max(1, -(-len(view) // PART_BYTES))
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            fence(conn, job_id, worker_id, {"heartbeat_at": sa.func.now()})
            conn.execute(delete_records(game_id, family, record))
            for part in range(parts):  # a statement a part: the record is never copied whole
                payload = bytes(view[part * PART_BYTES : (part + 1) * PART_BYTES])
                conn.execute(
                    job_checkpoints.insert().values(
                        game_id=game_id,
                        family=family,
                        record=record,
                        part=part,
                        parts=parts,
                        job_id=job_id,
                        payload=payload,
                        checksum=checksum(game_id, family, record, part, parts, payload),
                    )
                )

    def read(self, game_id: str, family: str) -> list[bytes]:
        """The records of (game_id, family) in order (`records`)."""
        return list(self.records(game_id, family))

    def records(self, game_id: str, family: str) -> Iterator[bytes]:
        """The records of (game_id, family) in order, each as soon as it is read, from 0 up to the first
        that is missing, incomplete or fails its checksum (none of which is given, nor any after it)."""
        stmt = (
            sa.select(
                job_checkpoints.c.record,
                job_checkpoints.c.part,
                job_checkpoints.c.parts,
                job_checkpoints.c.payload,
                job_checkpoints.c.checksum,
            )
            .where(_key(game_id, family))
            .order_by(job_checkpoints.c.record, job_checkpoints.c.part)
        )
        count = 0
        pieces: list[bytes] = []
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            # streamed a few rows at a time: one record is the most held at once
            for row in conn.execution_options(stream_results=True, max_row_buffer=4).execute(stmt):
                payload = bytes(row.payload)
                expected = (count, len(pieces))
                if (row.record, row.part) != expected or row.checksum != checksum(
                    game_id, family, row.record, row.part, row.parts, payload
                ):
                    break
                pieces.append(payload)
                if len(pieces) == row.parts:
                    yield b"".join(pieces)
                    count += 1
                    pieces = []

    def count(self, game_id: str, family: str) -> int:
        """How many records of (game_id, family) are stored, whole or not."""
        stmt = sa.select(sa.func.count(sa.distinct(job_checkpoints.c.record))).where(_key(game_id, family))
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            return int(conn.execute(stmt).scalar_one())

    def drop(self, *, job_id: int, worker_id: str, game_id: str, family: str, first: int = 0) -> None:
        """Delete the records of (game_id, family) from number `first` on, fenced by the job lease (a job
        that finds its object already stored whole, or whose records its kernel cannot use)."""
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            fence(conn, job_id, worker_id, {"heartbeat_at": sa.func.now()})
            conn.execute(delete_records(game_id, family, first))
