"""Jobs that wait for other jobs, on a real PostgreSQL: what a submission queues first, the order
workers claim in, and what a failed dependency does to those waiting for it."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from engine.precompute import JobPlan, StoredName
from storage.job_needs import CircularNeeds
from storage.jobs import JobQueue
from storage.schema import sequences

#: A chain of objects as a kind would plan them: "top" reads "mid-a" and "mid-b", each reads "base".
NEEDS = {
    "top": ("mid-a", "mid-b"),
    "mid-a": ("base",),
    "mid-b": ("base",),
    "base": (),
}


def planner(name: StoredName) -> JobPlan:
    return JobPlan(
        name.game_id, name.family, 10, False, tuple(StoredName("g", n) for n in NEEDS[name.family])
    )


def plan(family: str) -> JobPlan:
    return planner(StoredName("g", family))


def drain(queue: JobQueue) -> list[str]:
    """Claim and finish jobs one at a time until none is claimable: the families in claim order."""
    order = []
    while (job := queue.claim("w", 30)) is not None:
        order.append(job.family)
        assert queue.finish(job.id, "w")
    return order


def test_a_submission_queues_what_it_needs_first_and_each_once(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    top = queue.submit_plan(plan("top"), planner)
    jobs = {job.family: job for job in queue.list()}
    assert set(jobs) == {"top", "mid-a", "mid-b", "base"}
    assert top == jobs["top"]
    assert set(top.waits_for) == {jobs["mid-a"].id, jobs["mid-b"].id}
    assert jobs["mid-a"].waits_for == jobs["mid-b"].waits_for == (jobs["base"].id,)
    assert jobs["base"].waits_for == ()
    order = drain(queue)
    assert order[0] == "base" and order[-1] == "top" and sorted(order[1:3]) == ["mid-a", "mid-b"]


def test_no_job_is_claimed_before_those_it_waits_for_are_done(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    queue.submit_plan(plan("mid-a"), planner)
    base = queue.claim("w1", 30)
    assert base is not None and base.family == "base"
    assert queue.claim("w2", 30) is None  # mid-a waits while base runs
    assert queue.finish(base.id, "w1")
    mid = queue.claim("w2", 30)
    assert mid is not None and mid.family == "mid-a"


def test_stored_objects_and_open_jobs_are_not_queued_again(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    with clean_db.begin() as conn:
        conn.execute(sa.insert(sequences).values(game_id="g", family="base", computed_upto=7))
    mid_a = queue.submit_plan(plan("mid-a"), planner)
    assert mid_a.waits_for == ()  # base is stored: read as it is
    top = queue.submit_plan(plan("top"), planner)
    mid_b = next(job for job in queue.list() if job.family == "mid-b")
    assert set(top.waits_for) == {mid_a.id, mid_b.id}  # mid-a's open job is waited for, not queued again
    assert sorted(job.family for job in queue.list()) == ["mid-a", "mid-b", "top"]


def test_a_failed_dependency_fails_every_job_waiting_for_it(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    top = queue.submit_plan(plan("top"), planner)
    base = queue.claim("w", 30)
    assert base is not None and base.family == "base"
    assert queue.fail(base.id, "w", "out of memory")
    assert queue.claim("w", 30) is None
    failed = {job.family: job for job in queue.list()}
    assert {job.status for job in failed.values()} == {"failed"}
    assert failed["mid-a"].error == f"job {base.id} it waits for (g/base) failed"
    top_error = queue.get(top.id)
    assert top_error is not None and top_error.error is not None and "it waits for (g/mid-" in top_error.error


def test_a_cancelled_dependency_fails_its_waiters(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    mid = queue.submit_plan(plan("mid-a"), planner)
    (base_id,) = mid.waits_for
    queue.cancel(base_id)
    assert queue.claim("w", 30) is None
    after = queue.get(mid.id)
    assert after is not None and after.status == "failed"
    assert after.error == f"job {base_id} it waits for (g/base) cancelled"


def test_plans_that_need_each_other_queue_nothing(clean_db: sa.Engine) -> None:
    def circular(name: StoredName) -> JobPlan:
        other = "b" if name.family == "a" else "a"
        return JobPlan("g", name.family, 1, False, (StoredName("g", other),))

    with pytest.raises(CircularNeeds, match="need each other: g/a -> g/b -> g/a"):
        JobQueue(clean_db).submit_plan(circular(StoredName("g", "a")), circular)
    assert JobQueue(clean_db).list() == []


def test_automatic_caps_count_requests_not_what_they_wait_for(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    first = queue.submit_automatic(
        "g",
        "top",
        10,
        cap=1,
        max_seconds=60,
        client="c",
        client_cap=1,
        needs=plan("top").needs,
        planner=planner,
    )
    assert first.created and first.job is not None
    jobs = queue.list()
    assert (
        len(jobs) == 4 and {job.origin for job in jobs} == {"auto"} and {job.client for job in jobs} == {"c"}
    )
    again = queue.submit_automatic("g", "top", 10, cap=1, max_seconds=60, client="c", client_cap=1)
    assert not again.created and again.job is not None and again.job.id == first.job.id
    other = queue.submit_automatic("g2", "x", 10, cap=1, max_seconds=60, client="d")
    assert other.job is None and other.reason is not None and "1 automatic jobs are already" in other.reason


def test_a_worker_claims_only_jobs_within_its_memory_cap(clean_db: sa.Engine) -> None:
    """Workers of different sizes share the queue: a job estimated beyond a worker's cap is left to a
    worker with a larger one (it stays queued, neither failed nor run), and the small worker takes the
    later jobs that fit; a job with no estimate of its kind's own (or queued before they were kept) is
    any worker's."""
    queue = JobQueue(clean_db)
    big = queue.submit_plan(JobPlan("g", "big", 10, False, memory_bytes=8 << 30), planner)
    small = queue.submit_plan(JobPlan("g", "small", 10, False, memory_bytes=1 << 30), planner)
    unplanned = queue.submit("g", "unplanned", 10)  # its kind gives no estimate: the cap decides as it runs
    with clean_db.connect() as conn:
        kept = dict(conn.execute(sa.text("SELECT family, memory_bytes FROM jobs")).all())
    assert kept == {"big": 8 << 30, "small": 1 << 30, "unplanned": None}

    claimed = queue.claim("small-worker", 30, memory_cap=2 << 30)
    assert claimed is not None and claimed.id == small.id
    assert queue.finish(claimed.id, "small-worker")
    claimed = queue.claim("small-worker", 30, memory_cap=2 << 30)
    assert claimed is not None and claimed.id == unplanned.id
    assert queue.finish(claimed.id, "small-worker")
    assert queue.claim("small-worker", 30, memory_cap=2 << 30) is None
    left = queue.get(big.id)
    assert left is not None and left.status == "queued"

    claimed = queue.claim("large-worker", 30, memory_cap=16 << 30)
    assert claimed is not None and claimed.id == big.id
