"""Calls that waited for a busy live process (service.isolation, issue 23): the soak's two unexplained
gRPC DEADLINE_EXCEEDED, at small scale.

One live process, held by a runaway request, so the next call waits for it. GetStats of a game whose
period is not certified seeks it live until the deadline: the process ran to a deadline of its own, which
began when it took the call (later by the wait), so the server answered 504 at the caller's deadline and
killed the process. And a value refused for time after the wait was told to ask again with a longer
deadline, which the client never shortened.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
import sqlalchemy as sa

from engine.errors import Cancelled, DeadlineExceeded, NimbaseError
from nimbase.client import NimbaseClient, NimbaseClientError
from nimbase.settings import Limits, Settings
from service.calls import GetValue
from service.clients import ARRIVED
from service.isolation import PROCESSES_SETTING, ProcessPool
from service.pooled import PooledService
from service.server import BoundPorts
from tests.servers import running_server
from tests.service.pools import every_process_idle, started_pool, wait_until

FULL_S = 8.0
LIMITS = Limits(
    request_seconds=FULL_S, search_states=50_000_000, live_processes=1, live_memory_bytes=256 << 20
)
#: BestMove values each move of these misère sums by a search of seconds: it holds the process until its
#: own deadline (each test plays another game, so the process finds no search memoized).
RUNAWAY = "40 41 42 43"
#: How long after its deadline a call may still be answered (loopback, a loaded 2-core machine).
MARGIN = 0.5


@pytest.fixture(scope="module")
def pooled(database_url: str, db_engine: sa.Engine) -> Iterator[PooledService]:
    with started_pool(LIMITS, database_url, db_engine) as service:
        yield service


@pytest.fixture(scope="module")
def ports(pooled: PooledService) -> Iterator[BoundPorts]:
    with running_server(pooled, LIMITS) as bound:
        yield bound


@pytest.fixture
def ready(pooled: PooledService) -> PooledService:
    return every_process_idle(pooled)


def hold_the_process(ports: BoundPorts, game: str, seconds: float, pooled: PooledService) -> threading.Thread:
    """A runaway BestMove holding the one live process for `seconds` (its own deadline), under way."""

    def run() -> None:
        with httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=60) as http:
            http.get(
                "/v1/best-move",
                params={"game": game, "position": RUNAWAY, "limit": 1},
                headers={"x-deadline-ms": str(int(seconds * 1000))},
            )

    thread = threading.Thread(target=run)
    thread.start()
    wait_until(lambda: pooled.pool.idle() == 0, 10, "the runaway holding the live process")
    return thread


def test_stats_after_a_wait_for_the_process_are_answered_by_the_deadline(
    ready: PooledService, ports: BoundPorts
) -> None:
    """The process seeks the period for half the time the wait left (a bonus the stats can do without):
    stats answered by the deadline, the process kept."""
    before = set(ready.pool.pids())
    runaway = hold_the_process(ports, "subtraction:1,2,4,99:misere", FULL_S / 4, ready)
    with NimbaseClient(f"127.0.0.1:{ports.grpc}", timeout=30) as client:
        started = time.monotonic()
        stats = client.get_stats("octal:0.64")
        took = time.monotonic() - started
    runaway.join()
    assert stats["game"] == "octal:0.64" and (stats["computed_upto"] or 0) > 0, stats
    assert took < FULL_S + MARGIN, f"answered after {took:.2f} s"
    wait_until(lambda: ready.pool.idle() == ready.pool.size, 30, "the live process idle")
    assert set(ready.pool.pids()) == before, "the live process was killed and replaced"


def test_a_value_refused_for_time_after_a_wait_names_the_wait_not_a_short_deadline(
    ready: PooledService, ports: BoundPorts
) -> None:
    """Without a deadline of its own, a value the wait left too little time for is never told to send a
    longer deadline: answered, refused for time saying how long it waited for the process (naming the
    live processes' setting, whichever step ran out of time), or past the live limits."""
    game = "octal:0.6"
    with NimbaseClient(f"127.0.0.1:{ports.grpc}", timeout=30) as client:
        # The process's prefix, and its cost per value, measured: the refusal predicts what is left. (On a
        # loaded machine the process, at a lower priority, may take longer than the deadline for it.)
        with contextlib.suppress(NimbaseClientError):
            client.get_value(game, "20000")
        wait_until(lambda: ready.pool.idle() == ready.pool.size, 180, "the live process idle")
        runaway = hold_the_process(ports, "subtraction:2,3,5,99:misere", FULL_S - 0.3, ready)
        try:
            answer = client.get_value(game, "300000")
            outcome, message = "OK", str(answer)
        except NimbaseClientError as error:
            outcome, message = error.code, str(error)
        runaway.join()
    assert "longer deadline" not in message, message
    if outcome == "DEADLINE_EXCEEDED":
        assert PROCESSES_SETTING in message, message
    else:
        assert outcome in ("OK", "RESOURCE_EXHAUSTED"), message


def test_a_refusal_for_time_names_the_wait_for_a_process_only_when_it_took_a_fair_share() -> None:
    pool = ProcessPool(Settings(limits=LIMITS), None)
    late = DeadlineExceeded("the value of position '5' of game 'octal:0.6' ran past the request's deadline")
    noted = pool._waited(late, 3.0, FULL_S)
    assert isinstance(noted, DeadlineExceeded) and str(noted) == (
        f"the request waited 3 s in this server for one of the 1 live processes ({PROCESSES_SETTING}), "
        f"which other requests held; {late}"
    )
    assert pool._waited(late, 0.1, FULL_S) is late
    cancelled = Cancelled("the value of position '5' of game 'octal:0.6' was stopped: the client cancelled")
    assert pool._waited(cancelled, 3.0, FULL_S) is cancelled


def test_a_value_refused_for_time_counts_the_wait_before_the_pool_took_it(ready: PooledService) -> None:
    """The soak's 504 of a request without a deadline of its own: it waited in the server (its lanes'
    queues, a read) before the pool was asked, a wait the pool did not see, so the refusal took the time
    left for a short deadline of the client's and asked for a longer one. The transports say when the
    request arrived (ARRIVED): the time from then counts as waited, and the refusal names it."""
    game = "octal:0.6"
    with contextlib.suppress(NimbaseError):  # the process's prefix and its measured speed
        ready.get_value(GetValue(game, "20000", deadline=time.monotonic() + FULL_S))
    wait_until(lambda: ready.pool.idle() == ready.pool.size, 180, "the live process idle")
    arrived = time.monotonic() - (FULL_S - 0.6)  # most of its time spent before the pool is asked

    def ask() -> str:
        ARRIVED.set(arrived)
        try:
            return f"OK {ready.get_value(GetValue(game, '300000', deadline=arrived + FULL_S))}"
        except NimbaseError as error:
            return f"{error.code} {error}"

    outcome, _, message = contextvars.copy_context().run(ask).partition(" ")
    assert "longer deadline" not in message, message
    assert outcome in ("DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED"), message
    if outcome == "DEADLINE_EXCEEDED":
        assert PROCESSES_SETTING in message and "waited 7" in message, message
