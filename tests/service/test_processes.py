"""`nimbase serve --processes 2`, run as a user runs it: answers equal the single-value path, metrics
are summed over the processes, a killed process is replaced while the other answers, and SIGTERM stops
them all gracefully."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from nimbase.client import NimbaseClient
from nimbase.settings import Settings
from service.calls import GetValue
from service.convert import value_as_dict
from service.core import Nimbase
from tests.servers import TLS

PROCESSES = 2
POSITIONS = {
    "nim": ["3 5 7", "1 2 3", "100 1000000"],
    "subtraction:1,3,4": ["10", "7 12", "1000"],
    "wythoff": ["3,5", "4,7 1,2"],
    "bicolor-nim": ["2w1b 3w 4b", "2w 2w 2b 2b"],
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _servers(pid: int) -> list[int]:
    """The server processes of the parent `pid` (its spawned children, not multiprocessing's tracker nor
    a fork server; a child gone meanwhile, as the one just killed once reaped, is none)."""
    found = []
    for child in _children(pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if command and "resource_tracker" not in command and "forkserver" not in command:
            found.append(child)
    return found


@pytest.fixture(scope="module")
def server(
    database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[subprocess.Popen[bytes], int, int]]:
    grpc_port, http_port = _free_port(), _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "NIMBASE_GRPC_PORT": str(grpc_port),
        "NIMBASE_HTTP_PORT": str(http_port),
        "NIMBASE_HOST": "127.0.0.1",
        "NIMBASE_LOG_LEVEL": "WARNING",
        # The server's processes are what is tested here; each computes in itself, without live
        # processes of its own (tests/service/test_isolation.py), each of which would load every kernel.
        "NIMBASE_LIMITS_LIVE_PROCESSES": "0",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "cli", "serve", "--processes", str(PROCESSES)],
        env=env,
        cwd=tmp_path_factory.mktemp("elsewhere"),
    )
    try:
        deadline = time.monotonic() + 300  # ready once each process compiled its kernels (service.warm_up)
        while len(_servers(process.pid)) < PROCESSES or not _healthy(http_port):
            assert process.poll() is None, "the server stopped while starting"
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)
        yield process, grpc_port, http_port
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)


def _healthy(http_port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{http_port}/readyz", timeout=1, verify=TLS).status_code == 200
    except httpx.HTTPError:
        return False


def test_answers_equal_the_single_value_path(
    server: tuple[subprocess.Popen[bytes], int, int], db_engine: sa.Engine
) -> None:
    _, grpc_port, http_port = server
    service = Nimbase(Settings(), db_engine)
    with NimbaseClient(f"127.0.0.1:{grpc_port}") as client:
        for game, positions in POSITIONS.items():
            for position in positions:
                # Each process has its own caches: a value one computes live another may take from the
                # period it has certified, so `source` may differ; nothing else may.
                expected = _without_source(value_as_dict(service.get_value(GetValue(game, position))))
                for _ in range(4):  # new connections land on either process
                    with httpx.Client(base_url=f"http://127.0.0.1:{http_port}") as http:
                        reply = http.get("/v1/value", params={"game": game, "position": position}).json()
                    assert _without_source(reply) == expected
                assert _without_source(client.get_value(game, position)) == expected


def _without_source(value: Mapping[str, object]) -> dict[str, object]:
    return {key: item for key, item in value.items() if key != "source"}


def test_metrics_are_summed_over_the_processes(server: tuple[subprocess.Popen[bytes], int, int]) -> None:
    _, _, http_port = server
    base = f"http://127.0.0.1:{http_port}"

    def count() -> float:
        for line in httpx.get(f"{base}/metrics").text.splitlines():
            if line.startswith("nimbase_requests_total{") and 'method="GET /v1/games"' in line:
                return float(line.rsplit(" ", 1)[1])
        return 0.0

    before = count()
    for _ in range(20):  # one connection each: the kernel spreads them over both processes
        with httpx.Client(base_url=base) as http:
            http.get("/v1/games").raise_for_status()
    assert count() - before == 20


def test_a_killed_process_is_replaced_while_the_other_answers(
    server: tuple[subprocess.Popen[bytes], int, int],
) -> None:
    process, _, http_port = server
    pid = process.pid
    first = _servers(pid)
    os.kill(first[0], signal.SIGKILL)
    answered = 0
    deadline = time.monotonic() + 180  # the new process is ready once it compiled its kernels
    while time.monotonic() < deadline:
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{http_port}", verify=TLS) as http:
                answered += (
                    http.get("/v1/value", params={"game": "nim", "position": "1 2"}).status_code == 200
                )
        except httpx.TransportError:
            pass  # a connection the killed process had accepted
        replaced = [child for child in _servers(pid) if child not in first]
        if replaced and _healthy(http_port) and answered >= 10:
            break
        time.sleep(0.05)
    assert answered >= 10
    assert len(_servers(pid)) == PROCESSES and [c for c in _servers(pid) if c not in first]


def test_sigterm_stops_every_process(server: tuple[subprocess.Popen[bytes], int, int]) -> None:
    process, _, _ = server
    children = _servers(process.pid)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0
    assert not _alive(children)


def _alive(pids: list[int]) -> bool:
    """Whether any of `pids` still runs (a zombie does not)."""
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            return True
    return False
