"""Stopping is not failing (issue 32, finding 2): SIGTERM or SIGINT to a worker, alone or with its process
group (a terminal's Ctrl-C), puts its running job back in the queue, its lease released and its
checkpoints kept, and the next worker resumes it to the very table an uninterrupted solve makes. A job
fails only for its own error, and its error names what happened: the signal or exit code of its computing
process, the memory cap only when it was hit."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine.precompute import StoredName
from engine.registry import parse_game_id, plan_stored
from engine.stored_bytes import decode_words
from kinds.chess.kind import TableKernel
from kinds.chess.tables import parse_material
from storage.checkpoints import CheckpointStore
from storage.jobs import Job, JobQueue
from storage.sequences import SequenceStore
from worker.compute import ComputeError, Computer

REPO = Path(__file__).resolve().parents[2]
#: A four-man material solved in one slice, in stages a few seconds apart: a signal sent once its first
#: record is stored reaches the worker while its child computes the next one.
GAME = "chess:KQvKR"
TABLE = "table"


def start(database_url: str, log: Path, name: str, *, drain: bool) -> subprocess.Popen[bytes]:
    """`python -m worker` in a process group of its own (as `make run`'s in a terminal)."""
    environ = dict(os.environ)
    environ.update(
        DATABASE_URL=database_url,
        NIMBASE_WORKER_LEASE_SECONDS="30",  # a job put back in the queue is not one whose lease ran out
        NIMBASE_WORKER_POLL_SECONDS="0.1",
        NIMBASE_WORKER_ID=name,
        NIMBASE_LOG_LEVEL="INFO",
        NIMBASE_WORKER_CHECKPOINT_SECONDS="0",
    )
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "worker", *(["--drain"] if drain else [])],
            cwd=REPO,
            env=environ,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def table(name: str) -> bytes:
    """The table of `name` made in this process, uninterrupted."""
    kernel = TableKernel(parse_material(name))
    kernel.give({need: table(need.game_id.partition(":")[2]) for need in kernel.needs()})
    return kernel.make()


def stop_after_first_record(
    engine: sa.Engine, database_url: str, log: Path, send: tuple[bool, signal.Signals]
) -> Job:
    """Run GAME's job in a worker and send it `send` (to its process group or to it alone, and which
    signal) once the solve stored its first checkpoint; the job as it is once the worker has exited."""
    queue = JobQueue(engine)
    job = queue.submit_plan(parse_game_id(GAME).plan_job(0, False, TABLE), plan_stored)
    worker = start(database_url, log, "first", drain=False)
    try:
        deadline = time.monotonic() + 600
        while CheckpointStore(engine).count(GAME, TABLE) == 0:
            assert worker.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        group, signum = send
        if group:
            os.killpg(worker.pid, signum)
        else:
            worker.send_signal(signum)
        assert worker.wait(timeout=60) == 0, log.read_text()
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
    stopped = queue.get(job.id)
    assert stopped is not None
    return stopped


def test_sigterm_to_the_process_group_puts_the_job_back_and_the_next_worker_resumes_it(
    clean_db: sa.Engine, database_url: str, tmp_path: Path
) -> None:
    stopped = stop_after_first_record(clean_db, database_url, tmp_path / "first.log", (True, signal.SIGTERM))
    log = (tmp_path / "first.log").read_text()
    assert (stopped.status, stopped.lease_owner, stopped.lease_expires_at, stopped.error) == (
        "queued",
        None,
        None,
        None,
    ), log
    kept = CheckpointStore(clean_db).count(GAME, TABLE)
    assert kept >= 1

    second = start(database_url, tmp_path / "second.log", "second", drain=True)
    try:
        assert second.wait(timeout=600) == 0, (tmp_path / "second.log").read_text()
    finally:
        if second.poll() is None:
            os.killpg(second.pid, signal.SIGKILL)
            second.wait()
    resumed = (tmp_path / "second.log").read_text()
    assert re.search(rf"job {stopped.id}: resuming from {kept} checkpoint records", resumed), resumed
    done = JobQueue(clean_db).get(stopped.id)
    assert done is not None and (done.status, done.error) == ("done", None)
    info = SequenceStore(clean_db).info(GAME, TABLE)
    assert info is not None
    stored = decode_words(SequenceStore(clean_db).read_prefix(GAME, TABLE, info.computed_upto))
    assert stored == table("KQvKR")
    assert CheckpointStore(clean_db).count(GAME, TABLE) == 0


def test_sigint_to_the_worker_alone_puts_the_job_back(
    clean_db: sa.Engine, database_url: str, tmp_path: Path
) -> None:
    stopped = stop_after_first_record(clean_db, database_url, tmp_path / "first.log", (False, signal.SIGINT))
    assert (stopped.status, stopped.lease_owner, stopped.error) == ("queued", None, None)
    assert CheckpointStore(clean_db).count(GAME, TABLE) >= 1


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGSEGV])
def test_a_child_killed_by_a_signal_the_worker_did_not_get_names_it_not_the_cap(
    signum: signal.Signals,
) -> None:
    """The child is killed from outside while it solves: a failure, named by its signal; far below its
    memory cap, the cap is not named."""
    computer = Computer(4 << 30)
    inputs = {StoredName("chess:KvK", TABLE): table("KvK")}
    try:
        computer.use("chess:KRvK", TABLE, None, lambda: None, inputs)

        def kill(done: int, total: int) -> None:
            process = computer._process
            assert process is not None and process.pid is not None
            os.kill(process.pid, signum)

        with pytest.raises(ComputeError) as raised:
            computer.length(kill, lambda: None, "making 'chess:KRvK' whole")
    finally:
        computer.close()
    message = str(raised.value)
    assert f"was killed by signal {int(signum)} ({signum.name})" in message, message
    assert "memory cap" not in message, message
