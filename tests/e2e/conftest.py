"""The end-to-end tests' processes: a database proxy (so a test can cut the server off its database) and
`nimbase serve` behind it, one for the package (its modules ask different games, so they share them
rather than start a server with its live processes each), and `nimbase worker`, one per module (the
plugin modules start workers of their own, which must be the only ones to take their jobs)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from .processes import Server, start_server, start_worker, stop
from .proxy import DatabaseProxy


@pytest.fixture(scope="package")
def db_proxy(database_url: str) -> Iterator[DatabaseProxy]:
    proxy = DatabaseProxy(database_url)
    yield proxy
    proxy.close()


@pytest.fixture(scope="package")
def server(db_proxy: DatabaseProxy, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    logs = tmp_path_factory.mktemp("server")
    running = start_server(db_proxy.url, logs / "server.log")
    yield running
    stop(running.process)


@pytest.fixture(scope="module")
def worker(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[subprocess.Popen[bytes]]:
    logs = tmp_path_factory.mktemp("worker")
    process = start_worker(database_url, logs / "worker.log")
    yield process
    stop(process)
