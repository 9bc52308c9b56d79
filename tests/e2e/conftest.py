"""The end-to-end tests' processes, one of each per module: a database proxy (so a test can cut the
server off its database), `nimbase serve` behind it, and `nimbase worker`."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from .processes import Server, start_server, start_worker, stop
from .proxy import DatabaseProxy


@pytest.fixture(scope="module")
def db_proxy(database_url: str) -> Iterator[DatabaseProxy]:
    proxy = DatabaseProxy(database_url)
    yield proxy
    proxy.close()


@pytest.fixture(scope="module")
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
