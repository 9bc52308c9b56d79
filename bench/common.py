"""What the benchmarks share: a fresh database, real server processes, and figure printing."""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import httpx
from sqlalchemy import text

from nimbase.settings import Settings
from storage.database import create_engine
from storage.embedded import database_url
from storage.migrate import upgrade_head

ADMIN_TOKEN = "bench-token"
#: How long a server may take to be ready: its live processes start (imports, numba caches) at a low
#: priority, which on a busy machine takes minutes.
START_SECONDS = 300


def figure(name: str, value: float, unit: str) -> None:
    """One line per measured figure, easy to read and to grep."""
    print(f"{name:<58} {value:>14,.3f} {unit}", flush=True)


@contextmanager
def fresh_database(settings: Settings | None = None) -> Iterator[str]:
    """A new, migrated database on the settings' server (DATABASE_URL, else the embedded one under
    NIMBASE_VAR_DIR; `Settings.from_env()` when not given), dropped afterwards."""
    settings = settings if settings is not None else Settings.from_env()
    server_url = database_url(settings.database_url, settings.var_dir)
    name = f"nimbase_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(server_url).execution_options(isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    head, _, query = server_url.partition("?")
    url = head.rsplit("/", 1)[0] + "/" + name + (f"?{query}" if query else "")
    upgrade_head(url)
    try:
        yield url
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server(NamedTuple):
    """A running `nimbase serve`: where to reach it, and its process (for CPU figures)."""

    target: str
    base: str
    pid: int


@contextmanager
def running_server(
    url: str,
    processes: int = 1,
    settings: Mapping[str, str] | None = None,
    command: Sequence[str] | None = None,
    ready_seconds: float = START_SECONDS,
    tree: Path | None = None,
) -> Iterator[Server]:
    """`nimbase serve --processes N` on loopback (one process unless told), with more `settings`
    (NIMBASE_* variables) if given, stopped afterwards; `command` (python's arguments) serves another
    way, such as a bench's previous path; `tree`, a previous commit's checkout, serves that commit's code
    (run from there, so its live processes' fork server imports it too); waits `ready_seconds` for
    /readyz."""
    grpc_port, http_port = free_port(), free_port()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "NIMBASE_GRPC_PORT": str(grpc_port),
        "NIMBASE_HTTP_PORT": str(http_port),
        "NIMBASE_HOST": "127.0.0.1",
        "NIMBASE_ADMIN_TOKEN": ADMIN_TOKEN,
        "NIMBASE_LOG_LEVEL": "WARNING",
        **(settings or {}),
        **({} if tree is None else {"PYTHONPATH": str(tree)}),
    }
    arguments = command or ["-m", "cli", "serve", "--processes", str(processes)]
    process = subprocess.Popen([sys.executable, *arguments], env=env, cwd=tree)
    http = f"http://127.0.0.1:{http_port}"
    try:
        deadline = time.monotonic() + ready_seconds
        while True:
            try:
                if httpx.get(f"{http}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("the server did not start")
            time.sleep(0.2)
        yield Server(f"127.0.0.1:{grpc_port}", http, process.pid)
    finally:
        process.terminate()
        process.wait(timeout=20)


def process_parents() -> dict[int, int]:
    """Every process's parent, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    return parents


def process_tree(pid: int) -> list[int]:
    """`pid` and every process below it (a multi-process server's children), from /proc."""
    parents = process_parents()
    tree, frontier = [pid], [pid]
    while frontier:
        frontier = [child for child, parent in parents.items() if parent in frontier]
        tree += frontier
    return tree


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pids_cpu(pids: Sequence[int]) -> float:
    """User + system CPU time of the processes `pids` together (those gone since count nothing)."""
    total = 0.0
    for pid in pids:
        try:
            total += cpu_seconds(pid)
        except OSError:
            continue
    return total


def pids_resident(pids: Sequence[int]) -> int:
    """The resident bytes (VmRSS) of the processes `pids` together (those gone since count nothing)."""
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) << 10
        except OSError:
            continue
    return total


def pids_proportional(pids: Sequence[int]) -> int:
    """The proportional resident bytes (Pss) of the processes `pids` together: a page shared by k of them
    counts 1/k in each, so processes forked from one template (live processes) are not counted again for
    the pages they share, as VmRSS sums count them (those gone since count nothing)."""
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) << 10
                    break
        except OSError:
            continue
    return total


def latency_figures(name: str, samples: list[float]) -> None:
    samples = sorted(samples)
    figure(f"{name}: median latency", statistics.median(samples) * 1e6, "µs")
    figure(f"{name}: p99 latency", samples[int(len(samples) * 0.99) - 1] * 1e6, "µs")
