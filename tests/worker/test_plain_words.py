"""An object made whole that an older version stored in the packed form (bit-packed, deflated) is stored
again as plain words by a job, on a real PostgreSQL with a real worker: a submission queues that job (one
chunk's memory, reading nothing else), the worker solves nothing and rewrites every packed chunk, the
values read the same through every reader before and after; a second run rewrites nothing; a stopped job
resumes with the chunks left; an ordinary sequence is never stored plain."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest
import sqlalchemy as sa
from numpy.typing import NDArray

from engine.precompute import PROCESS_BYTES, plan_job
from engine.registry import parse_game_id, plan_stored
from service.jobs import worker_admission
from storage.job_needs import PLAIN_STEP_BYTES
from storage.jobs import Job, JobQueue
from storage.packing import CHUNK_VALUES, PLAIN_WIDTH, RAW, is_plain
from storage.schema import jobs
from storage.sequences import SequenceStore
from tests.storage.helpers import write_whole
from worker.compute import Computer
from worker.runner import Worker

#: A real object made whole, cheap to make: Lights Out's elimination of a 100 x 100 board, 161,044 words
#: (three chunks, the last partial), each chunk deflated in the packed form.
GAME, FAMILY = "lights-out:100x100", "elimination"


def made_whole() -> tuple[NDArray[np.uint32], dict[str, Any]]:
    """The object's words and statistics, made by its kernel."""
    kernel = parse_game_id(GAME).kernel_for(FAMILY)
    assert kernel is not None and kernel.makes_whole()
    size = kernel.length()
    assert size is not None
    words = kernel.extend(np.zeros(0, dtype=np.uint32), size)
    stats = kernel.stats_part(words, 0)
    assert stats is not None
    return words, stats


def store_as_before(
    engine: sa.Engine, game_id: str, family: str, words: NDArray[np.uint32], stats: dict[str, Any] | None
) -> None:
    """`words` stored whole by a job in the packed form, as versions before plain words stored objects."""
    with engine.begin() as conn:
        conn.execute(jobs.insert().values(game_id=game_id, family=family, upto=len(words), total=len(words)))
    queue = JobQueue(engine)
    job = queue.claim("older-version", 60)
    assert job is not None and job.game_id == game_id
    write_whole(engine, job.id, "older-version", game_id, family, words, plain=False, stats=stats)


def forms(engine: sa.Engine, game_id: str = GAME) -> list[bool]:
    """Whether each chunk of the object is stored as plain words, in order."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT width, codec FROM sequence_chunks WHERE game_id = :g ORDER BY chunk_index"),
            {"g": game_id},
        ).all()
    return [is_plain(int(width), int(codec)) for width, codec in rows]


def ranges(size: int) -> list[tuple[int, int]]:
    """Ranges within a chunk, across chunk ends, the partial last chunk's end, everything."""
    chunk = CHUNK_VALUES
    return [(0, 3), (17, 1000), (chunk - 5, chunk + 9), (chunk, 2 * chunk + 4), (size - 100, size), (0, size)]


def read_everyway(store: SequenceStore, game_id: str, family: str, size: int) -> list[bytes]:
    """The values of every range through every reader path: verified whole chunks (`read_range`), one
    range at a time by parts (`read_parts`), and all at once (`read_parts_of`: storage.word_ranges)."""
    out: list[bytes] = []
    asked = ranges(size)
    for start, stop in asked:
        out.append(store.read_range(game_id, family, start, stop).astype("<u4").tobytes())
        out.append(b"".join(part.data for part in store.read_parts(game_id, family, start, stop)))
    for parts in store.read_parts_of(game_id, family, asked):
        out.append(b"".join(part.data for part in parts))
    return out


def no_solve(monkeypatch: pytest.MonkeyPatch) -> None:
    """A job that solves (makes its object again) fails, naming it: a plain-words job must not."""

    def solving(*args: object, **kwargs: object) -> int:
        raise AssertionError("the job solved its object again")

    monkeypatch.setattr(Computer, "length", solving)


def count_rewrites(monkeypatch: pytest.MonkeyPatch, after: threading.Event | None = None) -> list[int]:
    """The chunk indices `SequenceStore.rewrite_plain` is called with from now on (setting `after`, when
    given, once each has been written)."""
    calls: list[int] = []
    rewrite = SequenceStore.rewrite_plain

    def counted(self: SequenceStore, **kwargs: Any) -> bool:
        calls.append(int(kwargs["chunk_index"]))
        changed = rewrite(self, **kwargs)
        if after is not None:
            after.set()
        return changed

    monkeypatch.setattr(SequenceStore, "rewrite_plain", counted)
    return calls


def run_all(engine: sa.Engine, stop: threading.Event | None = None) -> None:
    Worker(engine, worker_id="plain-worker", poll_seconds=0.05).run_until_idle(stop or threading.Event())


