"""Checkpoint records of objects made whole, on a real PostgreSQL: appended in order under the job lease,
read back verified (never a cut or damaged record, nor any after it), deleted once the object is stored."""

from __future__ import annotations

import os

import numpy as np
import pytest
import sqlalchemy as sa

from storage import checkpoints
from storage.checkpoints import CheckpointStore
from storage.errors import LeaseLost
from storage.jobs import JobQueue
from storage.sequences import SequenceStore
from tests.storage.helpers import running_job

GAME = "subtraction:1,3,4"
FAMILY = "heap"


def records(count: int, size: int = 1000) -> list[bytes]:
    return [os.urandom(size + i) for i in range(count)]


def append_all(store: CheckpointStore, job_id: int, data: list[bytes], worker_id: str = "w1") -> None:
    for number, record in enumerate(data):
        store.append(
            job_id=job_id, worker_id=worker_id, game_id=GAME, family=FAMILY, record=number, data=record
        )


def test_records_read_back_in_order_whole_across_parts(
    clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "PART_BYTES", 256)  # a record of several parts
    store = CheckpointStore(clean_db)
    job = running_job(clean_db, GAME, 10)
    data = [*records(3), b"", os.urandom(256 * 3)]
    append_all(store, job.id, data)
    assert store.read(GAME, FAMILY) == data
    assert store.count(GAME, FAMILY) == len(data)
    assert store.read(GAME, "other") == [] and store.read("nim", FAMILY) == []
    # A record written again at a number drops those after it (an attempt going on from there).
    store.append(job_id=job.id, worker_id="w1", game_id=GAME, family=FAMILY, record=2, data=b"again")
    assert store.read(GAME, FAMILY) == [*data[:2], b"again"]


def test_a_record_of_tens_of_megabytes_reads_back_whole(clean_db: sa.Engine) -> None:
    store = CheckpointStore(clean_db)
    job = running_job(clean_db, GAME, 10)
    data = [os.urandom(20 << 20), b"small"]
    append_all(store, job.id, data)
    assert store.read(GAME, FAMILY) == data


def test_only_the_lease_holder_writes_or_drops(clean_db: sa.Engine) -> None:
    store = CheckpointStore(clean_db)
    queue = JobQueue(clean_db)
    job = running_job(clean_db, GAME, 10)
    append_all(store, job.id, records(1))
    with pytest.raises(LeaseLost, match=f"job {job.id}: worker 'intruder' no longer holds its lease"):
        append_all(store, job.id, records(2), worker_id="intruder")
    with pytest.raises(LeaseLost):
        store.drop(job_id=job.id, worker_id="intruder", game_id=GAME, family=FAMILY)
    # The lease runs out and another worker takes the job up: the first cannot write any more.
    with clean_db.begin() as conn:
        conn.execute(sa.text("UPDATE jobs SET lease_expires_at = now() - interval '1 second'"))
    taken = queue.claim("w2", 60)
    assert taken is not None and taken.id == job.id
    kept = store.read(GAME, FAMILY)
    with pytest.raises(LeaseLost):
        store.append(job_id=job.id, worker_id="w1", game_id=GAME, family=FAMILY, record=1, data=b"late")
    with pytest.raises(LeaseLost):
        store.append(job_id=job.id, worker_id="w1", game_id=GAME, family=FAMILY, record=0, data=b"late")
    assert store.read(GAME, FAMILY) == kept
    store.append(job_id=job.id, worker_id="w2", game_id=GAME, family=FAMILY, record=1, data=b"next")
    assert store.read(GAME, FAMILY) == [*kept, b"next"]
    queue.cancel(job.id)
    with pytest.raises(LeaseLost):
        store.append(job_id=job.id, worker_id="w2", game_id=GAME, family=FAMILY, record=2, data=b"x")
    assert store.read(GAME, FAMILY) == [*kept, b"next"]


def test_a_damaged_or_cut_record_is_never_served(
    clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "PART_BYTES", 512)
    store = CheckpointStore(clean_db)
    job = running_job(clean_db, GAME, 10)
    data = records(4, size=1200)  # three parts each
    append_all(store, job.id, data)
    with clean_db.begin() as conn:  # a disk error in record 2's second part
        conn.execute(
            sa.text(
                "UPDATE job_checkpoints SET payload = set_byte(payload, 7, get_byte(payload, 7) # 1) "
                "WHERE record = 2 AND part = 1"
            )
        )
    assert store.read(GAME, FAMILY) == data[:2]
    with clean_db.begin() as conn:  # a part of record 1 lost
        conn.execute(sa.text("DELETE FROM job_checkpoints WHERE record = 1 AND part = 2"))
    assert store.read(GAME, FAMILY) == data[:1]
    with clean_db.begin() as conn:  # record 0's last part copied over its first
        conn.execute(
            sa.text(
                "UPDATE job_checkpoints AS a SET payload = b.payload, checksum = b.checksum "
                "FROM job_checkpoints AS b WHERE a.record = 0 AND a.part = 0 AND b.record = 0 AND b.part = 2"
            )
        )
    assert store.read(GAME, FAMILY) == []
    # The attempt that resumes from none starts again at 0, dropping whatever was left.
    store.append(job_id=job.id, worker_id="w1", game_id=GAME, family=FAMILY, record=0, data=b"fresh")
    assert store.read(GAME, FAMILY) == [b"fresh"] and store.count(GAME, FAMILY) == 1


def test_records_are_deleted_with_the_write_that_stores_the_object_whole(clean_db: sa.Engine) -> None:
    store = CheckpointStore(clean_db)
    sequences = SequenceStore(clean_db)
    job = running_job(clean_db, GAME, 10)
    other = "subtraction:2,5,7"
    append_all(store, job.id, records(2))
    store.append(job_id=job.id, worker_id="w1", game_id=other, family=FAMILY, record=0, data=b"other's")
    values = np.arange(10, dtype=np.uint32) % 3

    def write(start: int, stop: int, finish: bool, worker_id: str = "w1") -> None:
        sequences.write_extension(
            job_id=job.id, worker_id=worker_id, game_id=GAME, family=FAMILY, start=start,
            values=values[:stop], period=None, done=stop, total=10, finish=finish,
        )  # fmt: skip

    write(0, 5, finish=False)
    assert store.count(GAME, FAMILY) == 2  # a part stored: the records still count
    with pytest.raises(LeaseLost):
        write(5, 10, finish=True, worker_id="intruder")
    assert store.count(GAME, FAMILY) == 2
    write(5, 10, finish=True)
    assert store.count(GAME, FAMILY) == 0 and store.read(GAME, FAMILY) == []
    assert store.read(other, FAMILY) == [b"other's"]  # another object's are its own


def test_drop_deletes_from_a_number_on(clean_db: sa.Engine) -> None:
    store = CheckpointStore(clean_db)
    job = running_job(clean_db, GAME, 10)
    data = records(3)
    append_all(store, job.id, data)
    store.drop(job_id=job.id, worker_id="w1", game_id=GAME, family=FAMILY, first=1)
    assert store.read(GAME, FAMILY) == data[:1]
    store.drop(job_id=job.id, worker_id="w1", game_id=GAME, family=FAMILY)
    assert store.count(GAME, FAMILY) == 0
