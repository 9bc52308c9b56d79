"""The job queue on a real PostgreSQL: claiming, leases, fencing, cancellation."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from engine.errors import InvalidArgument
from storage.jobs import MAX_ATTEMPTS, JobQueue

GAME = "subtraction:1,3,4"


def test_submit_get_list(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    first = queue.submit(GAME, "heap", 1000)
    second = queue.submit("subtraction:2,5", "heap", 50, fill=True)
    assert (first.status, first.done, first.total, first.attempts, first.kind) == (
        "queued",
        0,
        1000,
        0,
        "extend",
    )
    assert second.fill and second.id > first.id
    assert queue.get(first.id) == first
    assert queue.get(999_999) is None
    assert [j.id for j in queue.list()] == [second.id, first.id]
    assert [j.id for j in queue.list(limit=1)] == [second.id]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"upto": -1}, "upto must be >= 0, got -1"),
        ({"upto": 5, "kind": "shrink"}, "job kind must be 'extend' or 'repair', got 'shrink'"),
        ({"upto": 5, "kind": "repair"}, "a chunk index is required exactly for repair jobs"),
    ],
)
def test_submit_rejects_bad_arguments(clean_db: sa.Engine, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        JobQueue(clean_db).submit(GAME, "heap", **kwargs)  # type: ignore[arg-type]
    assert JobQueue(clean_db).list() == []


def test_claim_takes_the_oldest_and_sets_the_lease(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    a = queue.submit("subtraction:1", "heap", 10)
    b = queue.submit("subtraction:2", "heap", 10)
    claimed = queue.claim("w1", 30)
    assert claimed is not None and claimed.id == a.id
    assert (claimed.status, claimed.lease_owner, claimed.attempts) == ("running", "w1", 1)
    assert claimed.lease_expires_at is not None and claimed.started_at is not None
    assert claimed.lease_expires_at > claimed.started_at
    again = queue.claim("w2", 30)
    assert again is not None and again.id == b.id
    assert queue.claim("w3", 30) is None


def test_an_expired_lease_is_taken_over_and_fences_the_old_owner(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    job = queue.submit(GAME, "heap", 10)
    assert queue.claim("dead", 0) is not None  # a lease that is already over
    taken = queue.claim("alive", 30)
    assert taken is not None and (taken.id, taken.lease_owner, taken.attempts) == (job.id, "alive", 2)
    assert not queue.heartbeat(job.id, "dead", 30)
    assert not queue.finish(job.id, "dead")
    assert not queue.fail(job.id, "dead", "boom")
    assert queue.heartbeat(job.id, "alive", 30)
    assert queue.finish(job.id, "alive")
    done = queue.get(job.id)
    assert done is not None and (done.status, done.done) == ("done", 10)
    assert queue.claim("other", 30) is None


def test_a_job_that_keeps_losing_its_workers_fails(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    job = queue.submit(GAME, "heap", 10)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        claimed = queue.claim(f"doomed-{attempt}", 0)  # each worker dies at once: its lease is over
        assert claimed is not None and claimed.attempts == attempt
    assert queue.claim("next", 30) is None
    failed = queue.get(job.id)
    assert failed is not None and failed.status == "failed"
    assert failed.error is not None and f"{MAX_ATTEMPTS} attempts" in failed.error


def test_a_live_job_blocks_other_jobs_of_its_sequence(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    first = queue.submit(GAME, "heap", 10)
    queue.submit(GAME, "heap", 20)
    other = queue.submit("subtraction:1,2", "heap", 10)
    assert queue.claim("w1", 30) is not None
    claimed = queue.claim("w2", 30)
    assert claimed is not None and claimed.id == other.id
    assert queue.claim("w3", 30) is None
    assert queue.finish(first.id, "w1")
    later = queue.claim("w3", 30)
    assert later is not None and later.upto == 20


def test_cancel_fail_and_release(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    job = queue.submit(GAME, "heap", 10)
    assert queue.claim("w1", 30) is not None
    cancelled = queue.cancel(job.id)
    assert cancelled is not None and cancelled.status == "cancelled" and cancelled.finished_at is not None
    assert not queue.heartbeat(job.id, "w1", 30)
    assert queue.cancel(job.id) == cancelled  # finished jobs are returned unchanged
    assert queue.cancel(424242) is None
    assert queue.claim("w1", 30) is None

    failing = queue.submit(GAME, "heap", 10)
    assert queue.claim("w1", 30) is not None
    assert queue.fail(failing.id, "w1", "ValueError: x" * 1000)
    failed = queue.get(failing.id)
    assert failed is not None and failed.status == "failed" and failed.error is not None
    assert failed.error.startswith("ValueError: x") and len(failed.error) == 4000

    released = queue.submit(GAME, "heap", 10)
    assert queue.claim("w1", 30) is not None
    assert queue.release(released.id, "w1")
    back = queue.get(released.id)
    assert back is not None and (back.status, back.lease_owner) == ("queued", None)
    again = queue.claim("w2", 30)
    assert again is not None and (again.id, again.attempts) == (released.id, 2)


def test_concurrent_claimers_never_share_a_job(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    ids = {queue.submit(f"subtraction:{k}", "heap", 10).id for k in range(1, 61)}
    claims: dict[str, list[int]] = {f"w{i}": [] for i in range(4)}
    barrier = threading.Barrier(len(claims))

    def claimer(worker_id: str) -> None:
        barrier.wait()
        while (job := queue.claim(worker_id, 60)) is not None:
            claims[worker_id].append(job.id)

    threads = [threading.Thread(target=claimer, args=(w,)) for w in claims]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    taken = [job_id for got in claims.values() for job_id in got]
    assert sorted(taken) == sorted(ids)  # every job once, none twice
    for worker_id, got in claims.items():
        for job_id in got:
            job = queue.get(job_id)
            assert job is not None and (job.lease_owner, job.attempts) == (worker_id, 1)
