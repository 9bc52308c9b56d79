"""Checkpoints of objects made whole (a chess table's solve): a worker killed part way loses at most the
stage in flight. The child forwards each record to the worker, which stores it under the job lease; the
next worker to take the job up resumes from the stored records and stores the very table an
uninterrupted solve stores; a worker that lost its lease writes none; none is left once the table is."""

from __future__ import annotations

import array
import fcntl
import logging
import os
import re
import signal
import subprocess
import sys
import termios
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sqlalchemy as sa

from engine.kind import ChecksPoints
from engine.precompute import StoredName
from engine.registry import parse_game_id, plan_stored
from engine.stored_bytes import decode_words
from kinds.chess.kind import TableKernel
from kinds.chess.tables import parse_material
from storage.checkpoints import CheckpointStore
from storage.jobs import Job, JobQueue
from storage.sequences import SequenceStore
from tests.storage.helpers import chunk_rows
from worker import runner
from worker.compute import ComputeError, Computer, KernelFailed
from worker.runner import Worker

REPO = Path(__file__).resolve().parents[2]
#: A material solved in one slice, in three stages: its records are its moves counted, its DTM, the slice.
GAME = "chess:KRvK"
TABLE = "table"
#: Bytes past a record that show the child went on sending (more than its progress messages meanwhile).
SOME = 4096


def submit(engine: sa.Engine) -> Job:
    """The job of GAME's table, queued after the job of the table it reads (KvK's)."""
    return JobQueue(engine).submit_plan(parse_game_id(GAME).plan_job(0, False, TABLE), plan_stored)


def table_kernel(name: str) -> TableKernel:
    kernel = TableKernel(parse_material(name))
    kernel.give({need: TableKernel(parse_material("KvK")).make() for need in kernel.needs()})
    return kernel


def inputs() -> dict[StoredName, bytes]:
    return {StoredName("chess:KvK", TABLE): TableKernel(parse_material("KvK")).make()}


def solved_records() -> list[bytes]:
    """GAME's records, from an uninterrupted solve in this process."""
    kernel = table_kernel("KRvK")
    records: list[bytes] = []
    kernel.checkpoint = records.append
    kernel.make()
    return records


def nothing() -> None:
    pass


def no_progress(done: int, total: int) -> None:
    pass


def unread_bytes(conn: Connection) -> int:
    """Bytes the child sent that the worker has not read yet."""
    count = array.array("i", [0])
    fcntl.ioctl(conn.fileno(), termios.FIONREAD, count)
    return count[0]


def when_sent(computer: Computer, size: int) -> None:
    """Wait until the child has sent at least `size` bytes the worker has not read."""
    conn = computer._conn
    assert conn is not None
    deadline = time.monotonic() + 120
    while unread_bytes(conn) < size:
        assert time.monotonic() < deadline, "the child sent nothing"
        time.sleep(0.001)


# ---- the child and its pipe --------------------------------------------------------------------------


def test_the_table_kernel_checkpoints() -> None:
    assert isinstance(TableKernel(parse_material("KRvK")), ChecksPoints)
    assert not isinstance(parse_game_id("subtraction:1,3,4").kernel_for("heap"), ChecksPoints)


def test_the_child_forwards_each_record_and_resumes_from_them() -> None:
    computer = Computer(0)
    try:
        computer.use(GAME, TABLE, None, nothing, inputs())
        records: list[bytes] = []
        length = computer.length(no_progress, nothing, "solving", checkpoint=records.append)
        assert length is not None
        words, _ = computer.extend(length, nothing, "reading")
        assert records == solved_records()  # each record, whole and in order
        # A fresh kernel given the first two makes only the last stage again, and the same table.
        computer.use(GAME, TABLE, None, nothing, inputs())
        computer.resume(records[:2], nothing, "resuming")
        again: list[bytes] = []
        assert computer.length(no_progress, nothing, "solving", checkpoint=again.append) == length
        assert again == records[2:]
        assert np.array_equal(computer.extend(length, nothing, "reading")[0], words)
        # Without a callback the kernel is not asked for records.
        computer.use(GAME, TABLE, None, nothing, inputs())
        assert computer.length(no_progress, nothing, "solving") == length
        # A kernel that makes no checkpoints cannot be given any.
        computer.use("subtraction:1,3,4", "heap", None, nothing)
        with pytest.raises(KernelFailed, match="makes no checkpoints"):
            computer.resume(records, nothing, "resuming")
    finally:
        computer.close()


