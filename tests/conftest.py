"""The shared test database: a fresh, migrated PostgreSQL database per test session (per worker process
when the run is split over several, `make test`'s `-n`), and how the tests are split.

The server is TEST_DATABASE_URL when set, else a throwaway PostgreSQL container when a Docker engine
answers, else an embedded pgserver in a temporary directory; tests never skip for want of one. The
URL is plain text so end-to-end tests can hand it to server and worker subprocesses.
"""

from __future__ import annotations

import gc
import importlib
import os
import secrets
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from storage.database import create_engine, normalize_url
from storage.migrate import upgrade_head
from tests.database import empty_data_tables

#: Folders whose tests share a server or an installation made once for the folder (package- or
#: session-scoped fixtures): under xdist their tests run in one worker process, so it is made once.
SHARED_FOLDERS = ("client", "e2e", "web")
TESTS = Path(__file__).resolve().parent


def pytest_sessionstart(session: pytest.Session) -> None:
    """Before the test processes start (in the one that splits the run, or the only one): compile every
    kernel a server warms up, once, into numba's disk cache. On a fresh checkout each server and live
    process the tests start would otherwise compile them all at once (minutes of CPU each), and servers
    did not come up in time; warm, this loads them in seconds."""
    if hasattr(session.config, "workerinput"):
        return
    warm = (
        "from nimbase import collector; collector.pause_for_startup(); "
        "from nimbase.settings import Settings; from service.warm_up import warm_up; "
        "collector.resume(); warm_up(Settings())"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("NIMBASE_") and k != "DATABASE_URL"}
    subprocess.run([sys.executable, "-c", warm], env=env, cwd=TESTS.parent, check=True, capture_output=True)


def pytest_configure(config: pytest.Config) -> None:
    """Collection imports every module of nimbase and of the tests with the collector off, as a process
    of nimbase starts (nimbase.collector); `pytest_collection_finish` freezes them and turns it on."""
    gc.disable()


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection imported lives as long as the run: frozen out of the full collections, which then
    walk only what the tests make (each test process made about 30 of them in a run, 120 ms each)."""
    gc.freeze()
    gc.enable()


def test_group(nodeid: str) -> str:
    """The tests that run in one xdist worker process (`--dist loadscope`): a shared folder's, else a
    module's, so the servers a module or folder starts for its tests are started once."""
    path = nodeid.split("::", 1)[0].split("/")
    shared = len(path) > 2 and path[0] == TESTS.name and path[1] in SHARED_FOLDERS
    return "/".join(path[:2] if shared else path)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """xdist's loadscope scheduling (the groups with most tests handed out first) over `test_group`'s
    groups. They are not xdist_group marks for `--dist loadgroup`: pytest-xdist 3.8 adds a mark's
    group to the test's id, which pytest 9 no longer lets it change, so each test ran wherever and a
    module's servers were started in both processes."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    class ByGroup(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return test_group(nodeid)

        def schedule(self) -> None:
            first = self.collection is None
            super().schedule()
            if first:  # the groups not handed out yet: those of PROCESS_FOLDERS first
                queued = sorted(self.workqueue.items(), key=lambda unit: _later(unit[0], len(unit[1])))
                self.workqueue.clear()
                self.workqueue.update(queued)

    return ByGroup(config, log)


#: Folders whose tests start servers, workers or other processes: a module of them takes seconds a test,
#: so they are handed out first, not last (where a worker process would run one alone at the end).
PROCESS_FOLDERS = ("e2e", "cli", "client", "web", "worker")


def _later(group: str, tests: int) -> tuple[int, int]:
    """The order groups are handed out in: PROCESS_FOLDERS' first, then those with most tests."""
    folder = group.split("/")[1] if group.count("/") else ""
    return (0 if folder in PROCESS_FOLDERS else 1, -tests)


def _docker_answers() -> bool:
    try:
        docker: Any = importlib.import_module("docker")  # untyped; optional (dev extra)
        client = docker.from_env(timeout=3)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:
        return False


def _server_url(stack: ExitStack) -> str:
    """The URL of a PostgreSQL server to create the test database on, started if need be."""
    url = os.environ.get("TEST_DATABASE_URL", "").strip()
    if url:
        return normalize_url(url)
    if _docker_answers():
        try:
            postgres: Any = importlib.import_module("testcontainers.community.postgres")
        except ImportError:  # testcontainers before the community split
            postgres = importlib.import_module("testcontainers.postgres")
        container: Any = stack.enter_context(
            postgres.PostgresContainer("postgres:16-alpine", driver="psycopg")
        )
        return normalize_url(str(container.get_connection_url()))
    from pgserver.postgres_server import get_server

    tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="nimbase-pg-")))
    server = get_server(str(tmp / "pgdata"), cleanup_mode="delete")
    stack.callback(server.cleanup)
    return normalize_url(str(server.get_uri()))


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    """URL of a freshly created and migrated database, dropped at the end of the session."""
    with ExitStack() as stack:
        server_url = _server_url(stack)
        name = f"nimbase_test_{secrets.token_hex(4)}"
        admin = sa.create_engine(server_url, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        url = make_url(server_url).set(database=name).render_as_string(hide_password=False)
        try:
            upgrade_head(url)
            yield url
        finally:
            with admin.connect() as conn:
                conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()


@pytest.fixture(scope="session")
def db_engine(database_url: str) -> Iterator[sa.Engine]:
    engine = create_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def clean_db(db_engine: sa.Engine) -> Iterator[sa.Engine]:
    """The session engine, with every data table emptied before the test."""
    empty_data_tables(db_engine)
    yield db_engine
