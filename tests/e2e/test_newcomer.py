"""The newcomer's hour (issue 32): `nimbase run` on a fresh machine (a fresh NIMBASE_VAR_DIR, an empty numba
cache, a fresh home) says it is ready and then answers one question of every shipped kind at once without
an error; stopped by SIGINT to its process group (a terminal's Ctrl-C) while a chess table is solved, and
started again, it finishes that table byte for byte as an uninterrupted solve does, and GetStats of it
answers within its deadline. Nothing fails on the way.

Marked slow besides e2e: every kernel compiles from nothing, in the server, its live process and the
worker's child (minutes on a busy machine)."""

from __future__ import annotations

import concurrent.futures
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from engine.registry import list_games
from engine.stored_bytes import decode_words
from kinds.chess.kind import TableKernel
from kinds.chess.tables import parse_material
from nimbase.client import NimbaseClient
from storage.checkpoints import CheckpointStore
from storage.database import create_engine
from storage.embedded import database_url
from storage.sequences import SequenceStore
from tests.e2e.processes import ADMIN_TOKEN, REPO, free_port

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(3600)]

#: The chess table the run is stopped in the middle of: one slice, solved in stages seconds apart.
MATERIAL = "KQvKR"
GAME = f"chess:{MATERIAL}"
#: The deadline of the questions asked at once.
DEADLINE_SECONDS = 120
#: A cold first start compiles every kernel: this long at most, on a busy machine.
READY_SECONDS = 1800
#: The graph uploaded so that `graph:NAME` has one to play on.
GRAPH_NAME = "newcomer"
ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}
GRAPH = {"name": GRAPH_NAME, "vertices": ["a", "b", "c"], "edges": [["a", "b"], ["b", "c"]]}


class Run:
    """`nimbase run` in a process group of its own, its output in a log."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.log = log
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "cli", "run", "--processes", "1"],
                cwd=REPO,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_ready(self, http: str) -> None:
        """Until /readyz is 200 and run printed its line with the URLs."""
        deadline = time.monotonic() + READY_SECONDS
        while True:
            assert self.process.poll() is None, self.log.read_text()
            assert time.monotonic() < deadline, self.log.read_text()
            try:
                if httpx.get(f"{http}/readyz", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        while "nimbase is ready after" not in self.log.read_text():
            assert time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.2)

    def interrupt(self) -> None:
        """SIGINT to the whole process group, as Ctrl-C in a terminal; waits for it to exit."""
        os.killpg(self.process.pid, signal.SIGINT)
        assert self.process.wait(120) == 0, self.log.read_text()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


@pytest.fixture
def machine() -> Iterator[tuple[dict[str, str], Path]]:
    """A fresh machine: its home, data directory and numba cache empty (short paths: PostgreSQL's socket
    lives there)."""
    root = Path(tempfile.mkdtemp(prefix="nbn"))
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("NIMBASE_", "NUMBA_")) and k != "DATABASE_URL"
    }
    env |= {
        "HOME": str(root / "h"),
        "XDG_DATA_HOME": "",
        "NIMBASE_VAR_DIR": str(root / "v"),
        "NUMBA_CACHE_DIR": str(root / "n"),
        "NIMBASE_HOST": "127.0.0.1",
        "NIMBASE_GRPC_PORT": str(free_port()),
        "NIMBASE_HTTP_PORT": str(free_port()),
        "NIMBASE_ADMIN_TOKEN": ADMIN_TOKEN,
        # A busy test machine runs the live processes at the lowest priority: the questions asked at once
        # get the time to queue for them.
        "NIMBASE_LIMITS_REQUEST_SECONDS": str(DEADLINE_SECONDS),
        "NIMBASE_WORKER_CHECKPOINT_SECONDS": "0",  # each stage's record stored as it comes
        "PYTHONUNBUFFERED": "1",
    }
    for name in ("h", "v", "n"):
        (root / name).mkdir()
    try:
        yield env, root
    finally:
        stop_postgres(root / "v" / "postgres")


def stop_postgres(data: Path) -> None:
    pid_file = data / "postmaster.pid"
    if not pid_file.is_file():
        return
    try:
        os.kill(int(pid_file.read_text().split()[0]), signal.SIGINT)
    except ProcessLookupError:
        return
    until = time.monotonic() + 30
    while pid_file.exists() and time.monotonic() < until:
        time.sleep(0.2)


def table(name: str) -> bytes:
    kernel = TableKernel(parse_material(name))
    kernel.give({need: table(need.game_id.partition(":")[2]) for need in kernel.needs()})
    return kernel.make()


def question(http: str, game: str, position: str) -> tuple[str, int, str]:
    reply = httpx.get(
        f"{http}/v1/value",
        params={"game": game, "position": position},
        headers={"x-deadline-ms": str(DEADLINE_SECONDS * 1000)},
        timeout=DEADLINE_SECONDS + 30,
    )
    return game, reply.status_code, reply.text[:300]


def test_the_newcomers_hour(machine: tuple[dict[str, str], Path]) -> None:
    env, root = machine
    http = f"http://127.0.0.1:{env['NIMBASE_HTTP_PORT']}"
    grpc = f"127.0.0.1:{env['NIMBASE_GRPC_PORT']}"
    log = root / "run.log"

    first = Run(env, log)
    try:
        first.wait_ready(http)
        assert httpx.post(f"{http}/v1/graphs", json=GRAPH, timeout=60, headers=ADMIN).status_code in (
            200,
            201,
        )
        asked = [
            (info.id.replace("NAME", GRAPH_NAME), info.examples[0]) for info in list_games() if info.examples
        ]
        with concurrent.futures.ThreadPoolExecutor(len(asked)) as pool:
            answers = list(pool.map(lambda q: question(http, *q), asked))
        assert [a for a in answers if a[1] != 200] == []

        with NimbaseClient(grpc, token=ADMIN_TOKEN, timeout=60) as client:
            # The default set `run` queued is not what this test waits for: out of the way first.
            for job in client.list_jobs()["jobs"]:
                if job["status"] in ("queued", "running"):
                    client.cancel_job(job["id"])
            job = client.submit_job(GAME, 0, family="table")
            deadline = time.monotonic() + READY_SECONDS
            engine = create_engine(database_url(None, root / "v"))  # the database run started
            try:
                while CheckpointStore(engine).count(GAME, "table") == 0:  # its first stage solved
                    seen = client.get_job(job["id"])
                    assert seen["status"] in ("queued", "running"), seen
                    assert time.monotonic() < deadline, log.read_text()
                    time.sleep(0.2)
            finally:
                engine.dispose()
        first.interrupt()
    finally:
        first.stop()

    second = Run(env, log)
    try:
        second.wait_ready(http)
        with NimbaseClient(grpc, token=ADMIN_TOKEN, timeout=60) as client:
            deadline = time.monotonic() + READY_SECONDS
            while (seen := client.get_job(job["id"]))["status"] != "done":
                assert seen["status"] in ("queued", "running"), (seen, log.read_text())
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.5)
            stats = client.get_stats(GAME)
            assert stats["game"] == GAME
        url = database_url(None, root / "v")
        engine = create_engine(url)
        try:
            store = SequenceStore(engine)
            info = store.info(GAME, "table")
            assert info is not None
            assert decode_words(store.read_prefix(GAME, "table", info.computed_upto)) == table(MATERIAL)
        finally:
            engine.dispose()
    finally:
        second.stop()
    text = log.read_text()
    assert f"job {job['id']}: resuming from" in text, text
    assert "Traceback" not in text, text