def test_records_of_tens_of_megabytes_cross_the_pipe() -> None:
    """A five-man solve's records take tens of megabytes: given back whole, they reach the kernel (which
    here finds they are no records of its own)."""
    computer = Computer(0)
    try:
        computer.use(GAME, TABLE, None, nothing, inputs())
        computer.resume([os.urandom(24 << 20), os.urandom(3 << 20)], nothing, "resuming")
        with pytest.raises(KernelFailed, match="CorruptCheckpoint: not a chess checkpoint"):
            computer.length(no_progress, nothing, "solving")
    finally:
        computer.close()


class Stop(Exception):
    """The job must stop (lease lost, worker shutting down)."""


def test_records_sent_before_a_stop_are_handed_over() -> None:
    """The job must stop once the child sent its first record and more, none of it read yet: the worker
    takes the records already sent (a record part sent, whole) before the child is killed."""
    expected = solved_records()
    computer = Computer(0)
    try:
        computer.use(GAME, TABLE, None, nothing, inputs())
        kept: list[bytes] = []

        def check() -> None:
            when_sent(computer, len(expected[0]) + SOME)
            raise Stop

        with pytest.raises(Stop):
            computer.length(no_progress, check, "solving", checkpoint=kept.append)
        assert kept and kept == expected[: len(kept)]
    finally:
        computer.close()


def test_a_record_sent_just_before_the_child_dies_is_kept() -> None:
    """The child is killed once its first record and more are in the pipe, none of it read yet: that
    record still reaches the worker, and no record cut short by the kill ever does."""
    expected = solved_records()
    computer = Computer(0)
    try:
        computer.use(GAME, TABLE, None, nothing, inputs())
        kept: list[bytes] = []
        killed = False

        def check() -> None:
            nonlocal killed
            process = computer._process
            if not killed and process is not None:
                when_sent(computer, len(expected[0]) + SOME)
                os.kill(process.pid, signal.SIGKILL)
                process.join()
                killed = True

        try:
            computer.length(no_progress, check, "solving", checkpoint=kept.append)
        except ComputeError as exc:  # it died before it was done (else it finished first: no matter)
            assert "killed by signal 9" in str(exc) or "died sending a checkpoint" in str(exc)
        assert killed and kept and kept == expected[: len(kept)]
    finally:
        computer.close()


# ---- workers ---------------------------------------------------------------------------------------


def start(
    database_url: str, log: Path, name: str, module: str = "worker", **env: str
) -> subprocess.Popen[bytes]:
    """A worker process (`python -m <module> --drain`) on the test database."""
    environ = dict(os.environ)
    environ.update(
        DATABASE_URL=database_url,
        NIMBASE_WORKER_LEASE_SECONDS="1.0",
        NIMBASE_WORKER_POLL_SECONDS="0.1",
        NIMBASE_WORKER_ID=name,
        NIMBASE_LOG_LEVEL="INFO",
        NIMBASE_WORKER_CHECKPOINT_SECONDS="0",  # each record stored as it comes, however short the solve
        **env,
    )
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", module, "--drain"],
            cwd=REPO,
            env=environ,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def lease_expired(engine: sa.Engine, job_id: int) -> bool:
    with engine.connect() as conn:
        return bool(
            conn.execute(
                sa.text("SELECT lease_expires_at < now() FROM jobs WHERE id = :id"), {"id": job_id}
            ).scalar_one()
        )


