"""The compute lane (service.pooled, service.grpc_server, service.rest.answer; issue 23): gRPC calls and
REST requests waiting for a live process hold threads of their own, so reads keep theirs however many
calls wait."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import httpx
import pytest
import sqlalchemy as sa

from nimbase.client import NimbaseClient, NimbaseClientError
from nimbase.settings import Limits
from service.calls import GetValue, Timed
from service.grpc_server import DEFAULT_WORKERS
from service.pooled import TO_COMPUTE_LANE, PooledService, compute_lane_threads, computing_only, reads_only
from service.rest.answer import LATE_SECONDS
from service.server import BoundPorts
from storage.jobs import JobQueue
from tests.servers import TLS, running_server
from tests.service.pools import started_pool, wait_until
from worker.runner import Worker

LIMITS = Limits(request_seconds=30.0, search_states=50_000_000, live_processes=1, live_memory_bytes=256 << 20)
#: BestMove values each move of this misère sum by a search of seconds: it runs past a short deadline.
RUNAWAY = ("subtraction:1,3,4,99:misere", "40 41 42 43")
#: More calls waiting for the one live process than the reads lane has threads (gRPC's executor, and
#: starlette's threads: anyio's default of 40).
WAITING = DEFAULT_WORKERS + 4
WAITING_REST = 44
DEADLINE_S = 4.0
#: How long a read may take while the calls wait (loopback, a loaded 2-core machine).
PROMPT = 1.0


@pytest.fixture(scope="module")
def pooled(database_url: str, db_engine: sa.Engine) -> Iterator[PooledService]:
    with started_pool(LIMITS, database_url, db_engine) as service:
        yield service


@pytest.fixture(scope="module")
def ports(pooled: PooledService) -> Iterator[BoundPorts]:
    with running_server(pooled, LIMITS) as bound:
        yield bound


def test_only_a_pooled_service_has_a_compute_lane(pooled: PooledService) -> None:
    assert compute_lane_threads(pooled.local) == 0
    assert compute_lane_threads(pooled) >= pooled.pool.size
    assert reads_only(lambda: pooled.get_value(GetValue("nim", "7 10 13 9 3 9"))).grundy == 3  # type: ignore[union-attr]
    assert (
        reads_only(lambda: pooled.get_value(GetValue("subtraction:1,3,4,99:misere", "3 4 5")))
        is TO_COMPUTE_LANE
    )


def test_reads_answer_promptly_while_more_calls_wait_for_a_process_than_reads_have_threads(
    pooled: PooledService, ports: BoundPorts, db_engine: sa.Engine
) -> None:
    if JobQueue(db_engine).submit("grundy", "heap", 5_000, fill=True).status != "done":  # else stored
        assert Worker(db_engine).run_once()
    target = f"127.0.0.1:{ports.grpc}"
    outcomes: list[str] = []

    def runaway(client: NimbaseClient) -> None:
        try:
            client.best_move(*RUNAWAY, limit=1)
            outcomes.append("OK")
        except NimbaseClientError as error:
            outcomes.append(error.code)

    with NimbaseClient(target, timeout=DEADLINE_S) as slow, NimbaseClient(target, timeout=30) as client:
        threads = [threading.Thread(target=runaway, args=(slow,)) for _ in range(WAITING)]
        for thread in threads:
            thread.start()
        wait_until(lambda: pooled.pool.idle() == 0, 3, "the live process busy")
        time.sleep(0.5)  # every call arrived, and waits for the process
        for i in range(4):
            started = time.monotonic()  # a stored table, read by the server itself in a thread
            value = client.get_value("grundy", str(4_000 + i))
            assert value["source"] == "table"
            took = time.monotonic() - started
            assert took < PROMPT, f"a stored value took {took:.2f} s"
            started = time.monotonic()
            client.list_jobs(limit=5)
            took = time.monotonic() - started
            assert took < PROMPT, f"ListJobs took {took:.2f} s"
        assert not outcomes, "the runaway calls ended before the reads were timed"
        for thread in threads:
            thread.join()
    assert set(outcomes) <= {"DEADLINE_EXCEEDED", "OK"}, outcomes


def test_streams_moved_to_the_compute_lane_answer_every_item_once(
    pooled: PooledService, ports: BoundPorts
) -> None:
    """A chunk with a live item runs again in the compute lane: its answers are the service's, in order."""
    requests = [
        ("nim", "3 5"),
        ("subtraction:1,3,4,99:misere", "3 4 5"),
        ("nim", "1 2"),
        ("octal:0.137", "9"),
    ]
    with NimbaseClient(f"127.0.0.1:{ports.grpc}", timeout=30) as client:
        answers = list(client.stream_values(requests))
        batches = list(client.stream_batches([(game, [position]) for game, position in requests]))
    values = [pooled.local.get_value(GetValue(game, position)) for game, position in requests]
    expected = [(value.outcome, value.grundy) for value in values]
    assert [(answer.get("outcome"), answer.get("grundy")) for answer in answers] == expected
    items = [batch["values"][0] for batch in batches]
    assert [(item.get("outcome"), item.get("grundy")) for item in items] == expected


