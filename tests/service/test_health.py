"""The database's health, answered from memory (service.health; issue 23: /healthz must not queue behind
computations): database true, false soon after PostgreSQL goes away, true again once it is back."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import httpx
import pytest
import sqlalchemy as sa

from nimbase.settings import Settings
from service.core import Nimbase
from service.gate import DatabaseGate
from service.health import DatabaseHealth
from storage.database import create_engine
from storage.errors import StorageUnavailable
from tests.e2e.proxy import DatabaseProxy
from tests.servers import running_server

#: Long enough for a background check to notice a change (checks are at most a second apart).
NOTICE_SECONDS = 10.0


def eventually(condition: Callable[[], bool], seconds: float = NOTICE_SECONDS) -> bool:
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.fixture
def proxied(db_engine: sa.Engine) -> Iterator[tuple[Nimbase, DatabaseProxy]]:
    proxy = DatabaseProxy(db_engine.url.render_as_string(hide_password=False))
    engine = create_engine(proxy.url)
    try:
        yield Nimbase(Settings(), engine), proxy
    finally:
        engine.dispose()
        proxy.close()


def test_healthz_follows_the_database_away_and_back(proxied: tuple[Nimbase, DatabaseProxy]) -> None:
    service, proxy = proxied
    with running_server(service) as ports, httpx.Client(base_url=f"http://127.0.0.1:{ports.http}") as http:

        def database() -> object:
            reply = http.get("/healthz")
            assert reply.status_code == 200
            return reply.json()["database"]

        assert eventually(lambda: database() is True)
        proxy.cut()
        assert eventually(lambda: database() is False)
        assert http.get("/healthz").json() == {
            "status": "ok",
            "database": False,
            "details": {"database": "unreachable"},
        }
        proxy.restore()
        assert eventually(lambda: database() is True)


def test_a_read_never_waits_for_a_slow_check() -> None:
    """Once the first check has answered, reads return the last result while another check hangs."""
    release = threading.Event()
    calls = 0

    def check() -> bool:
        nonlocal calls
        calls += 1
        if calls > 1:
            release.wait(10)
        return True

    health = DatabaseHealth(check, DatabaseGate(), refresh_seconds=0.0)
    try:
        assert eventually(lambda: health.read().database is True)  # the first check answered
        for _ in range(20):
            started = time.monotonic()
            assert health.read().database is True
            assert time.monotonic() - started < 0.05
        assert calls == 2  # one check at a time, however many reads
    finally:
        release.set()


def test_not_even_the_first_read_waits_for_a_check() -> None:
    """Health is read on the transports' event loop: a first check that is slow is reported as not done
    yet, at once, rather than waited for (holding every request of the server meanwhile)."""
    release = threading.Event()

    def check() -> bool:
        release.wait(10)
        return True

    health = DatabaseHealth(check, DatabaseGate())
    try:
        started = time.monotonic()
        first = health.read()
        assert time.monotonic() - started < 0.05
        assert first.database is False and first.details == {"database": "not checked yet"}
        release.set()
        assert eventually(lambda: health.read().database is True)
    finally:
        release.set()


def test_a_request_that_finds_the_database_down_is_believed_at_once() -> None:
    gate = DatabaseGate(retry_seconds=60.0)
    health = DatabaseHealth(lambda: True, gate, refresh_seconds=60.0)
    assert eventually(lambda: health.read().database is True)

    def fail() -> None:
        raise StorageUnavailable("down")

    with pytest.raises(StorageUnavailable, match="down"):
        gate.call(fail)
    assert health.read().database is False


def test_no_database_configured() -> None:
    reply = Nimbase(Settings(), None).health()
    assert reply.database is False and reply.details == {"database": "not configured"}