def test_a_killed_worker_loses_at_most_its_last_checkpoint(
    clean_db: sa.Engine, database_url: str, tmp_path: Path
) -> None:
    queue = JobQueue(clean_db)
    store = CheckpointStore(clean_db)
    job = submit(clean_db)
    # The first worker kills itself (SIGKILL) right after it stored the solve's second record.
    first = start(
        database_url,
        tmp_path / "first.log",
        "first",
        "tests.worker.killed_after_checkpoint",
        KILL_AFTER_GAME=GAME,
        KILL_AFTER_RECORDS="2",
    )
    try:
        assert first.wait(timeout=300) == -signal.SIGKILL, (tmp_path / "first.log").read_text()
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    killed = queue.get(job.id)
    assert killed is not None and (killed.status, killed.lease_owner) == ("running", "first")
    assert store.read(GAME, TABLE) == solved_records()[:2]
    assert SequenceStore(clean_db).info(GAME, TABLE) is None
    assert store.count("chess:KvK", TABLE) == 0  # the table it read was stored whole: its records gone

    deadline = time.monotonic() + 30
    while not lease_expired(clean_db, job.id):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    second = start(database_url, tmp_path / "second.log", "second")
    try:
        assert second.wait(timeout=300) == 0, (tmp_path / "second.log").read_text()
    finally:
        if second.poll() is None:
            second.kill()
            second.wait()
    log = (tmp_path / "second.log").read_text()
    assert f"job {job.id}: resuming from 2 checkpoint records" in log
    # Only the stage in flight was made again: the second worker stored the third record, no other.
    assert re.findall(rf"job {job.id}: stored checkpoint (\d+)", log) == ["2"]
    finished = queue.get(job.id)
    assert finished is not None and (finished.status, finished.attempts, finished.lease_owner) == (
        "done",
        2,
        "second",
    )
    assert store.count(GAME, TABLE) == 0
    info = SequenceStore(clean_db).info(GAME, TABLE)
    assert info is not None
    stored = decode_words(SequenceStore(clean_db).read_prefix(GAME, TABLE, info.computed_upto))
    assert stored == table_kernel("KRvK").make()

    # The same jobs run uninterrupted store the very same bytes.
    resumed = chunk_rows(clean_db)
    with clean_db.begin() as conn:
        conn.execute(sa.text("TRUNCATE sequence_chunks, sequences, jobs, job_checkpoints RESTART IDENTITY"))
    submit(clean_db)
    Worker(clean_db, worker_id="straight").run_until_idle(threading.Event())
    assert chunk_rows(clean_db) == resumed
    assert store.count(GAME, TABLE) == 0


def test_a_lease_lost_mid_solve_writes_no_checkpoint(
    clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="worker.runner")
    queue = JobQueue(clean_db)
    job = submit(clean_db)
    worker = Worker(clean_db, worker_id="w", checkpoint_seconds=0)
    try:
        assert worker.run_once()  # KvK's table
        append = CheckpointStore.append
        tried: list[int] = []

        def taken_over(self: CheckpointStore, **record: Any) -> None:
            tried.append(record["record"])
            with clean_db.begin() as conn:  # another worker took the job over in the meantime
                conn.execute(sa.text("UPDATE jobs SET lease_owner = 'thief' WHERE id = :id"), {"id": job.id})
            append(self, **record)

        monkeypatch.setattr(CheckpointStore, "append", taken_over)
        assert worker.run_once()
    finally:
        worker.close()
    assert tried == [0]  # the solve stopped at its first record
    assert CheckpointStore(clean_db).count(GAME, TABLE) == 0
    row = queue.get(job.id)
    assert row is not None and (row.status, row.lease_owner) == ("running", "thief")
    assert SequenceStore(clean_db).info(GAME, TABLE) is None
    assert f"lost the lease of job {job.id}" in caplog.text


