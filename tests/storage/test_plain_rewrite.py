"""A stored chunk written again as plain words (SequenceStore.rewrite_plain) on a real PostgreSQL: the same
values, readable by ranges; fenced by the job's lease; a damaged chunk refused with nothing written; and
what a submission counts (job_needs.packed_chunk_count, plain_job): an object a job stores again as plain
words stays stored whole meanwhile, and after that job is cancelled."""

from __future__ import annotations

import numpy as np
import pytest
import sqlalchemy as sa
from numpy.typing import NDArray

from engine.precompute import PROCESS_BYTES, JobPlan, StoredName
from storage.errors import CorruptChunk, LeaseLost
from storage.job_needs import PLAIN_STEP_BYTES, packed_chunk_count, plain_job
from storage.jobs import Job, JobQueue
from storage.packing import CHUNK_VALUES
from storage.schema import jobs
from tests.storage.helpers import chunk_rows, flip_byte, store_whole

GAME, FAMILY = "graph:plain", "heap"
SIZE = 2 * CHUNK_VALUES + 777
PLAN = JobPlan(GAME, FAMILY, 0, False, whole=True)


def small_words() -> NDArray[np.uint32]:
    """Words with few distinct values: the packed form packs and deflates them."""
    return (np.arange(SIZE, dtype=np.uint32) * 7 // 3) % 200


def claimed(engine: sa.Engine, worker_id: str = "w2") -> Job:
    """A new job of the stored object, claimed (as the job a submission queues for it)."""
    with engine.begin() as conn:
        conn.execute(jobs.insert().values(game_id=GAME, family=FAMILY, upto=SIZE, total=3))
    job = JobQueue(engine).claim(worker_id, 60)
    assert job is not None
    return job


def packed(engine: sa.Engine) -> int:
    with engine.connect() as conn:
        return packed_chunk_count(conn, StoredName(GAME, FAMILY))


def test_a_chunk_is_written_again_as_plain_words_with_its_values(clean_db: sa.Engine) -> None:
    words = small_words()
    store = store_whole(clean_db, GAME, words, plain=False)
    assert store.packed_chunks(GAME, FAMILY) == [0, 1, 2] and packed(clean_db) == 3
    job = claimed(clean_db)
    assert store.rewrite_plain(
        job_id=job.id, worker_id="w2", game_id=GAME, family=FAMILY, chunk_index=1, done=1, total=3
    )
    assert store.packed_chunks(GAME, FAMILY) == [0, 2] and packed(clean_db) == 2
    assert np.array_equal(store.read_range(GAME, FAMILY, 0, SIZE), words)
    start, stop = CHUNK_VALUES + 5, CHUNK_VALUES + 9  # a range of the plain chunk, read alone
    parts = store.read_parts(GAME, FAMILY, start, stop)
    assert [(part.data, part.chunk) for part in parts] == [(words[start:stop].astype("<u4").tobytes(), None)]
    progress = JobQueue(clean_db).get(job.id)
    assert progress is not None and (progress.done, progress.total) == (1, 3)
    before = chunk_rows(clean_db)  # plain already: nothing written
    assert not store.rewrite_plain(job_id=job.id, worker_id="w2", game_id=GAME, family=FAMILY, chunk_index=1)
    assert chunk_rows(clean_db) == before


def test_the_rewrite_is_fenced_and_refuses_a_damaged_chunk(clean_db: sa.Engine) -> None:
    store = store_whole(clean_db, GAME, small_words(), plain=False)
    job = claimed(clean_db)
    before = chunk_rows(clean_db)
    with pytest.raises(LeaseLost):
        store.rewrite_plain(
            job_id=job.id, worker_id="someone else", game_id=GAME, family=FAMILY, chunk_index=0
        )
    JobQueue(clean_db).cancel(job.id)
    with pytest.raises(LeaseLost):
        store.rewrite_plain(job_id=job.id, worker_id="w2", game_id=GAME, family=FAMILY, chunk_index=0)
    assert chunk_rows(clean_db) == before
    flip_byte(clean_db, GAME, 2)
    damaged = chunk_rows(clean_db)
    job = claimed(clean_db, "w3")
    with pytest.raises(CorruptChunk):
        store.rewrite_plain(job_id=job.id, worker_id="w3", game_id=GAME, family=FAMILY, chunk_index=2)
    assert chunk_rows(clean_db) == damaged


def test_an_object_stays_stored_while_and_after_a_job_stores_it_again(clean_db: sa.Engine) -> None:
    store_whole(clean_db, GAME, small_words(), plain=False)
    queue = JobQueue(clean_db)
    assert queue.stored_whole(PLAN.name) == SIZE
    with clean_db.connect() as conn:
        plain = plain_job(conn, PLAN)
    assert plain is not None and (plain.values, plain.work, plain.needs) == (SIZE, 3, ())
    assert plain.memory == PROCESS_BYTES + PLAIN_STEP_BYTES and PLAIN_STEP_BYTES <= 16 * CHUNK_VALUES
    job = claimed(clean_db)
    assert queue.stored_whole(PLAN.name) == SIZE  # queued after its last write: it wrote none of it
    queue.cancel(job.id)
    assert queue.stored_whole(PLAN.name) == SIZE
    with clean_db.connect() as conn:  # a sequence that is not made whole has no such job
        assert plain_job(conn, JobPlan(GAME, FAMILY, SIZE, False)) is None
