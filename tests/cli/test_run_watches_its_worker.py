"""`nimbase run` watches its worker (issue 32, finding 6): a SIGKILLed worker stayed a zombie, with no log
line and no restart, its job `running` for good. Now the worker that dies is logged and started again,
its job put back in the queue at once (its lease is long: not at its expiry), and the next worker resumes
it from its checkpoints to the very table an uninterrupted solve makes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine.registry import parse_game_id, plan_stored
from engine.stored_bytes import decode_words
from kinds.chess.kind import TableKernel
from kinds.chess.tables import parse_material
from storage.checkpoints import CheckpointStore
from storage.jobs import JobQueue
from storage.sequences import SequenceStore

REPO = Path(__file__).resolve().parents[2]
GAME = "chess:KQvKR"
TABLE = "table"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def table(name: str) -> bytes:
    kernel = TableKernel(parse_material(name))
    kernel.give({need: table(need.game_id.partition(":")[2]) for need in kernel.needs()})
    return kernel.make()


def wait_for(what: str, ready: object, seconds: float, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while not ready():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"{what}\n{log.read_text()}"
        time.sleep(0.1)


@pytest.mark.e2e
def test_a_killed_worker_is_started_again_and_its_job_taken_back_at_once(
    clean_db: sa.Engine, database_url: str, tmp_path: Path
) -> None:
    queue = JobQueue(clean_db)
    job = queue.submit_plan(parse_game_id(GAME).plan_job(0, False, TABLE), plan_stored)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NIMBASE_")}
    env |= {
        "DATABASE_URL": database_url,
        "NIMBASE_HOST": "127.0.0.1",
        "NIMBASE_GRPC_PORT": str(free_port()),
        "NIMBASE_HTTP_PORT": str(free_port()),
        "NIMBASE_LIMITS_LIVE_PROCESSES": "0",  # a light server: the machine runs other tests
        "NIMBASE_AUTO_JOBS": "0",
        "NIMBASE_WORKER_LEASE_SECONDS": "120",  # taken back at once, not when this runs out
        "NIMBASE_WORKER_CHECKPOINT_SECONDS": "0",
        "NIMBASE_LOG_LEVEL": "INFO",
    }
    log = tmp_path / "run.log"
    with log.open("wb") as out:
        run = subprocess.Popen(
            [sys.executable, "-m", "cli", "run", "--processes", "1"],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for("no checkpoint", lambda: CheckpointStore(clean_db).count(GAME, TABLE) > 0, 600, log)
        running = queue.get(job.id)
        assert running is not None and running.status == "running"
        (worker,) = workers(run.pid)
        os.kill(worker, signal.SIGKILL)

        def taken_back() -> bool:
            seen = queue.get(job.id)
            assert seen is not None
            return seen.status == "queued" or seen.lease_owner != running.lease_owner

        wait_for("the job was not taken back", taken_back, 20, log)
        wait_for("no new worker", lambda: any(pid != worker for pid in workers(run.pid)), 20, log)

        def done() -> bool:
            seen = queue.get(job.id)
            assert seen is not None and seen.status != "failed", seen
            return seen.status == "done"

        wait_for("the job did not finish", done, 600, log)
    finally:
        os.killpg(run.pid, signal.SIGTERM)
        try:
            run.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    text = log.read_text()
    assert f"the worker (pid {worker}) was killed by signal 9; jobs {job.id} back in the queue" in text
    assert f"job {job.id}: resuming from" in text
    info = SequenceStore(clean_db).info(GAME, TABLE)
    assert info is not None
    stored = decode_words(SequenceStore(clean_db).read_prefix(GAME, TABLE, info.computed_upto))
    assert stored == table("KQvKR")


def workers(pid: int) -> list[int]:
    """The ids of the `nimbase worker` processes `pid` started (its children, from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        parent = int(stat.rpartition(")")[2].split()[1])
        if parent == pid and b"worker" in cmdline:
            found.append(int(entry.name))
    return found
