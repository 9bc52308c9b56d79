"""The worker in-process on a real PostgreSQL: extension, certification, failures, repair."""

from __future__ import annotations

import re
import threading

import numpy as np
import pytest
import sqlalchemy as sa

from engine.periods import Period
from engine.registry import parse_game_id
from nimbase.settings import DEFAULT_WORKER, InvalidSetting, Settings
from storage.errors import CorruptChunk
from storage.jobs import JobQueue
from storage.packing import CHUNK_VALUES
from storage.sequences import SequenceStore
from tests.storage.helpers import chunk_rows, flip_byte, oracle_values
from worker.runner import Worker, time_bound_note, worker_from_settings

GAME = "subtraction:1,3,4"


def run_all(engine: sa.Engine, **settings: float) -> Worker:
    worker = Worker(engine, worker_id="test-worker", **settings)  # type: ignore[arg-type]
    worker.run_until_idle(threading.Event())
    return worker


def test_fill_computes_every_value_and_certifies_the_period(clean_db: sa.Engine) -> None:
    upto = 2 * CHUNK_VALUES + 777
    job = JobQueue(clean_db).submit(GAME, "heap", upto, fill=True)
    run_all(clean_db, step_values=50_000)
    store = SequenceStore(clean_db)
    assert np.array_equal(store.read_prefix(GAME, "heap", upto), oracle_values((1, 3, 4), upto))
    info = store.info(GAME, "heap")
    assert info is not None
    assert (info.computed_upto, info.max_value, info.max_value_at) == (upto, 3, 5)
    assert info.period == Period(0, 7, 0, True)
    done = JobQueue(clean_db).get(job.id)
    assert done is not None and (done.status, done.done, done.total, done.error) == ("done", upto, upto, None)


