"""A service whose computations run in live processes (service.isolation), for the tests of the pool."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

import sqlalchemy as sa

from nimbase.settings import Limits, Settings
from service.core import Nimbase
from service.pooled import PooledService
from service.server import isolated
from tests.database import empty_data_tables


def wait_until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    until = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < until, f"not within {seconds:.0f} s: {what}"
        time.sleep(0.02)


def every_process_idle(service: PooledService, seconds: float = 180) -> PooledService:
    """`service` once every live process runs and waits for a call (replacements started)."""
    pool = service.pool
    wait_until(lambda: pool.idle() == pool.size, seconds, "every live process idle")
    return service


@contextlib.contextmanager
def started_pool(limits: Limits, database_url: str, db_engine: sa.Engine) -> Iterator[PooledService]:
    """The service on empty data tables, its live processes (as `limits` sets them) all started."""
    empty_data_tables(db_engine)
    settings = Settings(limits=limits)
    with isolated(Nimbase(settings, db_engine), settings, database_url) as service:
        assert isinstance(service, PooledService)
        yield every_process_idle(service)
