"""The job queue on a real PostgreSQL: claiming, leases, fencing, cancellation."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from engine.errors import InvalidArgument
from storage.jobs import MAX_ATTEMPTS, AutoSubmission, JobQueue

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
    queue.submit(GAME, "heap", 20, kind="repair", chunk_index=0)  # one open extend job a sequence
    other = queue.submit("subtraction:1,2", "heap", 10)
    assert queue.claim("w1", 30) is not None
    claimed = queue.claim("w2", 30)
    assert claimed is not None and claimed.id == other.id
    assert queue.claim("w3", 30) is None
    assert queue.finish(first.id, "w1")
    later = queue.claim("w3", 30)
    assert later is not None and later.kind == "repair"


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


# ---- automatic jobs --------------------------------------------------------------------------------

OFF = "automatic jobs are turned off (NIMBASE_AUTO_JOBS=0)"


def test_submitted_jobs_are_admin_jobs_without_a_time_bound(clean_db: sa.Engine) -> None:
    job = JobQueue(clean_db).submit(GAME, "heap", 10)
    assert (job.origin, job.max_seconds) == ("admin", None)


def test_submit_automatic_queues_a_bounded_extend_job(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    submitted = queue.submit_automatic(GAME, "heap", 5000, cap=4, max_seconds=12.5)
    assert submitted.created and submitted.reason is None and submitted.job is not None
    job = submitted.job
    assert (job.game_id, job.family, job.upto, job.total, job.done) == (GAME, "heap", 5000, 5000, 0)
    assert (job.origin, job.max_seconds, job.kind, job.fill, job.status) == (
        "auto",
        12.5,
        "extend",
        False,
        "queued",
    )
    assert queue.get(job.id) == job
    assert isinstance(submitted, AutoSubmission)


def test_an_open_job_covering_the_request_is_returned_whatever_its_origin(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    first = queue.submit_automatic(GAME, "heap", 5000, cap=4, max_seconds=60).job
    assert first is not None
    for upto in (5000, 4999, 0):  # the same request again, or a smaller one: the open job answers it
        again = queue.submit_automatic(GAME, "heap", upto, cap=4, max_seconds=60)
        assert again == AutoSubmission(job=first, created=False, reason=None)
    # Even with automatic jobs off or the cap reached, the open job is the answer.
    assert queue.submit_automatic(GAME, "heap", 10, cap=0, max_seconds=60).job == first
    assert queue.submit_automatic(GAME, "heap", 10, cap=1, max_seconds=60).job == first
    # A larger request raises the queued job's upto: one open job a sequence. An admin's request takes it
    # over (no time bound), and any smaller request is answered by it.
    larger = queue.submit_automatic(GAME, "heap", 6000, cap=4, max_seconds=60)
    assert (
        not larger.created and larger.job is not None and (larger.job.id, larger.job.upto) == (first.id, 6000)
    )
    admin = queue.submit(GAME, "heap", 10**6, fill=True)
    assert (admin.id, admin.upto, admin.total, admin.origin, admin.max_seconds) == (
        first.id,
        10**6,
        10**6,
        "admin",
        None,
    )
    assert queue.submit_automatic(GAME, "heap", 10**5, cap=4, max_seconds=60).job == admin
    # Another family, a running job, and only open jobs count.
    other = queue.submit_automatic(GAME, "pairs", 10, cap=4, max_seconds=60)
    assert other.created
    claimed = queue.claim("w1", 30)
    assert claimed is not None and claimed.id == first.id
    running = queue.submit_automatic(GAME, "heap", 5000, cap=4, max_seconds=60).job
    assert running is not None and (running.id, running.status) == (first.id, "running")
    beyond = queue.submit_automatic(GAME, "heap", 2 * 10**6, cap=4, max_seconds=60)
    assert beyond.job is not None and beyond.job.id == first.id and not beyond.created
    assert beyond.reason is not None and "queue 2000000 once it is done" in beyond.reason
    assert queue.finish(first.id, "w1")
    renewed = queue.submit_automatic(GAME, "heap", 5000, cap=4, max_seconds=60)
    assert renewed.created and renewed.job is not None and renewed.job.id > other.job.id  # type: ignore[union-attr]


def test_a_repair_job_does_not_cover_a_request(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    repair = queue.submit(GAME, "heap", 10**6, kind="repair", chunk_index=3)
    submitted = queue.submit_automatic(GAME, "heap", 100, cap=4, max_seconds=60)
    assert submitted.created and submitted.job is not None and submitted.job.id != repair.id


def test_automatic_jobs_can_be_turned_off(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    assert queue.submit_automatic(GAME, "heap", 100, cap=0, max_seconds=60) == AutoSubmission(
        job=None, created=False, reason=OFF
    )
    assert queue.list() == []


def test_the_cap_counts_open_automatic_jobs_only(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    for k in range(1, 4):
        queue.submit(f"subtraction:{k}", "heap", 100)  # admin jobs do not count
    made = [queue.submit_automatic(f"subtraction:1,{k}", "heap", 100, cap=2, max_seconds=60) for k in (2, 3)]
    assert all(m.created for m in made)
    refused = queue.submit_automatic("subtraction:1,4", "heap", 100, cap=2, max_seconds=60)
    assert refused == AutoSubmission(
        job=None, created=False, reason="2 automatic jobs are already queued or running (NIMBASE_AUTO_JOBS)"
    )
    assert queue.submit_automatic("subtraction:1,4", "heap", 100, cap=3, max_seconds=60).created
    # A running automatic job still counts; a finished, failed or cancelled one no more.
    assert not queue.submit_automatic("subtraction:1,5", "heap", 100, cap=3, max_seconds=60).created
    first, second = (m.job for m in made)
    assert first is not None and second is not None
    queue.cancel(first.id)
    assert queue.submit_automatic("subtraction:1,5", "heap", 100, cap=3, max_seconds=60).created
    assert not queue.submit_automatic("subtraction:1,6", "heap", 100, cap=3, max_seconds=60).created
    while (job := queue.claim("w1", 30)) is not None and job.origin == "admin":
        assert queue.finish(job.id, "w1")
    assert job is not None and job.id == second.id
    assert not queue.submit_automatic("subtraction:1,6", "heap", 100, cap=3, max_seconds=60).created
    assert queue.fail(second.id, "w1", "boom")
    assert queue.submit_automatic("subtraction:1,6", "heap", 100, cap=3, max_seconds=60).created


@pytest.mark.parametrize(
    ("upto", "cap", "max_seconds", "message"),
    [
        (-1, 4, 60.0, "upto must be >= 0, got -1"),
        (10, -1, 60.0, "cap must be >= 0, got -1"),
        (10, 4, 0.0, "max_seconds must be a positive number of seconds, got 0.0"),
        (10, 4, -5.0, "max_seconds must be a positive number of seconds"),
        (10, 4, float("nan"), "max_seconds must be a positive number of seconds, got nan"),
        (10, 4, float("inf"), "max_seconds must be a positive number of seconds, got inf"),
    ],
)
def test_submit_automatic_rejects_bad_arguments(
    clean_db: sa.Engine, upto: int, cap: int, max_seconds: float, message: str
) -> None:
    queue = JobQueue(clean_db)
    with pytest.raises(InvalidArgument, match=message):
        queue.submit_automatic(GAME, "heap", upto, cap=cap, max_seconds=max_seconds)
    assert queue.list() == []


def _submit_at_once(engine: sa.Engine, games: list[str], cap: int) -> list[AutoSubmission]:
    """submit_automatic for every game, each from its own thread, all released together."""
    queue = JobQueue(engine)
    results: list[AutoSubmission | BaseException] = [RuntimeError("not run")] * len(games)
    barrier = threading.Barrier(len(games))

    def submit(i: int) -> None:
        try:
            barrier.wait()
            results[i] = queue.submit_automatic(games[i], "heap", 1000, cap=cap, max_seconds=60)
        except BaseException as exc:
            results[i] = exc

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(len(games))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    errors = [r for r in results if isinstance(r, BaseException)]
    assert errors == []
    return [r for r in results if isinstance(r, AutoSubmission)]


def _open_automatic(engine: sa.Engine) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(
                sa.text("SELECT count(*) FROM jobs WHERE origin = 'auto' AND status IN ('queued', 'running')")
            ).scalar_one()
        )


def _truncate_jobs(engine: sa.Engine) -> None:
    with engine.begin() as conn:
        conn.execute(sa.text("TRUNCATE jobs RESTART IDENTITY"))


def test_concurrent_automatic_submissions_never_exceed_the_cap(clean_db: sa.Engine) -> None:
    # An engine of its own, whose pool lets all 20 threads hold a connection at once.
    engine = sa.create_engine(clean_db.url, pool_size=20, max_overflow=0)
    try:
        for _ in range(3):
            games = [f"subtraction:1,{k}" for k in range(2, 22)]
            results = _submit_at_once(engine, games, cap=4)
            assert len([r for r in results if r.created]) == 4
            assert {r.reason for r in results if not r.created} == {
                "4 automatic jobs are already queued or running (NIMBASE_AUTO_JOBS)"
            }
            assert _open_automatic(engine) == 4
            _truncate_jobs(engine)
    finally:
        engine.dispose()


def test_concurrent_automatic_submissions_for_one_game_queue_one_job(clean_db: sa.Engine) -> None:
    engine = sa.create_engine(clean_db.url, pool_size=12, max_overflow=0)
    try:
        results = _submit_at_once(engine, [GAME] * 12, cap=4)
    finally:
        engine.dispose()
    created = [r for r in results if r.created]
    assert len(created) == 1 and created[0].job is not None
    assert {r.job.id for r in results if r.job is not None} == {created[0].job.id}
    assert len(results) == 12 and all(r.reason is None for r in results)
    assert _open_automatic(clean_db) == 1


def test_open_jobs_lists_a_games_queued_and_running_jobs_oldest_first(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    assert queue.open_jobs(GAME) == []
    first = queue.submit(GAME, "heap", 10)
    other_game = queue.submit("subtraction:1,2", "heap", 10)
    automatic = queue.submit_automatic(GAME, "other", 100, cap=4, max_seconds=60).job
    repair = queue.submit(GAME, "heap", 10, kind="repair", chunk_index=0)
    cancelled = queue.submit(GAME, "pairs", 10)
    assert automatic is not None
    queue.cancel(cancelled.id)
    claimed = queue.claim("w1", 30)
    assert claimed is not None and claimed.id == first.id
    listed = queue.open_jobs(GAME)
    assert [j.id for j in listed] == [first.id, automatic.id, repair.id]
    assert [j.status for j in listed] == ["running", "queued", "queued"]
    assert queue.finish(first.id, "w1")
    assert [j.id for j in queue.open_jobs(GAME)] == [automatic.id, repair.id]
    assert [j.id for j in queue.open_jobs("subtraction:1,2")] == [other_game.id]
    assert queue.open_jobs("nim") == []


def test_finish_at_bound_keeps_the_progress_and_records_the_note(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    job = queue.submit_automatic(GAME, "heap", 100, cap=4, max_seconds=1).job
    assert job is not None and queue.claim("w1", 30) is not None
    assert not queue.finish_at_bound(job.id, "w2", "not mine")
    assert queue.finish_at_bound(job.id, "w1", "stopped")
    ended = queue.get(job.id)
    assert ended is not None
    assert (ended.status, ended.done, ended.total, ended.error) == ("done", 0, 100, "stopped")
    assert ended.finished_at is not None and ended.lease_expires_at is None
    assert not queue.finish_at_bound(job.id, "w1", "again")


def test_one_client_holds_at_most_its_share_of_the_automatic_jobs(clean_db: sa.Engine) -> None:
    """Defect 9: one client flooding new games took every slot. Now it gets its share, another client still
    gets a slot, and the client is stored with its jobs (so the share holds across server processes)."""
    queue = JobQueue(clean_db)
    mine = [
        queue.submit_automatic(
            f"subtraction:1,{k}", "heap", 100, cap=4, max_seconds=60, client="10.0.0.1", client_cap=2
        )
        for k in range(2, 7)
    ]
    assert [m.created for m in mine] == [True, True, False, False, False]
    assert mine[2] == AutoSubmission(
        job=None,
        created=False,
        reason="client 10.0.0.1 already has 2 automatic jobs queued or running, its share of them "
        "(NIMBASE_AUTO_CLIENT_JOBS=2)",
    )
    assert all(m.job is not None and m.job.client == "10.0.0.1" for m in mine[:2])
    theirs = queue.submit_automatic(
        "subtraction:2,9", "heap", 100, cap=4, max_seconds=60, client="10.0.0.2", client_cap=2
    )
    assert theirs.created and theirs.job is not None and theirs.job.client == "10.0.0.2"
    # A job the client's request needs that is open already (queued by anyone) is still its answer.
    assert (
        queue.submit_automatic(
            "subtraction:2,9", "heap", 50, cap=4, max_seconds=60, client="10.0.0.1", client_cap=2
        ).job
        == theirs.job
    )
    # Once one of its jobs is done, the client may queue another; admin jobs carry no client.
    assert mine[0].job is not None and queue.cancel(mine[0].job.id) is not None
    assert queue.submit_automatic(
        "subtraction:1,9", "heap", 100, cap=4, max_seconds=60, client="10.0.0.1", client_cap=2
    ).created
    assert queue.submit(GAME, "heap", 10).client is None
    # Without a known client only the cap applies.
    assert queue.submit_automatic("subtraction:3,9", "heap", 100, cap=5, max_seconds=60).created
    with pytest.raises(InvalidArgument, match="client_cap must be >= 1, got 0"):
        queue.submit_automatic(GAME, "heap", 10, cap=4, max_seconds=60, client="x", client_cap=0)