def test_an_old_table_is_stored_again_as_plain_words_by_its_job(
    clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    words, stats = made_whole()
    size = len(words)
    store_as_before(clean_db, GAME, FAMILY, words, stats)
    store, queue = SequenceStore(clean_db), JobQueue(clean_db)
    assert forms(clean_db) == [False, False, False]
    assert store.packed_chunks(GAME, FAMILY) == [0, 1, 2]
    before = read_everyway(store, GAME, FAMILY, size)
    assert before[-1] == words.astype("<u4").tobytes()
    # A submission of the stored object queues its plain-words job: one chunk's memory, nothing read.
    plan = plan_job(parse_game_id(GAME), 0, False, FAMILY)
    assert plan.whole and plan.stats
    one_chunk = PROCESS_BYTES + PLAIN_STEP_BYTES
    assert plan.memory > one_chunk  # a worker too small to solve it stores it again
    submitted = queue.queue(plan, plan_stored, worker_admission(one_chunk))
    assert submitted.job is not None and [job.id for job in submitted.queued] == [submitted.job.id]
    job = submitted.job
    assert (job.status, job.done, job.total, job.upto, job.waits_for) == ("queued", 0, 3, size, ())
    assert queue.queue(plan, plan_stored).job == job  # one open job per object
    no_solve(monkeypatch)
    run_all(clean_db)
    done = queue.get(job.id)
    assert done is not None and (done.status, done.done, done.total, done.error) == ("done", 3, 3, None)
    assert forms(clean_db) == [True, True, True] and store.packed_chunks(GAME, FAMILY) == []
    assert read_everyway(store, GAME, FAMILY, size) == before
    info = store.info(GAME, FAMILY)
    assert info is not None and info.computed_upto == size and info.stats_current
    assert store.stats(GAME, FAMILY) == (size, stats)
    # Stored plain: a submission again queues nothing.
    again = queue.queue(plan, plan_stored)
    assert (again.job, again.stored, again.queued) == (None, size, ())


def test_a_second_run_rewrites_nothing(clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    words, stats = made_whole()
    store_as_before(clean_db, GAME, FAMILY, words, stats)
    queue = JobQueue(clean_db)
    queue.queue(plan_job(parse_game_id(GAME), 0, False, FAMILY), plan_stored)
    no_solve(monkeypatch)
    run_all(clean_db)
    with clean_db.connect() as conn:
        rows = conn.execute(sa.text("SELECT * FROM sequence_chunks ORDER BY chunk_index")).all()
    rewrites = count_rewrites(monkeypatch)
    # A job of the object, queued straight into the table (as by an older submission), finds it whole
    # and plain: it is done with nothing rewritten and nothing solved.
    with clean_db.begin() as conn:
        job_id = conn.execute(
            jobs.insert().values(game_id=GAME, family=FAMILY, upto=1, total=1).returning(jobs.c.id)
        ).scalar_one()
    run_all(clean_db)
    done = queue.get(job_id)
    assert done is not None and (done.status, done.error) == ("done", None)
    assert rewrites == []
    with clean_db.connect() as conn:
        assert conn.execute(sa.text("SELECT * FROM sequence_chunks ORDER BY chunk_index")).all() == rows


def _old_table_and_its_job(
    engine: sa.Engine,
) -> tuple[SequenceStore, JobQueue, int, list[bytes], Job]:
    """The object stored as an older version stored it, its size, what every reader gives of it, and the
    job a submission queues for it."""
    words, stats = made_whole()
    store_as_before(engine, GAME, FAMILY, words, stats)
    store, queue = SequenceStore(engine), JobQueue(engine)
    before = read_everyway(store, GAME, FAMILY, len(words))
    job = queue.submit_plan(plan_job(parse_game_id(GAME), 0, False, FAMILY), plan_stored)
    return store, queue, len(words), before, job


def test_a_stopped_job_resumes_with_the_chunks_left(
    clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, queue, size, before, job = _old_table_and_its_job(clean_db)
    no_solve(monkeypatch)
    stop = threading.Event()
    rewrites = count_rewrites(monkeypatch, after=stop)  # the worker is told to stop after one chunk
    run_all(clean_db, stop)
    stopped = queue.get(job.id)
    assert stopped is not None and (stopped.status, stopped.done, stopped.total) == ("queued", 1, 3)
    assert rewrites == [0] and forms(clean_db) == [True, False, False]
    assert read_everyway(store, GAME, FAMILY, size) == before  # a half-done object reads the same
    # It is still stored whole meanwhile: what reads it does not wait for the job.
    assert queue.stored_whole(plan_job(parse_game_id(GAME), 0, False, FAMILY).name) == size
    run_all(clean_db)
    done = queue.get(job.id)
    assert done is not None and (done.status, done.done, done.total) == ("done", 3, 3)
    assert rewrites == [0, 1, 2] and forms(clean_db) == [True, True, True]
    assert read_everyway(store, GAME, FAMILY, size) == before


def test_an_ordinary_sequence_is_never_stored_plain(clean_db: sa.Engine) -> None:
    game = "octal:0.6"
    queue, store = JobQueue(clean_db), SequenceStore(clean_db)
    upto = 2 * CHUNK_VALUES + 7
    queue.submit(game, "heap", upto)
    run_all(clean_db)
    assert forms(clean_db, game) == [False, False, False]
    with clean_db.connect() as conn:
        rows = conn.execute(sa.text("SELECT * FROM sequence_chunks ORDER BY chunk_index")).all()
    plan = plan_job(parse_game_id(game), upto, False, "heap")
    assert not plan.whole
    assert queue.queue(plan, plan_stored).queued == ()  # stored: nothing queued
    further = queue.queue(plan_job(parse_game_id(game), upto + CHUNK_VALUES, False, "heap"), plan_stored)
    assert further.job is not None
    run_all(clean_db)
    assert forms(clean_db, game) == [False, False, False, False]
    with clean_db.connect() as conn:  # the chunks before the one it extended are as they were
        after = conn.execute(sa.text("SELECT * FROM sequence_chunks ORDER BY chunk_index")).all()
    assert after[:2] == rows[:2]
    assert store.packed_chunks(game, "heap") == [0, 1, 2, 3]
    assert (PLAIN_WIDTH, RAW) not in {(row.width, row.codec) for row in after}


def test_a_set_submitted_again_queues_its_old_tables_alone(
    clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`precompute chess --men 3` run again after an upgrade (service.jobs.queue_set, as the CLI and
    SubmitJob queue it): a job for each table stored in the packed form, those it reads included, none
    for the one stored plain; none waits, and a table that reads them does not wait for them either."""
    from kinds.chess.kind import bulk_ids
    from kinds.chess.material import parse_material
    from nimbase.settings import DEFAULT_WORKER
    from service.jobs import queue_set, worker_admission

    games = bulk_ids(3)
    words = {game: (np.arange(3000 + 7 * i, dtype=np.uint32) // 5) % 251 for i, game in enumerate(games)}
    for game in games:
        store_as_before(clean_db, game, "table", words[game], {})
    plain = games[0]
    queue, store = JobQueue(clean_db), SequenceStore(clean_db)
    with clean_db.begin() as conn:  # one table stored plain already, as this version stores it
        conn.execute(jobs.insert().values(game_id=plain, family="table", upto=1, total=1))
    job = queue.claim("now", 60)
    assert job is not None
    assert store.rewrite_plain(job_id=job.id, worker_id="now", game_id=plain, family="table", chunk_index=0)
    assert queue.finish(job.id, "now")
    admit = worker_admission(DEFAULT_WORKER.memory_bytes)
    done = queue_set(queue, "chess", 3, False, admit)
    assert done.refused == ()
    queued = [job for _, submitted in done.asked for job in submitted.queued]
    assert sorted(job.game_id for job in queued) == sorted(games[1:])
    assert all(job.waits_for == () and job.total == 1 for job in queued)
    # A table reading them is queued alone: they are stored (readable), their jobs not waited for.
    reader = "chess:KQvKQ"
    assert {f"chess:{sub.name}" for sub in parse_material("KQvKQ").sub_materials()} <= set(games)
    asked = queue.queue(plan_job(parse_game_id(reader), 0), plan_stored, admit)
    assert asked.job is not None and [job.game_id for job in asked.queued] == [reader]
    assert asked.job.waits_for == ()
    queue.cancel(asked.job.id)
    no_solve(monkeypatch)
    run_all(clean_db)
    for job in queued:
        finished = queue.get(job.id)
        assert finished is not None and (finished.status, finished.done, finished.total) == ("done", 1, 1)
    for game in games:
        assert store.packed_chunks(game, "table") == []
        assert np.array_equal(store.read_range(game, "table", 0, len(words[game])), words[game])
    again = queue_set(queue, "chess", 3, False, admit)
    assert [job for _, submitted in again.asked for job in submitted.queued] == []


def test_a_killed_workers_job_is_resumed_by_another(
    clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker killed after one chunk (its lease runs out): the next worker rewrites the others only."""
    store, queue, size, before, job = _old_table_and_its_job(clean_db)
    dead = queue.claim("killed", 0.2)
    assert dead is not None and dead.id == job.id
    assert store.rewrite_plain(
        job_id=job.id, worker_id="killed", game_id=GAME, family=FAMILY, chunk_index=1, done=1, total=3
    )  # its last write before it died
    while (claimed := queue.claim("next", 60)) is None:  # once its lease has run out
        threading.Event().wait(0.05)
    assert claimed.id == job.id and queue.release(job.id, "next")
    no_solve(monkeypatch)
    rewrites = count_rewrites(monkeypatch)
    run_all(clean_db)
    done = queue.get(job.id)
    assert done is not None and (done.status, done.done, done.total) == ("done", 3, 3)
    assert rewrites == [0, 2] and forms(clean_db) == [True, True, True]
    assert read_everyway(store, GAME, FAMILY, size) == before