def test_records_the_kernel_cannot_use_are_dropped_and_the_table_made_anew(
    clean_db: sa.Engine, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="worker.runner")
    queue = JobQueue(clean_db)
    store = CheckpointStore(clean_db)
    job = submit(clean_db)
    worker = Worker(clean_db, worker_id="w")
    try:
        assert worker.run_once()  # KvK's table
        # An attempt of another version left a record this one cannot read.
        claimed = queue.claim("old", 60)
        assert claimed is not None and claimed.id == job.id
        store.append(job_id=job.id, worker_id="old", game_id=GAME, family=TABLE, record=0, data=b"old format")
        assert queue.release(job.id, "old")
        assert worker.run_once()
    finally:
        worker.close()
    assert f"job {job.id}: resuming from 1 checkpoint records" in caplog.text
    assert "cannot be resumed from" in caplog.text
    done = queue.get(job.id)
    assert done is not None and (done.status, done.error) == ("done", None)
    assert store.count(GAME, TABLE) == 0
    info = SequenceStore(clean_db).info(GAME, TABLE)
    assert info is not None
    stored = decode_words(SequenceStore(clean_db).read_prefix(GAME, TABLE, info.computed_upto))
    assert stored == table_kernel("KRvK").make()


def test_a_solve_shorter_than_the_hold_stores_no_record(
    clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records are stored once a solve has computed NIMBASE_WORKER_CHECKPOINT_SECONDS of CPU: a short one (the
    records of which would be deleted with its object stored) writes none, and stores the same table."""
    appended: list[int] = []
    append = CheckpointStore.append

    def counted(self: CheckpointStore, **record: Any) -> None:
        appended.append(record["record"])
        append(self, **record)

    monkeypatch.setattr(CheckpointStore, "append", counted)
    job = submit(clean_db)
    Worker(clean_db, worker_id="held", checkpoint_seconds=300).run_until_idle(threading.Event())
    assert appended == []
    done = JobQueue(clean_db).get(job.id)
    assert done is not None and done.status == "done"
    info = SequenceStore(clean_db).info(GAME, TABLE)
    assert info is not None
    stored = decode_words(SequenceStore(clean_db).read_prefix(GAME, TABLE, info.computed_upto))
    assert stored == table_kernel("KRvK").make()


def test_records_held_for_the_hold_come_all_at_once_and_in_order() -> None:
    """A solve still running once the hold is over sends every record held until then, in order: with
    no hold at all, each as it comes; with a negative one, the call is refused."""
    computer = Computer(0)
    try:
        computer.use(GAME, TABLE, None, nothing, inputs())
        records: list[bytes] = []
        assert computer.length(no_progress, nothing, "solving", checkpoint=records.append, hold=0.0)
        assert records == solved_records()
        computer.use(GAME, TABLE, None, nothing, inputs())
        held: list[bytes] = []
        assert computer.length(no_progress, nothing, "solving", checkpoint=held.append, hold=300.0)
        assert held == []
        with pytest.raises(ValueError, match="hold must be >= 0 seconds, got -1"):
            computer.length(no_progress, nothing, "solving", checkpoint=held.append, hold=-1.0)
    finally:
        computer.close()


def test_an_object_made_whole_is_stored_in_whole_steps(
    clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its words are ready once it is made: they are written in steps of the worker's step from the start
    (not growing from FIRST_STEP, which would rewrite the first chunk at every step)."""
    monkeypatch.setattr(runner, "FIRST_STEP", 16)
    writes: list[tuple[str, int, int]] = []
    write = SequenceStore.write_extension

    def counted(self: SequenceStore, **args: Any) -> None:
        writes.append((args["game_id"], args["start"], len(args["values"])))
        write(self, **args)

    monkeypatch.setattr(SequenceStore, "write_extension", counted)
    submit(clean_db)
    Worker(clean_db, worker_id="whole", step_values=1 << 20).run_until_idle(threading.Event())
    length = len(table_kernel("KRvK").words())
    assert length > 16
    assert [write for write in writes if write[0] == GAME] == [(GAME, 0, length)]
