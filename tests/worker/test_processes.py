"""Worker processes (`python -m worker`): SIGKILL mid-job and several workers on one queue."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa

from engine.registry import parse_game_id
from storage.jobs import JobQueue
from storage.sequences import SequenceStore
from tests.storage.helpers import chunk_rows
from worker.runner import Worker

REPO = Path(__file__).resolve().parents[2]
GAME = "subtraction:1,3,4"


def start_worker(
    database_url: str, log: Path, *, lease: float, step: int, name: str, drain: bool = False
) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url,
        NIMBASE_WORKER_LEASE_SECONDS=str(lease),
        NIMBASE_WORKER_STEP=str(step),
        NIMBASE_WORKER_POLL_SECONDS="0.1",
        NIMBASE_WORKER_ID=name,
    )
    args = [sys.executable, "-m", "worker", *(["--drain"] if drain else [])]
    with log.open("wb") as out:
        return subprocess.Popen(args, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)


def sequence_row(engine: sa.Engine) -> tuple[object, ...]:
    with engine.connect() as conn:
        row = conn.execute(
            sa.text(
                "SELECT game_id, family, computed_upto, max_value, max_value_at, preperiod, period, "
                "saltus, certified FROM sequences ORDER BY game_id, family"
            )
        ).all()
    return tuple(tuple(r) for r in row)


def test_sigkill_mid_job_resumes_from_the_checkpoint(
    clean_db: sa.Engine, database_url: str, tmp_path: Path
) -> None:
    upto = 3_000_000
    queue = JobQueue(clean_db)
    job = queue.submit(GAME, "heap", upto, fill=True)
    stop = threading.Event()

    first = start_worker(database_url, tmp_path / "first.log", lease=1.0, step=8192, name="first")
    try:
        while (seen := queue.get(job.id)) is not None and seen.done < upto // 10:
            assert first.poll() is None, (tmp_path / "first.log").read_text()
            stop.wait(0.02)
        first.send_signal(signal.SIGKILL)
        first.wait()
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    killed = queue.get(job.id)
    assert killed is not None and killed.status == "running" and killed.lease_owner == "first"
    checkpoint = killed.done
    assert 0 < checkpoint < upto

    second = start_worker(database_url, tmp_path / "second.log", lease=1.0, step=65536, name="second")
    observed: list[int] = []
    try:
        while (seen := queue.get(job.id)) is not None and seen.status == "running":
            if seen.lease_owner == "second":
                observed.append(seen.done)
            assert second.poll() is None, (tmp_path / "second.log").read_text()
            stop.wait(0.02)
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=30)
    log = (tmp_path / "second.log").read_text()
    finished = queue.get(job.id)
    assert finished is not None and (finished.status, finished.done, finished.attempts) == ("done", upto, 2)
    assert finished.lease_owner == "second"
    resumed = re.search(rf"job {job.id}: resuming at (\d+) of {upto}\n", log)
    assert resumed is not None, log
    # at the checkpoint seen, or a later one: the killed worker's COMMIT, sent before the kill, may be
    # carried out by its database session after the process is gone and the job read here
    assert checkpoint <= int(resumed.group(1)) < upto, log
    assert all(done >= checkpoint for done in observed)

    resumed_chunks, resumed_row = chunk_rows(clean_db), sequence_row(clean_db)
    values = SequenceStore(clean_db).read_prefix(GAME, "heap", upto)
    kernel = parse_game_id(GAME).kernel_for("heap")
    assert kernel is not None
    assert np.array_equal(values, kernel.extend(np.zeros(0, dtype=np.uint32), upto))

    # The same job run uninterrupted (other step size, in-process) stores the very same bytes.
    with clean_db.begin() as conn:
        conn.execute(sa.text("TRUNCATE sequence_chunks, sequences, jobs RESTART IDENTITY CASCADE"))
    queue.submit(GAME, "heap", upto, fill=True)
    Worker(clean_db, worker_id="straight").run_until_idle(threading.Event())
    assert chunk_rows(clean_db) == resumed_chunks
    assert sequence_row(clean_db) == resumed_row


def test_worker_processes_never_share_a_job(clean_db: sa.Engine, database_url: str, tmp_path: Path) -> None:
    queue = JobQueue(clean_db)
    games = [f"subtraction:1,{k}" for k in range(2, 12)]
    ids = [queue.submit(game, "heap", 100_000, fill=True).id for game in games]
    # Several jobs of one sequence: they must run one after another, never side by side.
    ids += [queue.submit(GAME, "heap", upto, fill=True).id for upto in (100_000, 300_000, 200_000, 400_000)]
    names = ["p1", "p2"]
    workers = [
        start_worker(database_url, tmp_path / f"{n}.log", lease=5, step=16384, name=n, drain=True)
        for n in names
    ]
    for process, name in zip(workers, names, strict=True):
        assert process.wait(timeout=60) == 0, (tmp_path / f"{name}.log").read_text()
    ran: dict[str, set[int]] = {name: set() for name in names}
    for job_id in ids:
        job = queue.get(job_id)
        assert job is not None and job.status == "done" and job.attempts == 1, job
        assert job.lease_owner in ran
        ran[job.lease_owner].add(job_id)
    assert set().union(*ran.values()) == set(ids)
    for name, log in ((n, (tmp_path / f"{n}.log").read_text()) for n in names):
        claimed = {
            int(line.split("running job ")[1].split()[0])
            for line in log.splitlines()
            if "running job" in line
        }
        assert claimed == ran[name]  # each process ran exactly the jobs recorded as its own
    store = SequenceStore(clean_db)
    for game in [*games, GAME]:
        kernel = parse_game_id(game).kernel_for("heap")
        assert kernel is not None
        info = store.info(game, "heap")
        assert info is not None
        expected = kernel.extend(np.zeros(0, dtype=np.uint32), info.computed_upto)
        assert np.array_equal(store.read_prefix(game, "heap", info.computed_upto), expected)
    assert store.info(GAME, "heap").computed_upto == 400_000  # type: ignore[union-attr]


def _children(pid: int) -> list[int]:
    """The live child processes of `pid` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc for the worker's processes")
def test_a_killed_worker_leaves_no_computation_behind(
    clean_db: sa.Engine, database_url: str, tmp_path: Path
) -> None:
    """The worker computes in a child process (started by a fork server): SIGKILL the worker mid-step and
    the child stops too, instead of computing on for nobody."""
    queue = JobQueue(clean_db)
    job = queue.submit("bicolor-nim", "G[20w20b;b]", 1_000_000)
    worker = start_worker(database_url, tmp_path / "w.log", lease=1.0, step=1 << 20, name="doomed")
    stop = threading.Event()
    try:
        while (seen := queue.get(job.id)) is None or seen.done == 0:
            assert worker.poll() is None, (tmp_path / "w.log").read_text()
            stop.wait(0.05)
        computing = [child for server in _children(worker.pid) for child in _children(server)]
        assert computing, "no computing process found"
        worker.send_signal(signal.SIGKILL)
        worker.wait()
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in computing):
        assert time.monotonic() < deadline, f"computing processes {computing} outlived their worker"
        stop.wait(0.1)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