def test_rest_reads_answer_promptly_while_more_requests_wait_for_a_process_than_starlette_has_threads(
    pooled: PooledService, ports: BoundPorts, db_engine: sa.Engine
) -> None:
    if JobQueue(db_engine).submit("grundy", "heap", 5_000, fill=True).status != "done":  # else stored
        assert Worker(db_engine).run_once()
    base = f"http://127.0.0.1:{ports.http}"
    statuses: list[int] = []
    game, position = RUNAWAY

    def runaway() -> None:
        with httpx.Client(base_url=base, timeout=30, verify=TLS) as own:
            answer = own.get(
                "/v1/best-move",
                params={"game": game, "position": position, "limit": 1},
                headers={"x-deadline-ms": str(int(DEADLINE_S * 1000))},
            )
            statuses.append(answer.status_code)

    threads = [threading.Thread(target=runaway) for _ in range(WAITING_REST)]
    for thread in threads:
        thread.start()
    wait_until(lambda: pooled.pool.idle() == 0, 3, "the live process busy")
    time.sleep(0.5)  # every request arrived, and waits for the process
    with httpx.Client(base_url=base, timeout=30) as http:
        for i in range(4):
            started = time.monotonic()  # a stored value, read by the server itself in a thread
            value = http.get("/v1/value", params={"game": "grundy", "position": str(4_100 + i)})
            assert value.status_code == 200 and value.json()["source"] == "table", value.text
            took = time.monotonic() - started
            assert took < PROMPT, f"a stored value took {took:.2f} s"
    assert not statuses, "the runaway requests ended before the reads were timed"
    for thread in threads:
        thread.join()
    assert set(statuses) <= {200, 504}, statuses


def test_a_call_moved_to_the_compute_lane_goes_straight_to_the_pool(
    pooled: PooledService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reads lane already tried what this process reads: the compute lane does not read again."""
    tried: list[object] = []
    real = pooled.local.without_computing

    def counted(call: Callable[[], object]) -> object:
        tried.append(call)
        return real(call)

    monkeypatch.setattr(pooled.local, "without_computing", counted)
    game, position = "subtraction:1,3,4,99:misere", "3 4 6"
    assert reads_only(lambda: pooled.get_value(GetValue(game, position))) is TO_COMPUTE_LANE
    assert len(tried) == 1
    value = computing_only(lambda: pooled.get_value(GetValue(game, position)))
    assert len(tried) == 1  # no second read
    assert value == pooled.local.get_value(GetValue(game, position))


def test_a_rest_call_in_the_compute_lane_is_answered_by_its_deadline_when_its_thread_is_late(
    pooled: PooledService, ports: BoundPorts, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a loaded machine the thread waiting for a live process may answer late; the loop answers 504
    by the deadline and LATE_SECONDS then (a call here that ignores its deadline stands for that)."""
    real = pooled.pool.call

    def late(asked: Timed[object]) -> object:
        time.sleep(2.0)
        return real(asked.until(None))

    monkeypatch.setattr(pooled.pool, "call", late)
    with httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=30) as http:
        started = time.monotonic()
        answer = http.get(
            "/v1/value",
            params={"game": "subtraction:1,3,4,99:misere", "position": "3 4 7"},
            headers={"x-deadline-ms": "300"},
        )
        took = time.monotonic() - started
    assert answer.status_code == 504, answer.text
    assert "ran past the request's deadline" in answer.json()["error"]["message"]
    assert took < 0.3 + LATE_SECONDS + PROMPT, f"answered after {took:.2f} s"
    time.sleep(2.5)  # the late thread done before the next test
