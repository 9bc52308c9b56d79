"""Shared helpers for storage and worker tests."""

from __future__ import annotations

from typing import Any

import numpy as np
import sqlalchemy as sa
from numpy.typing import NDArray

from storage.jobs import Job, JobQueue
from storage.sequences import SequenceStore


def oracle_values(moves: tuple[int, ...], stop: int) -> NDArray[np.uint32]:
    """g(0..stop-1) of the subtraction game on `moves`, by the mex rule in plain Python."""
    values: list[int] = []
    for n in range(stop):
        options = {values[n - m] for m in moves if m <= n}
        g = 0
        while g in options:
            g += 1
        values.append(g)
    return np.array(values, dtype=np.uint32)


def running_job(engine: sa.Engine, game_id: str, upto: int, worker_id: str = "w1", fill: bool = True) -> Job:
    """A job of `game_id` claimed by `worker_id` (the only queued job is expected)."""
    queue = JobQueue(engine)
    job = queue.submit(game_id, "heap", upto, fill=fill)
    claimed = queue.claim(worker_id, 60)
    assert claimed is not None and claimed.id == job.id
    return claimed


def store_whole(engine: sa.Engine, game_id: str, words: NDArray[np.uint32], *, plain: bool) -> SequenceStore:
    """`words` stored as `game_id`'s object in one fenced write by a job claimed for it, as a worker stores
    an object made whole (`plain`: as plain words, which a range read reads in part)."""
    job = running_job(engine, game_id, len(words))
    return write_whole(engine, job.id, "w1", game_id, job.family, words, plain=plain)


def write_whole(
    engine: sa.Engine,
    job_id: int,
    worker_id: str,
    game_id: str,
    family: str,
    words: NDArray[np.uint32],
    *,
    plain: bool,
    stats: dict[str, Any] | None = None,
) -> SequenceStore:
    """`words` written whole, from value 0, by the running job `job_id` of `worker_id`, which it finishes."""
    store = SequenceStore(engine)
    store.write_extension(
        job_id=job_id,
        worker_id=worker_id,
        game_id=game_id,
        family=family,
        start=0,
        values=words,
        period=None,
        done=len(words),
        total=len(words),
        finish=True,
        stats=stats,
        plain=plain,
    )
    return store


def chunk_rows(engine: sa.Engine) -> list[tuple[Any, ...]]:
    """Every stored chunk, byte for byte, in key order."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT game_id, family, chunk_index, count, width, payload, checksum "
                "FROM sequence_chunks ORDER BY game_id, family, chunk_index"
            )
        ).all()
    return [tuple(bytes(v) if isinstance(v, memoryview) else v for v in row) for row in rows]


def flip_byte(engine: sa.Engine, game_id: str, chunk_index: int, offset: int = 0) -> None:
    """Corrupt one payload byte of a stored chunk, as a disk error would."""
    with engine.begin() as conn:
        updated = conn.execute(
            sa.text(
                "UPDATE sequence_chunks SET payload = set_byte(payload, :o % length(payload), "
                "get_byte(payload, :o % length(payload)) # 1) "
                "WHERE game_id = :g AND family = 'heap' AND chunk_index = :i"
            ),
            {"o": offset, "g": game_id, "i": chunk_index},
        ).rowcount
    assert updated == 1


def delete_chunk(engine: sa.Engine, game_id: str, chunk_index: int) -> None:
    """Lose one stored chunk's row, as a botched restore or a stray DELETE would."""
    with engine.begin() as conn:
        deleted = conn.execute(
            sa.text(
                "DELETE FROM sequence_chunks WHERE game_id = :g AND family = 'heap' AND chunk_index = :i"
            ),
            {"g": game_id, "i": chunk_index},
        ).rowcount
    assert deleted == 1


def cut_payload(engine: sa.Engine, game_id: str, chunk_index: int, keep: int) -> None:
    """Cut one stored chunk's payload to its first `keep` bytes, as a torn write would."""
    with engine.begin() as conn:
        cut = conn.execute(
            sa.text(
                "UPDATE sequence_chunks SET payload = substring(payload from 1 for :k) "
                "WHERE game_id = :g AND chunk_index = :i"
            ),
            {"g": game_id, "i": chunk_index, "k": keep},
        ).rowcount
    assert cut == 1


def corruption_reports(engine: sa.Engine, game_id: str) -> list[tuple[int, bool]]:
    """(chunk_index, repaired) of every corruption report of `game_id`, oldest first."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT chunk_index, repaired_at IS NOT NULL FROM corruption_reports WHERE game_id = :g "
                "ORDER BY id"
            ),
            {"g": game_id},
        ).all()
    return [(int(r[0]), bool(r[1])) for r in rows]


def repair_jobs(engine: sa.Engine, game_id: str) -> list[tuple[int, int, str]]:
    """(id, chunk_index, status) of every repair job of `game_id`, oldest first."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT id, chunk_index, status FROM jobs WHERE kind = 'repair' AND game_id = :g ORDER BY id"
            ),
            {"g": game_id},
        ).all()
    return [(int(r[0]), int(r[1]), str(r[2])) for r in rows]
