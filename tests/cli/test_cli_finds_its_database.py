"""The CLI finds the database `make run` started, from any directory: both default NIMBASE_VAR_DIR to the
user data directory. A formula's answer needs no database at all, and `--server URL` (or NIMBASE_SERVER)
asks a running server, over REST for an http:// URL and gRPC for HOST:PORT."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.cli.test_cli import NIM_357, free_port, in_process, nimbase, one_line_error

REPO = Path(__file__).resolve().parents[2]
#: How long `nimbase run` may take to create the embedded database, migrate it and serve.
START_SECONDS = 240


def test_make_run_leaves_the_data_directory_to_nimbase() -> None:
    """`make run` and `make migrate` set no NIMBASE_VAR_DIR of their own: the default is nimbase's, the
    same the CLI has wherever it runs."""
    makefile = (REPO / "Makefile").read_text()
    for targets, _ in re.findall(r"^([\w .-]+):\s*export\s+NIMBASE_VAR_DIR\b(.*)$", makefile, re.MULTILINE):
        assert not {"run", "migrate"} & set(targets.split()), targets
    assert re.search(r"^run:.*\n\t\$\(BIN\)/nimbase run$", makefile, re.MULTILINE)


def test_a_formula_needs_no_database(tmp_path: Path) -> None:
    """Nothing was ever started: Nim's value, its best moves and its main line are answered all the same,
    and nothing is created; what needs the database still says so."""
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    cwd.mkdir()
    env = {"HOME": str(home), "XDG_DATA_HOME": ""}
    value = nimbase(cwd, "value", "nim", "3", "5", "7", **env)
    assert value.returncode == 0, value.stderr
    assert json.loads(value.stdout) == NIM_357
    best = in_process(cwd, "best-move", "nim", "3 5 7", "--choose", "random", "--seed", "7", **env)
    assert best.returncode == 0, best.stderr
    assert json.loads(best.stdout)["best_move"]["best"] is True
    line = in_process(cwd, "mainline", "nim", "3 5 7", **env)
    assert line.returncode == 0, line.stderr
    assert len(json.loads(line.stdout)["moves"]) == 15
    sequence = in_process(cwd, "sequence", "nim", "--stop", "4", **env)
    assert json.loads(sequence.stdout)["values"] == [0, 1, 2, 3]
    bad = one_line_error(in_process(cwd, "value", "nim", "x", **env))
    assert bad.startswith("nimbase: INVALID_ARGUMENT: ") and "'x'" in bad
    data = home / ".local" / "share" / "nimbase"
    missing = f"nimbase: no nimbase database at {data}: run `nimbase migrate` (or `make run`) first"
    assert one_line_error(in_process(cwd, "value", "octal:0.77", "100", **env)) == missing
    assert one_line_error(in_process(cwd, "stats", "nim", **env)) == missing
    assert not home.exists() and list(cwd.iterdir()) == []


@dataclass
class Running:
    """`nimbase run` as `make run` starts it, with its ports and its user's home."""

    home: Path
    grpc: int
    http: int


@pytest.fixture(scope="module")
def running() -> Iterator[Running]:
    """`nimbase run` started in the repository (as `make run` runs it: no NIMBASE_VAR_DIR, no
    DATABASE_URL), for a user whose home is a fresh directory (short: PostgreSQL's socket lives there)."""
    home = Path(tempfile.mkdtemp(prefix="nbh"))
    grpc_port, http_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NIMBASE_") and k != "DATABASE_URL"}
    env |= {
        "HOME": str(home),
        "XDG_DATA_HOME": "",
        "NIMBASE_HOST": "127.0.0.1",
        "NIMBASE_GRPC_PORT": str(grpc_port),
        "NIMBASE_HTTP_PORT": str(http_port),
        "NIMBASE_LIMITS_LIVE_PROCESSES": "0",  # a light server: the machine runs other tests
        "NIMBASE_AUTO_JOBS": "0",
    }
    log = (home / "run.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "cli", "run", "--processes", "1"],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    data = home / ".local" / "share" / "nimbase" / "postgres"
    try:
        deadline = time.monotonic() + START_SECONDS
        with httpx.Client(timeout=5) as http:  # one client: each makes a TLS context, 30 ms of CPU
            while True:
                try:
                    if http.get(f"http://127.0.0.1:{http_port}/readyz").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert server.poll() is None and time.monotonic() < deadline, (home / "run.log").read_text()
                time.sleep(0.5)
        yield Running(home, grpc_port, http_port)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        _stop_postgres(data)
        shutil.rmtree(home, ignore_errors=True)


def _stop_postgres(data: Path) -> None:
    """Stop the embedded PostgreSQL `nimbase run` started under `data` (it outlives its starter), by the
    postmaster's own pid."""
    pid_file = data / "postmaster.pid"
    if not pid_file.is_file():
        return
    pid = int(pid_file.read_text().split()[0])
    try:
        os.kill(pid, signal.SIGINT)  # fast shutdown
    except ProcessLookupError:
        return
    until = time.monotonic() + 30
    while pid_file.exists() and time.monotonic() < until:
        time.sleep(0.2)


def test_the_cli_finds_the_database_make_run_started(running: Running, tmp_path: Path) -> None:
    """From another directory, with no variable set, the CLI answers on the database `nimbase run`
    created under the user data directory: a live answer needs it."""
    assert (running.home / ".local" / "share" / "nimbase" / "postgres" / "PG_VERSION").is_file()
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    env = {"HOME": str(running.home), "XDG_DATA_HOME": ""}
    done = nimbase(cwd, "value", "octal:0.77", "100", **env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["grundy"] == 1  # Kayles: G(100) = 1
    jobs = nimbase(cwd, "jobs", **env)
    assert jobs.returncode == 0, jobs.stderr
    assert list(cwd.iterdir()) == []


def test_server_url_asks_the_running_server(running: Running, tmp_path: Path) -> None:
    """`--server http://...` goes through REST, `--server HOST:PORT` through gRPC, NIMBASE_SERVER like
    --server: the same JSON as the local answer, from a home with no database of its own."""
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    env = {"HOME": str(tmp_path / "nobody"), "XDG_DATA_HOME": ""}
    rest_url, grpc_target = f"http://127.0.0.1:{running.http}", f"127.0.0.1:{running.grpc}"
    answers = [
        nimbase(cwd, "value", "octal:0.77", "100", "--server", rest_url, **env),
        in_process(cwd, "value", "octal:0.77", "100", "--server", grpc_target, **env),
        in_process(cwd, "value", "octal:0.77", "100", NIMBASE_SERVER=rest_url, **env),
        in_process(cwd, "value", "octal:0.77", "100", NIMBASE_SERVER=grpc_target, **env),
    ]
    for answer in answers:
        assert answer.returncode == 0, answer.stderr
    assert len({json.dumps(json.loads(a.stdout)["grundy"]) for a in answers}) == 1
    line = in_process(cwd, "mainline", "nim", "1 2", "--server", rest_url, **env)
    assert json.loads(line.stdout)["end"] == "terminal"
    assert not (tmp_path / "nobody").exists()
