"""The soak's PostgreSQL: a server it can restart (embedded) or one it can only cut off (given by URL).

Both offer `restart(rng)`, the fault the soak injects into the database, and a fresh migrated database
per run (`create_database`), dropped at the end.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa

from storage.database import normalize_url
from storage.migrate import upgrade_head


class EmbeddedPostgres:
    """A pgserver PostgreSQL in a temporary directory, restarted with its own pg_ctl."""

    description = "embedded pgserver (temporary directory), restarted with pg_ctl"

    def __init__(self) -> None:
        from pgserver.postgres_server import get_server

        self._tmp = Path(tempfile.mkdtemp(prefix="nimbase-soak-pg-"))
        self.pgdata = self._tmp / "pgdata"
        self.server = get_server(str(self.pgdata), cleanup_mode=None)
        info = self.server.get_postmaster_info()
        self.socket_dir = info.socket_dir
        self.server_url = normalize_url(str(self.server.get_uri()))
        self._log = self.pgdata / "log"
        self._closed = False

    def _pg_ctl(self, args: list[str]) -> None:
        from pgserver._commands import pg_ctl  # type: ignore[attr-defined]

        pg_ctl(args, pgdata=self.pgdata, user=self.server.system_user, timeout=120)

    def _refresh(self) -> None:
        from pgserver.utils import PostmasterInfo

        self.server._postmaster_info = PostmasterInfo.read_from_pgdata(self.pgdata)

    def restart(self, rng: random.Random) -> str:
        """A fast restart, or an immediate stop (a crash: recovery from WAL) and a start a moment later."""
        if rng.random() < 0.5:
            self._pg_ctl(["-w", "-t", "120", "-m", "fast", "-l", str(self._log), "restart"])
            self._refresh()
            return "pg_ctl restart -m fast"
        self._pg_ctl(["-w", "-m", "immediate", "stop"])
        down = rng.uniform(1.0, 4.0)
        time.sleep(down)
        self.start()
        return f"pg_ctl stop -m immediate, {down:.1f} s down, start"

    def start(self) -> None:
        self._pg_ctl(
            ["-w", "-t", "120", "-o", '-h ""', "-o", f"-k {self.socket_dir}", "-l", str(self._log), "start"]
        )
        self._refresh()

    def keep_log(self, directory: Path) -> None:
        with contextlib.suppress(OSError):
            shutil.copy(self._log, directory / "postgres.log")

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(Exception):
            self._pg_ctl(["-w", "-m", "fast", "stop"])
        with contextlib.suppress(Exception):
            self.server._cleanup()  # cleanup_mode None: only forgets this process
            atexit.unregister(self.server._cleanup)
        shutil.rmtree(self._tmp, ignore_errors=True)


class ExternalPostgres:
    """A server given by URL: it cannot be restarted from here, so outages are a cut TCP proxy."""

    description = "DATABASE_URL given: outages are a TCP proxy cut for a few seconds"

    def __init__(self, url: str) -> None:
        from tests.e2e.proxy import DatabaseProxy  # the end-to-end tests' proxy

        self.server_url = normalize_url(url)
        self.proxy = DatabaseProxy(self.server_url)

    def restart(self, rng: random.Random) -> str:
        down = rng.uniform(1.0, 5.0)
        self.proxy.cut()
        time.sleep(down)
        self.proxy.restore()
        return f"database proxy cut for {down:.1f} s"

    def proxied(self, url: str) -> str:
        from tests.e2e.proxy import with_address

        return with_address(url, "127.0.0.1", self.proxy.port)

    def keep_log(self, directory: Path) -> None:
        pass

    def close(self) -> None:
        self.proxy.close()


def create_database(server_url: str) -> tuple[str, Callable[[], None]]:
    """A fresh migrated database on the server; its URL and how to drop it."""
    name = f"nimbase_soak_{os.getpid()}_{random.randrange(1 << 30):08x}"
    admin = sa.create_engine(server_url, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = sa.make_url(server_url).set(database=name).render_as_string(hide_password=False)
    upgrade_head(url)

    def drop() -> None:
        with contextlib.suppress(Exception), admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return url, drop
