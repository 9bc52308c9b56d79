"""One job per object, on a real PostgreSQL: what is stored is not queued again, what an open job computes
is that job (sub-jobs of a set and concurrent submitters included), what no worker can finish is refused
before anything is queued; failed jobs are retried with those that failed waiting for them; the list
pages."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest
import sqlalchemy as sa

from engine.errors import LimitExceeded
from engine.precompute import BeyondWorker, JobPlan, StoredName, check_fits
from storage.job_needs import Running
from storage.jobs import JobQueue, NotFailed
from storage.schema import jobs, sequences

#: "top" reads "mid-a" and "mid-b", each reads "base" (as a chess material reads its sub-tables).
NEEDS = {"top": ("mid-a", "mid-b"), "mid-a": ("base",), "mid-b": ("base",), "base": ()}


def planner(name: StoredName) -> JobPlan:
    needs = tuple(StoredName("g", n) for n in NEEDS[name.family])
    return JobPlan(name.game_id, name.family, 10, True, needs, memory_bytes=100, work=7, whole=True)


def plan(family: str) -> JobPlan:
    return planner(StoredName("g", family))


def families(engine: sa.Engine) -> list[str]:
    with engine.connect() as conn:
        return sorted(conn.execute(sa.select(jobs.c.family)).scalars())


def store(engine: sa.Engine, family: str, upto: int, game: str = "g", certified: bool = False) -> None:
    with engine.begin() as conn:
        conn.execute(
            sa.insert(sequences).values(game_id=game, family=family, computed_upto=upto, certified=certified)
        )


def test_posting_the_same_object_twice_runs_one_job(clean_db: sa.Engine) -> None:
    """Finding 8: chess:KBNvK posted twice ran two full solves."""
    queue = JobQueue(clean_db)
    first = queue.queue(plan("base"), planner)
    again = queue.queue(plan("base"), planner)
    assert first.job is not None and [j.id for j in first.queued] == [first.job.id]
    assert again.job == first.job and again.queued == () and again.stored is None
    assert families(clean_db) == ["base"]


def test_what_is_stored_answers_at_once_and_queues_nothing(clean_db: sa.Engine) -> None:
    """Finding 8: chess:KNvK, stored, was solved again."""
    store(clean_db, "base", 123)
    done = JobQueue(clean_db).queue(plan("base"), planner)
    assert (done.job, done.stored, done.queued) == (None, 123, ())
    assert families(clean_db) == []


def test_a_stored_prefix_answers_to_its_upto_and_is_extended_past_it(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    store(clean_db, "heap", 1000, game="s")
    assert queue.queue(JobPlan("s", "heap", 1000, False), planner).stored == 1000
    assert queue.queue(JobPlan("s", "heap", 999, False), planner).stored == 1000
    further = queue.queue(JobPlan("s", "heap", 1001, False), planner)
    assert further.job is not None and further.job.upto == 1001
    store(clean_db, "heap", 10, game="p", certified=True)  # a certified period answers every heap...
    assert queue.queue(JobPlan("p", "heap", 10**6, False), planner).stored == 10
    filled = queue.queue(JobPlan("p", "heap", 10**6, True), planner)  # ...unless the job fills
    assert filled.job is not None and filled.job.fill


def test_an_object_a_stopped_job_left_part_way_is_not_stored(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    job = queue.submit_plan(plan("base"), planner)
    store(clean_db, "base", 5)  # what it wrote before it failed
    claimed = queue.claim("w", 30)
    assert claimed is not None and queue.fail(job.id, "w", "boom")
    again = queue.queue(plan("base"), planner)
    assert again.job is not None and again.job.id != job.id and again.stored is None


def test_the_sub_jobs_of_a_set_are_not_queued_twice(clean_db: sa.Engine) -> None:
    """Finding 8: chess:KQvKR ran twice when queued right after chess:KRvKP; two `nimbase precompute
    connect4:5x4` queued tier 0 twice."""
    queue = JobQueue(clean_db)
    top = queue.queue(plan("top"), planner)
    assert [j.family for j in top.queued] == ["base", "mid-a", "mid-b", "top"]
    for family in ("base", "mid-a", "top"):
        again = queue.queue(plan(family), planner)
        assert again.queued == () and again.job is not None and again.job.family == family
    assert families(clean_db) == ["base", "mid-a", "mid-b", "top"]


def test_concurrent_submitters_queue_one_job(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    found: list[int] = []
    barrier = threading.Barrier(8)

    def submit() -> None:
        barrier.wait()
        job = queue.submit("s", "heap", 100)
        found.append(job.id)

    threads = [threading.Thread(target=submit) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(found)) == 1 and len(found) == 8
    with pytest.raises(sa.exc.IntegrityError), clean_db.begin() as conn:  # the index holds without the lock
        conn.execute(sa.insert(jobs).values(game_id="s", family="heap", upto=5, total=5))


def test_a_sequence_asked_further_than_its_running_job_is_refused(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    job = queue.submit("s", "heap", 100)
    assert queue.submit("s", "heap", 200).id == job.id  # queued: its upto is raised
    assert queue.claim("w", 30) is not None
    assert queue.submit("s", "heap", 150).id == job.id
    with pytest.raises(
        Running, match="job 1 is computing s \\(heap\\) to 200 values; queue 300 once it is done"
    ):
        queue.submit("s", "heap", 300)


def test_what_no_worker_can_finish_is_refused_and_nothing_is_queued(clean_db: sa.Engine) -> None:
    """Finding 7: one GET on connect4:7x6 queued 43 tier jobs that could not finish."""
    queue = JobQueue(clean_db)

    def admit(plans: Sequence[JobPlan]) -> None:
        check_fits(plans, 99, "NIMBASE_WORKER_MEMORY_BYTES")

    with pytest.raises(BeyondWorker) as refused:
        queue.queue(plan("top"), planner, admit)
    assert isinstance(refused.value, LimitExceeded)
    assert str(refused.value) == (
        "the job storing g (base), one of the 4 jobs it would queue, needs about 100 bytes of memory, more "
        "than a worker's cap of 99 bytes (NIMBASE_WORKER_MEMORY_BYTES): nothing is queued"
    )
    assert families(clean_db) == []
    with pytest.raises(BeyondWorker):
        queue.submit_automatic(
            "g", "top", 10, cap=4, max_seconds=60, plan=plan("top"), planner=planner, admit=admit
        )
    assert families(clean_db) == []
    fits = queue.queue(plan("top"), planner, lambda plans: check_fits(plans, 100, "CAP"))
    assert len(fits.queued) == 4
    small = queue.queue(JobPlan("s", "heap", 10, False, memory_bytes=50), planner, admit)
    assert small.job is not None
    with pytest.raises(BeyondWorker):  # a queued job's upto is not raised past what a worker can do
        queue.queue(JobPlan("s", "heap", 20, False, memory_bytes=200), planner, admit)
    assert queue.get(small.job.id).upto == 10  # type: ignore[union-attr]


def test_a_job_is_queued_with_its_own_work_as_its_total(clean_db: sa.Engine) -> None:
    """Finding 9: a tier's job showed the whole game's codes as its total."""
    queue = JobQueue(clean_db)
    assert queue.submit_plan(plan("base"), planner).total == 7
    assert queue.submit_plan(JobPlan("s", "heap", 50, False), planner).total == 50


def test_a_retry_queues_the_failed_job_and_those_that_failed_waiting_for_it(clean_db: sa.Engine) -> None:
    """Finding 2's way on: a job failed by its worker's stop, and the jobs that waited for it."""
    queue = JobQueue(clean_db)
    top = queue.submit_plan(plan("top"), planner)
    other = queue.submit_plan(JobPlan("s", "heap", 50, False), planner)
    base = queue.claim("w", 30)
    assert base is not None and base.family == "base"
    assert queue.fail(base.id, "w", "ComputeError: the process computing it exited (255)")
    assert queue.claim("w", 30) is not None  # `other`; the claim fails the jobs waiting for base
    assert {j.family: j.status for j in queue.list()} == {
        "heap": "running", "top": "failed", "mid-a": "failed", "mid-b": "failed", "base": "failed"
    }  # fmt: skip
    with pytest.raises(NotFailed, match="job 5 is running, not failed: only a failed job can be retried"):
        queue.retry(other.id)
    retried = queue.retry(base.id)
    assert retried is not None and retried[0].id == base.id
    assert sorted(j.family for j in retried) == ["base", "mid-a", "mid-b", "top"]
    assert all(j.status == "queued" and j.error is None and j.attempts == 0 for j in retried)
    assert queue.retry(10**6) is None
    with pytest.raises(NotFailed, match="job 1 is queued"):
        queue.retry(base.id)
    order = []
    while (job := queue.claim("w2", 30)) is not None:
        order.append(job.family)
        assert queue.finish(job.id, "w2")
    assert order[0] == "base" and order[-1] == "top"
    assert queue.get(top.id).status == "done"  # type: ignore[union-attr]


def test_retrying_a_job_that_failed_waiting_retries_what_it_waited_for(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    top = queue.submit_plan(plan("mid-a"), planner)
    base = queue.claim("w", 30)
    assert base is not None and queue.fail(base.id, "w", "boom")
    assert queue.claim("w", 30) is None
    retried = queue.retry(top.id)
    assert retried is not None and [j.family for j in retried] == ["mid-a", "base"]


def test_a_retried_job_whose_object_another_job_computes_now_is_that_job(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    mid = queue.submit_plan(plan("mid-a"), planner)
    base = queue.claim("w", 30)
    assert base is not None and queue.fail(base.id, "w", "boom")
    assert queue.claim("w", 30) is None
    fresh = queue.submit_plan(plan("base"), planner)
    assert fresh.id != base.id
    retried = queue.retry(mid.id)
    assert retried is not None and [j.family for j in retried] == ["mid-a"]
    assert retried[0].waits_for == (fresh.id,)


def test_the_list_pages_newest_first(clean_db: sa.Engine) -> None:
    """Finding 10: ListJobs could not page."""
    queue = JobQueue(clean_db)
    ids = [queue.submit("s", f"f{k}", 5).id for k in range(7)]
    pages: list[list[int]] = []
    before = None
    while page := queue.list(limit=3, before=before):
        pages.append([j.id for j in page])
        before = page[-1].id
    assert pages == [ids[6:3:-1], ids[3:0:-1], ids[:1]]


def test_a_job_whose_index_cannot_hold_its_positions_is_refused() -> None:
    """A rules tier found among 127^7 codes (connect4:7x6) may hold more positions than a tier's index."""
    from engine.precompute import plan_job
    from engine.registry import parse_game_id

    tier = plan_job(parse_game_id("connect4:7x6"), 0)
    with pytest.raises(
        BeyondWorker, match="index 532,875,860,165,503 positions at once, more than its index"
    ):
        check_fits([tier], 0, "NIMBASE_WORKER_MEMORY_BYTES")  # no memory cap: the index still bounds it
    check_fits([plan_job(parse_game_id("connect4:5x4"), 0)], 0, "NIMBASE_WORKER_MEMORY_BYTES")
