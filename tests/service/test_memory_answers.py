"""Memory answers are given where the request arrives (issue 31): a formula, a certified period, a stored
value already read and a repeated answer reach neither the live processes' pool nor a thread, over gRPC
and REST, on real servers. What a live process computed once (a remoteness search, the live prefix that
certifies a period) comes back with its answer (service.learned), so asking again is a memory answer too.

The test counts mechanisms, not time: calls of `ProcessPool.call`, and hand-offs to a thread from the
servers' event loop (a `ThreadPoolExecutor` submit, or anyio's `to_thread.run_sync`, which starlette's
`run_in_threadpool` uses)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
import httpx
import pytest
import sqlalchemy as sa

from nimbase.client import NimbaseClient
from nimbase.settings import Limits
from service.calls import GetValue
from service.pooled import PooledService
from service.server import BoundPorts
from storage.jobs import JobQueue
from tests.servers import running_server
from tests.service.pools import started_pool
from worker.runner import Worker

LIMITS = Limits(live_processes=1, live_memory_bytes=256 << 20)
#: The table stored for the test: heaps 0..STORED-1 of a game whose values no formula gives.
STORED_GAME, STORED = "grundy", 5_000
#: The thread running the servers' event loop (tests.servers.running_server names it).
LOOP_THREAD = "test-service-server"


@dataclass
class Counts:
    pool: int = 0
    threads: int = 0
    service: int = 0


@pytest.fixture(scope="module")
def pooled(database_url: str, db_engine: sa.Engine) -> Iterator[PooledService]:
    with started_pool(LIMITS, database_url, db_engine) as service:
        JobQueue(db_engine).submit(STORED_GAME, "heap", STORED, fill=True)
        assert Worker(db_engine).run_once()
        yield service


@pytest.fixture(scope="module")
def ports(pooled: PooledService) -> Iterator[BoundPorts]:
    with running_server(pooled, LIMITS) as bound:
        yield bound


@contextlib.contextmanager
def counted(pooled: PooledService, monkeypatch: pytest.MonkeyPatch) -> Iterator[Counts]:
    """The pool's calls, the event loop's hand-offs to threads and the service's lookups, counted
    while the block runs."""
    counts = Counts()

    def on_loop() -> bool:
        return threading.current_thread().name == LOOP_THREAD

    def counting(original: Callable[..., Any], field: str, only_loop: bool) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not only_loop or on_loop():
                setattr(counts, field, getattr(counts, field) + 1)
            return original(*args, **kwargs)

        return wrapper

    with monkeypatch.context() as patch:
        patch.setattr(pooled.pool, "call", counting(pooled.pool.call, "pool", False))
        patch.setattr(pooled, "get_value", counting(pooled.get_value, "service", False))
        patch.setattr(pooled, "is_p_position", counting(pooled.is_p_position, "service", False))
        patch.setattr(ThreadPoolExecutor, "submit", counting(ThreadPoolExecutor.submit, "threads", True))
        patch.setattr(anyio.to_thread, "run_sync", counting(anyio.to_thread.run_sync, "threads", True))
        yield counts


def ask_both(ports: BoundPorts, game: str, position: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The value over gRPC and over REST (which must agree)."""
    with NimbaseClient(f"127.0.0.1:{ports.grpc}", timeout=30) as client:
        over_grpc = dict(client.get_value(game, position))
    reply = httpx.get(
        f"http://127.0.0.1:{ports.http}/v1/value", params={"game": game, "position": position}, timeout=30
    )
    assert reply.status_code == 200, reply.text
    over_rest = reply.json()
    assert {k: over_grpc.get(k) for k in over_rest} == over_rest
    return over_grpc, over_rest