def test_without_fill_the_job_ends_once_the_period_is_certified(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    job = queue.submit("subtraction:2,5,7", "heap", 10**7)
    run_all(clean_db, step_values=1000)
    info = SequenceStore(clean_db).info("subtraction:2,5,7", "heap")
    kernel = parse_game_id("subtraction:2,5,7").kernel_for("heap")
    assert kernel is not None and info is not None and info.period is not None
    assert info.computed_upto < 10**7
    assert info.period == kernel.certify(oracle_values((2, 5, 7), info.computed_upto))
    done = queue.get(job.id)
    assert done is not None and (done.status, done.done, done.total) == ("done", 10**7, 10**7)
    # A later submission finds the period stored: nothing is queued.
    from engine.precompute import JobPlan
    from engine.registry import plan_stored

    again = queue.queue(JobPlan("subtraction:2,5,7", "heap", 10**6, False), plan_stored)
    assert (again.job, again.stored, again.queued) == (None, info.computed_upto, ())


def test_extending_an_existing_table_keeps_its_prefix(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    queue.submit(GAME, "heap", 1000, fill=True)
    run_all(clean_db)
    before = chunk_rows(clean_db)
    queue.submit(GAME, "heap", CHUNK_VALUES + 10, fill=True)
    run_all(clean_db, step_values=CHUNK_VALUES)
    after = chunk_rows(clean_db)
    assert len(after) == 2 and before[0][:3] == after[0][:3]
    values = SequenceStore(clean_db).read_prefix(GAME, "heap", CHUNK_VALUES + 10)
    assert np.array_equal(values, oracle_values((1, 3, 4), CHUNK_VALUES + 10))


@pytest.mark.parametrize(
    ("game", "message"),
    [
        ("nim", "game 'nim' stores no sequence 'heap': nothing to precompute"),
        ("subtraction:0,2", "subtraction:0,2"),
    ],
)
def test_a_bad_job_fails_with_its_reason_and_the_worker_goes_on(
    clean_db: sa.Engine, game: str, message: str
) -> None:
    queue = JobQueue(clean_db)
    bad = queue.submit(game, "heap", 100)
    good = queue.submit("subtraction:1,2", "heap", 100, fill=True)
    run_all(clean_db)
    failed, done = queue.get(bad.id), queue.get(good.id)
    assert failed is not None and failed.status == "failed" and failed.error is not None
    assert message in failed.error
    assert done is not None and done.status == "done"


def test_a_corrupt_chunk_is_repaired_by_its_repair_job(clean_db: sa.Engine) -> None:
    upto = 3 * CHUNK_VALUES
    JobQueue(clean_db).submit(GAME, "heap", upto, fill=True)
    run_all(clean_db)
    store = SequenceStore(clean_db)
    original = store.read_chunk(GAME, "heap", 1)
    rows = chunk_rows(clean_db)
    flip_byte(clean_db, GAME, 1, offset=1234)
    with pytest.raises(CorruptChunk, match="corrupt chunk 1 of game 'subtraction:1,3,4' family 'heap'"):
        store.read_chunk(GAME, "heap", 1)
    repair = store.report_corruption(GAME, "heap", 1)
    run_all(clean_db)
    assert np.array_equal(store.read_chunk(GAME, "heap", 1), original)
    assert chunk_rows(clean_db) == rows
    repaired = JobQueue(clean_db).get(repair.id)
    assert repaired is not None and repaired.status == "done"


def test_an_extend_job_repairs_corrupt_chunks_in_its_prefix(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    queue.submit(GAME, "heap", 2 * CHUNK_VALUES + 5, fill=True)
    run_all(clean_db)
    rows = chunk_rows(clean_db)
    flip_byte(clean_db, GAME, 0, offset=7)
    flip_byte(clean_db, GAME, 2, offset=0)
    queue.submit(GAME, "heap", 3 * CHUNK_VALUES, fill=True)
    run_all(clean_db)
    assert chunk_rows(clean_db)[:2] == rows[:2]
    values = SequenceStore(clean_db).read_prefix(GAME, "heap", 3 * CHUNK_VALUES)
    assert np.array_equal(values, oracle_values((1, 3, 4), 3 * CHUNK_VALUES))
    with clean_db.connect() as conn:
        reported = (
            conn.execute(sa.text("SELECT chunk_index FROM corruption_reports ORDER BY 1")).scalars().all()
        )
    assert reported == [0, 2]
    assert all(job.status == "done" for job in queue.list())


def test_a_cancelled_job_stops_without_writing_more(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    job = queue.submit(GAME, "heap", 10**8, fill=True)
    worker = Worker(clean_db, worker_id="w", lease_seconds=0.3, step_values=CHUNK_VALUES)
    stop = threading.Event()
    thread = threading.Thread(target=worker.run_forever, args=(stop,))
    thread.start()
    try:
        store = SequenceStore(clean_db)
        while (info := store.info(GAME, "heap")) is None or info.computed_upto == 0:
            stop.wait(0.05)
        queue.cancel(job.id)
        stop.wait(1.0)  # several heartbeats: the worker has noticed
        frozen = store.info(GAME, "heap")
        stop.wait(0.5)
        assert store.info(GAME, "heap") == frozen
    finally:
        stop.set()
        thread.join()
    cancelled = queue.get(job.id)
    assert cancelled is not None and cancelled.status == "cancelled"


def test_stopping_the_worker_puts_its_job_back(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    job = queue.submit(GAME, "heap", 10**8, fill=True)
    worker = Worker(clean_db, worker_id="w", step_values=CHUNK_VALUES)
    stop = threading.Event()
    thread = threading.Thread(target=worker.run_forever, args=(stop,))
    thread.start()
    try:
        store = SequenceStore(clean_db)
        while (info := store.info(GAME, "heap")) is None or info.computed_upto == 0:
            stop.wait(0.05)
    finally:
        stop.set()
        thread.join()
    back = queue.get(job.id)
    assert back is not None and (back.status, back.lease_owner) == ("queued", None)
    assert 0 < back.done < back.total


def test_settings_come_from_the_environment(clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NIMBASE_WORKER_LEASE_SECONDS", "2.5")
    monkeypatch.setenv("NIMBASE_WORKER_STEP", "4096")
    monkeypatch.setenv("NIMBASE_WORKER_ID", "env-worker")
    monkeypatch.delenv("NIMBASE_WORKER_POLL_SECONDS", raising=False)
    worker = worker_from_settings(clean_db, Settings.from_env().worker)
    assert (worker.worker_id, worker.lease_seconds, worker.step_values, worker.poll_seconds) == (
        "env-worker",
        2.5,
        4096,
        1.0,
    )
    monkeypatch.setenv("NIMBASE_WORKER_STEP", "lots")
    with pytest.raises(InvalidSetting, match="NIMBASE_WORKER_STEP='lots'"):
        Settings.from_env()
    monkeypatch.delenv("NIMBASE_WORKER_ID")
    monkeypatch.delenv("NIMBASE_WORKER_STEP")
    assert worker_from_settings(clean_db, Settings.from_env().worker).worker_id.count(":") == 2
    assert worker_from_settings(clean_db).step_values == DEFAULT_WORKER.step


# ---- automatic jobs: bounded in worker time ----------------------------------------------------------

#: A subtraction game whose period is certified only after about 2 x 5002 values, so a job without
#: `fill` has many steps to take.
SLOW = "subtraction:2,3,5000"
SLOW_MOVES = (2, 3, 5000)


@pytest.mark.parametrize("max_seconds", [1e-9, 0.01])
def test_an_automatic_job_stops_at_its_time_bound_keeping_what_it_computed(
    clean_db: sa.Engine, max_seconds: float
) -> None:
    queue = JobQueue(clean_db)
    submitted = queue.submit_automatic(SLOW, "heap", 100_000, cap=4, max_seconds=max_seconds)
    assert submitted.job is not None
    run_all(clean_db, step_values=1000)
    job = queue.get(submitted.job.id)
    assert job is not None and job.status == "done" and job.total == 100_000
    assert 0 < job.done < 10_000 and job.done % 1000 == 0  # whole steps, stopped well before the period
    if max_seconds < 1e-6:
        assert job.done == 1000  # an attempt's first step runs whatever the bound: it takes at least one
    # The note says how long the job really ran (and, stopped short of the bound, why).
    assert job.error is not None
    ran = re.fullmatch(
        rf"stopped (at its time bound of {max_seconds:g} s after ([0-9.]+) s|after ([0-9.]+) s, short of its "
        rf"time bound of {max_seconds:g} s), with {job.done} values(: its next step would take about .* s)?",
        job.error,
    )
    assert ran is not None, job.error
    elapsed = float(ran.group(2) or ran.group(3))
    assert elapsed < 5
    if ran.group(4) is None:
        assert job.error == time_bound_note(max_seconds, elapsed, job.done)
    assert job.finished_at is not None and job.lease_expires_at is None
    store = SequenceStore(clean_db)
    info = store.info(SLOW, "heap")
    assert info is not None and info.computed_upto == job.done and info.period is None
    assert np.array_equal(store.read_prefix(SLOW, "heap", job.done), oracle_values(SLOW_MOVES, job.done))
    # A later automatic job resumes from the stored values, under a fresh bound.
    again = queue.submit_automatic(SLOW, "heap", 100_000, cap=4, max_seconds=max_seconds)
    assert again.created and again.job is not None
    run_all(clean_db, step_values=1000)
    resumed = queue.get(again.job.id)
    assert resumed is not None and resumed.status == "done"
    assert job.done < resumed.done < resumed.total
    assert np.array_equal(
        store.read_prefix(SLOW, "heap", resumed.done), oracle_values(SLOW_MOVES, resumed.done)
    )


def test_a_job_within_its_time_bound_runs_to_its_end(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    submitted = queue.submit_automatic(SLOW, "heap", 100_000, cap=4, max_seconds=600)
    assert submitted.job is not None
    run_all(clean_db, step_values=1000)
    job = queue.get(submitted.job.id)
    assert job is not None
    assert (job.status, job.done, job.total, job.error) == ("done", 100_000, 100_000, None)
    info = SequenceStore(clean_db).info(SLOW, "heap")
    assert info is not None and info.period is not None and info.period.certified  # the period ended it
    assert np.array_equal(
        SequenceStore(clean_db).read_prefix(SLOW, "heap", info.computed_upto),
        oracle_values(SLOW_MOVES, info.computed_upto),
    )


def test_the_time_bound_counts_per_attempt(clean_db: sa.Engine) -> None:
    """A job put back in the queue (its worker shut down) starts a fresh bound when claimed again."""
    queue = JobQueue(clean_db)
    submitted = queue.submit_automatic(SLOW, "heap", 100_000, cap=4, max_seconds=30)
    assert submitted.job is not None
    first = queue.claim("gone", 30)
    assert first is not None and first.max_seconds == 30
    assert queue.release(first.id, "gone")
    with clean_db.begin() as conn:  # the first attempt started an hour ago
        conn.execute(sa.text("UPDATE jobs SET started_at = now() - interval '1 hour'"))
    run_all(clean_db, step_values=1000)
    job = queue.get(first.id)
    assert job is not None
    assert (job.status, job.done, job.total, job.attempts, job.error) == ("done", 100_000, 100_000, 2, None)


# ---- objects made whole (engine.stored_bytes): solved tables and graphs ---------------------------------


def test_a_whole_object_is_stored_whole_with_its_progress(
    clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chess table's job stores exactly the table's words whatever its `upto` (and whatever its time
    bound), recording the solve's progress as it goes; the stored words read back as the table, made
    from the stored table it reads (KvK's, whose job runs first)."""
    from engine.precompute import plan_job
    from engine.registry import parse_game_id, plan_stored
    from engine.stored_bytes import decode_words
    from kinds.chess.kind import TableKernel
    from kinds.chess.tables import parse_material
    from worker import runner

    queue = JobQueue(clean_db)
    plan = plan_job(parse_game_id("chess:KRvK"), 0, family="table")
    needs = plan.needs
    submitted = queue.submit_automatic(
        "chess:KRvK", "table", 5, cap=4, max_seconds=1e-6, needs=needs, planner=plan_stored, plan=plan
    )
    assert submitted.job is not None and len(submitted.job.waits_for) == 1
    recorded: list[tuple[int, int]] = []
    record = JobQueue.progress

    def spy(self: JobQueue, job_id: int, worker_id: str, done: int, total: int) -> bool:
        held = record(self, job_id, worker_id, done, total)
        row = JobQueue(clean_db).get(job_id)
        assert row is not None
        if row.game_id == "chess:KRvK":
            recorded.append((row.done, row.total))
        return held

    monkeypatch.setattr(runner, "PROGRESS_SECONDS", 0.0)
    monkeypatch.setattr(JobQueue, "progress", spy)
    run_all(clean_db, step_values=1000)
    # Finding 9: the total is the table's slots, as queued, for the whole run (not the solve's three
    # passes, nor the stored words).
    slots = parse_material("KRvK").slots
    assert submitted.job.total == slots
    assert recorded and all(0 <= done <= total == slots for done, total in recorded)
    assert [done for done, _ in recorded] == sorted(done for done, _ in recorded)
    job = queue.get(submitted.job.id)
    info = SequenceStore(clean_db).info("chess:KRvK", "table")
    assert job is not None and info is not None
    assert (job.status, job.error) == ("done", None) and job.done == job.total == slots
    assert info.computed_upto > 5
    stored = decode_words(SequenceStore(clean_db).read_prefix("chess:KRvK", "table", info.computed_upto))
    kvk = SequenceStore(clean_db).info("chess:KvK", "table")
    assert kvk is not None
    kernel = TableKernel(parse_material("KRvK"))
    kernel.give(
        {needs[0]: decode_words(SequenceStore(clean_db).read_prefix("chess:KvK", "table", kvk.computed_upto))}
    )
    assert stored == kernel.make()


def test_a_cancelled_solve_stops_at_its_next_progress_report(clean_db: sa.Engine) -> None:
    from worker.runner import _Stopped

    queue = JobQueue(clean_db)
    queue.submit("chess:KQvK", "table", 100)  # its total: 100
    job = queue.claim("test-worker", 30)
    assert job is not None
    worker = Worker(clean_db, worker_id="test-worker")
    lost = threading.Event()
    report = worker._reporter(job, lost)
    report(10, 100)
    row = queue.get(job.id)
    assert row is not None and (row.done, row.total) == (10, 100)
    queue.cancel(job.id)
    with pytest.raises(_Stopped):
        worker._reporter(job, lost)(20, 100)
    assert lost.is_set()


def test_a_tiers_job_counts_the_tiers_positions(clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 9: a rules tier showed "0 of" the whole game's codes for its whole run. Its total is the
    tier's positions, counted as its job starts and never changed after."""
    from engine.precompute import plan_job
    from engine.registry import plan_stored
    from kinds.rules.solve import positions
    from worker import runner

    game = parse_game_id("tictactoe")
    plan = plan_job(game, 0, family="tier:8")
    queue = JobQueue(clean_db)
    submitted = queue.queue(plan, plan_stored).job
    assert submitted is not None and submitted.total == 0  # not known before the tier is found
    recorded: list[tuple[int, int]] = []
    record = JobQueue.progress

    def spy(self: JobQueue, job_id: int, worker_id: str, done: int, total: int) -> bool:
        if job_id == submitted.id:
            recorded.append((done, total))
        return record(self, job_id, worker_id, done, total)

    monkeypatch.setattr(runner, "PROGRESS_SECONDS", 0.0)
    monkeypatch.setattr(JobQueue, "progress", spy)
    run_all(clean_db)
    count = len(positions(game.rules, 8))  # type: ignore[attr-defined]
    assert count < game.rules.size  # type: ignore[attr-defined]
    assert recorded[0] == (0, count) and all(total == count for _, total in recorded)
    job = queue.get(submitted.id)
    assert job is not None and (job.status, job.done, job.total) == ("done", count, count)