@pytest.mark.parametrize(
    ("game", "position", "source", "grundy"),
    [
        ("nim", "1000000007", "formula", 1_000_000_007),
        ("subtraction:1,2,3", "1000000006", "formula", 2),
        (STORED_GAME, "4001", "table", None),
    ],
    ids=["formula", "formula of a subtraction game", "stored value"],
)
def test_memory_answers_reach_neither_the_pool_nor_a_thread(
    pooled: PooledService,
    ports: BoundPorts,
    monkeypatch: pytest.MonkeyPatch,
    game: str,
    position: str,
    source: str,
    grundy: int | None,
) -> None:
    # What memory does not hold yet is read or computed once: the table's chunk and header, the live
    # prefix that gives a heap's remoteness.
    ask_both(ports, game, str(int(position) + 1))
    with counted(pooled, monkeypatch) as counts:
        over_grpc, _ = ask_both(ports, game, position)
    assert over_grpc["source"] == source
    if grundy is not None:
        assert over_grpc["grundy"] == grundy
    else:
        assert over_grpc["grundy"] == pooled.local.get_value(GetValue(game, position)).grundy
    assert (counts.pool, counts.threads) == (0, 0)


def test_a_period_certified_by_a_live_process_answers_from_memory_afterwards(
    pooled: PooledService, ports: BoundPorts, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = "octal:0.07"  # Dawson's Kayles: its period (34) is certified live, by a live process
    with counted(pooled, monkeypatch) as counts:
        ask_both(ports, game, "1000000")  # its values computed live until the period is certified
    assert counts.pool >= 1  # computed once, where computations run
    with counted(pooled, monkeypatch) as counts:
        over_grpc, _ = ask_both(ports, game, "1000000000000")
    assert over_grpc["source"] == "period"
    assert over_grpc["grundy"] == pooled.local.get_value(GetValue(game, "1000000000000")).grundy
    assert (counts.pool, counts.threads) == (0, 0)


def test_a_remoteness_searched_by_a_live_process_is_kept_and_the_answer_repeated_from_the_cache(
    pooled: PooledService, ports: BoundPorts, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nim's sum needs a search for its remoteness: once, in a live process; then memory answers it, and
    the answer cache answers the same request without the service (gRPC and REST)."""
    with counted(pooled, monkeypatch) as counts:
        first, _ = ask_both(ports, "nim", "1 3 5 7")
    assert counts.pool >= 1
    assert (first["grundy"], first["remoteness"], first["source"]) == (0, 16, "formula")
    with counted(pooled, monkeypatch) as counts:
        again, _ = ask_both(ports, "nim", "1 3 5 7")
    assert again == first
    assert (counts.pool, counts.threads) == (0, 0)
    with counted(pooled, monkeypatch) as counts:
        for _ in range(3):
            assert ask_both(ports, "nim", "1 3 5 7")[0] == first
    assert (counts.pool, counts.threads, counts.service) == (0, 0, 0)


def test_a_formula_answer_with_a_deadline_of_1_ms_is_answered(
    pooled: PooledService, ports: BoundPorts
) -> None:
    """Not DEADLINE_EXCEEDED: the request waited for a live process (issue 31), or memory checked a clock."""
    ask_both(ports, "subtraction:1,2,3", "17")  # the live prefix of its remoteness, its period certified
    for position in ("7", "1000000", "123456789012"):
        reply = httpx.get(
            f"http://127.0.0.1:{ports.http}/v1/value",
            params={"game": "subtraction:1,2,3", "position": position},
            headers={"x-deadline-ms": "1"},
            timeout=30,
        )
        assert reply.status_code == 200, reply.text
        assert reply.json()["source"] == "formula"


def test_a_repeated_rest_answer_is_the_routes_own_and_headers_that_vary_it_still_count(
    pooled: PooledService, ports: BoundPorts, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"http://127.0.0.1:{ports.http}/v1/is-p-position"
    params = {"game": "nim", "position": "2 9"}
    with httpx.Client(timeout=30) as http:
        first = http.get(url, params=params)
        with counted(pooled, monkeypatch) as counts:
            again = http.get(url, params=params)
            late = http.get(url, params=params, headers={"x-deadline-ms": "soon"})
            held = http.get(url, params=params, headers={"if-none-match": first.headers["etag"]})
    assert first.status_code == again.status_code == 200
    assert again.content == first.content and again.json()["p_position"] is False
    for name in ("etag", "cache-control", "content-type", "content-length"):
        assert again.headers[name] == first.headers[name]
    assert late.status_code == 400 and "x-deadline-ms" in late.text
    assert held.status_code == 304
    assert (counts.pool, counts.threads) == (0, 0)
    assert counts.service == 2  # the repeated request not: the two whose headers vary the answer
