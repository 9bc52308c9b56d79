"""Live computations in processes that can be stopped (service.isolation, service.pooled; issue 23).

The real gRPC and REST servers run in-process on loopback over a `PooledService`: a real `Nimbase` on the
test PostgreSQL for what memory answers, and a pool of two spawned processes, each with its own, for the
computations. The runaway work is real: BestMove of a misère sum whose every move is valued by a search of
seconds, and the value of a larger misère sum whose search holds hundreds of MiB within seconds.
"""

from __future__ import annotations

import os
import pickle
import signal
import threading
import time
from collections.abc import Callable, Iterator

import httpx
import numpy as np
import pytest
import sqlalchemy as sa

from engine.errors import InvalidPosition, NimbaseError
from engine.registry import list_games
from nimbase.client import NimbaseClient, NimbaseClientError
from nimbase.settings import Limits, Settings
from service.calls import (
    BatchGetValues,
    BestMove,
    ColumnarValues,
    GetSequence,
    GetStats,
    GetValue,
    IsPPosition,
)
from service.convert import INTERNAL_MESSAGE
from service.core import Nimbase
from service.isolation import ProcessPool
from service.jobs import JobView, Pending
from service.live_child import pack_error, unpack_error
from service.pooled import PooledService
from service.server import BoundPorts
from service.warm_up import warm_up
from storage.jobs import JobQueue
from tests.servers import running_server
from tests.service.pools import every_process_idle, started_pool, wait_until
from worker.runner import Worker

#: Searches may visit 50 million positions, so the deadline or the memory cap is what stops them; each
#: live process may map 48 MiB beyond what it maps once started.
LIMITS = Limits(request_seconds=30.0, search_states=50_000_000, live_processes=2, live_memory_bytes=48 << 20)
#: A misère subtraction game whose sums a search answers: its largest move, over 16, leaves it without a
#: misère quotient (kinds.heaps.misere), which would answer them at once; 99 is past every heap asked,
#: so the searches are those of 1,3,4.
MISERE = "subtraction:1,3,4,99:misere"
#: BestMove values each move of this sum by a search of seconds: it runs past any short deadline. Each
#: runaway request plays another game, so no live process finds its searches memoized.
RUNAWAY = "40 41 42 43"
RUNAWAY_GAMES = iter(
    f"subtraction:{moves},99:misere"
    for moves in ("1,2,4", "2,3,5", "1,2,5", "2,3,4", "1,4,6", "2,4,7", "1,3,6", "2,5,7", "1,5,6", "3,4,6")
)
#: The value of this sum needs a search of millions of positions (six heaps up to 35): past 48 MiB
#: within seconds, whatever the allocator kept mapped from the warm-up.
HUNGRY = "30 31 32 33 34 35"
#: How long after its deadline a request may still be answered (loopback, a loaded 2-core machine).
MARGIN = 0.5
#: How long a cheap request may take while every live process is busy (the benches measure latency).
PROMPT = 1.0
#: The example positions of every family, and a few more; but uploaded graphs (none is uploaded) and chess,
#: whose live table solve loads kernels of more than the 48 MiB these tests allow a process.
SAMPLE = [
    (info.id, position)
    for info in list_games()
    if not info.id.startswith(("graph:", "chess:"))
    for position in info.examples
] + [(MISERE, "3 4 5"), ("subtraction:1,3,4", "100 200"), ("octal:0.77", "1000 5")]


def resident_bytes() -> int:
    """This process's resident memory (VmRSS)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def outcome(call: Callable[..., object], *args: object) -> object:
    """What a call gives: its result, or its error's class and message."""
    try:
        return call(*args)
    except NimbaseError as error:
        return errors_as_text(error)


def errors_as_text(item: object) -> object:
    return (type(item), str(item)) if isinstance(item, NimbaseError) else item


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
    """The pool with every process running and idle (replacements of earlier tests started)."""
    return every_process_idle(pooled)


@pytest.fixture
def http(ports: BoundPorts) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=60) as client:
        yield client


def runaway_best_move(http: httpx.Client, deadline_ms: int) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    answer = http.get(
        "/v1/best-move",
        params={"game": next(RUNAWAY_GAMES), "position": RUNAWAY, "limit": 1},
        headers={"x-deadline-ms": str(deadline_ms)},
    )
    return answer, time.monotonic() - started


def test_a_runaway_computation_is_answered_at_its_deadline_and_the_next_one_normally(
    ready: PooledService, ports: BoundPorts, http: httpx.Client
) -> None:
    """Over REST (504) and gRPC, within the deadline and half a second; the pool then answers again."""
    answer, elapsed = runaway_best_move(http, 1500)
    assert answer.status_code == 504, answer.text
    error = answer.json()["error"]
    assert error["code"] == "DEADLINE_EXCEEDED" and "ran past the request's deadline" in error["message"]
    assert elapsed < 1.5 + MARGIN, f"REST answered after {elapsed:.2f} s"

    after = http.get("/v1/value", params={"game": MISERE, "position": "3 4 5"})
    assert after.status_code == 200 and after.json()["outcome"] in ("N", "P"), after.text

    with NimbaseClient(f"127.0.0.1:{ports.grpc}", timeout=1.5) as client:
        started = time.monotonic()
        with pytest.raises(NimbaseClientError) as raised:
            client.best_move(next(RUNAWAY_GAMES), RUNAWAY, limit=1)
        elapsed = time.monotonic() - started
        assert raised.value.code == "DEADLINE_EXCEEDED", raised.value
        assert elapsed < 1.5 + MARGIN, f"gRPC answered after {elapsed:.2f} s"
    with NimbaseClient(f"127.0.0.1:{ports.grpc}", timeout=30) as client:
        assert client.get_value(MISERE, "3 4 6")["outcome"] in ("N", "P")
    wait_until(lambda: ready.pool.idle() == ready.pool.size, 30, "the live processes back or replaced")


def test_a_computation_past_the_memory_cap_is_refused_naming_the_cap(
    ready: PooledService, http: httpx.Client
) -> None:
    """RESOURCE_EXHAUSTED (422) naming the cap and its setting; the server process did not grow by it."""
    before = resident_bytes()
    answer = http.get(
        "/v1/value", params={"game": MISERE, "position": HUNGRY}, headers={"x-deadline-ms": "30000"}
    )
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error["code"] == "RESOURCE_EXHAUSTED"
    assert "48 MiB" in error["message"] and "NIMBASE_LIMITS_LIVE_MEMORY_BYTES" in error["message"], error
    grown = resident_bytes() - before
    assert grown < LIMITS.live_memory_bytes // 2, f"the server grew by {grown >> 20} MiB"
    wait_until(lambda: ready.pool.idle() == ready.pool.size, 180, "the process past its cap replaced")
    after = http.get("/v1/value", params={"game": MISERE, "position": "3 4 7"})
    assert after.status_code == 200, after.text


def test_health_and_formula_lookups_answer_while_every_process_is_busy(
    ready: PooledService, ports: BoundPorts, http: httpx.Client, db_engine: sa.Engine
) -> None:
    """While runaway requests hold every process, a request that finds none free is DEADLINE_EXCEEDED at
    its deadline, naming the setting that would give it one, and /healthz and a Nim value from its formula
    (a position too large for a remoteness search, which would be live work) and a stored table's values
    (read by the server process itself, not queued behind the computations) still answer promptly over
    both transports."""
    if JobQueue(db_engine).submit("grundy", "heap", 5_000, fill=True).status != "done":  # else stored
        assert Worker(db_engine).run_once()
    answers: list[tuple[httpx.Response, float]] = []

    def run() -> None:
        with httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=60) as own:
            answers.append(runaway_best_move(own, 4000))

    threads = [threading.Thread(target=run) for _ in range(ready.pool.size)]
    for thread in threads:
        thread.start()
    wait_until(lambda: ready.pool.idle() == 0, 3, "every live process busy")

    waited, elapsed = runaway_best_move(http, 1000)
    assert waited.status_code == 504 and elapsed < 1.0 + MARGIN, (waited.text, elapsed)
    assert "NIMBASE_LIMITS_LIVE_PROCESSES" in waited.json()["error"]["message"], waited.text
    with NimbaseClient(f"127.0.0.1:{ports.grpc}", timeout=30) as client:
        for i in range(4):
            started = time.monotonic()
            health = http.get("/healthz")
            assert health.status_code == 200 and time.monotonic() - started < PROMPT
            started = time.monotonic()
            nim = http.get("/v1/value", params={"game": "nim", "position": "7 10 13 9 3 9"})
            assert nim.status_code == 200 and nim.json()["grundy"] == 3
            assert time.monotonic() - started < PROMPT
            started = time.monotonic()
            assert client.get_value("nim", "7 10 13 9 3 9")["grundy"] == 3
            assert time.monotonic() - started < PROMPT
            started = time.monotonic()  # a stored table, read by the server itself (its first read too)
            stored = http.get("/v1/value", params={"game": "grundy", "position": str(4_000 + i)})
            assert stored.status_code == 200 and stored.json()["source"] == "table", stored.text
            assert time.monotonic() - started < PROMPT
            time.sleep(0.1)
    assert not answers, "the runaway work ended before the cheap requests were timed"
    for thread in threads:
        thread.join()
    for answer, elapsed in answers:  # past the deadline, or past the memory cap on the way
        assert answer.status_code in (504, 422), answer.text
        assert elapsed < 4.0 + MARGIN, f"answered after {elapsed:.2f} s"


def test_a_process_that_dies_is_replaced_and_its_call_answered_internal(
    ready: PooledService, ports: BoundPorts, http: httpx.Client
) -> None:
    """A live process killed from outside: its call gets INTERNAL with the message that says nothing,
    the process is replaced, and the next call is answered."""
    answers: list[tuple[httpx.Response, float]] = []
    thread = threading.Thread(target=lambda: answers.append(runaway_best_move(http, 20000)))
    thread.start()
    wait_until(lambda: any(ready.pool.pids().values()), 3, "one live process busy")
    time.sleep(0.3)
    [busy] = [pid for pid, computing in ready.pool.pids().items() if computing]
    os.kill(busy, signal.SIGKILL)
    thread.join()
    [(answer, elapsed)] = answers
    assert answer.status_code == 500 and elapsed < 5, (answer.text, elapsed)
    assert answer.json()["error"] == {"code": "INTERNAL", "message": INTERNAL_MESSAGE}
    wait_until(lambda: ready.pool.idle() == ready.pool.size, 180, "the killed process replaced")
    assert busy not in ready.pool.pids()
    after = http.get("/v1/value", params={"game": MISERE, "position": "3 4 8"})
    assert after.status_code == 200, after.text


def test_answers_through_the_pool_equal_answers_without_it(
    ready: PooledService, db_engine: sa.Engine, http: httpx.Client
) -> None:
    """Every family's examples: values, best moves, batches, sequences, columnar values and errors, from
    the service and over REST, the same with the pool and without it (each started as a live process
    starts: from its warm-up, service.warm_up)."""
    plain = Nimbase(Settings(limits=LIMITS), db_engine)
    warm_up(Settings(limits=LIMITS), into=plain, adopt=False)
    for game, position in SAMPLE:
        for asked in (GetValue(game, position), IsPPosition(game, position), BestMove(game, position, 3)):
            mine = outcome(getattr(ready, asked.method), asked)
            assert mine == outcome(getattr(plain, asked.method), asked), asked
    for game in ("nim", "subtraction:1,3,4", "octal:0.77", MISERE):
        positions = [position for g, position in SAMPLE if g.partition(":")[0] == game.partition(":")[0]]
        mine, theirs = (
            service.batch_get_values(BatchGetValues(game, [*positions, "x"])) for service in (ready, plain)
        )
        assert [errors_as_text(v) for v in mine] == [errors_as_text(v) for v in theirs], game
    for game in ("subtraction:1,3,4", "octal:0.77", "grundy"):
        assert ready.get_sequence(GetSequence(game, None, 0, 500)) == plain.get_sequence(
            GetSequence(game, None, 0, 500)
        )
        heaps = np.arange(200, dtype=np.uint64)
        assert np.array_equal(
            ready.columnar_values(ColumnarValues(game, heaps)),
            plain.columnar_values(ColumnarValues(game, heaps)),
        )
        assert ready.get_stats(GetStats(game)) == plain.get_stats(GetStats(game))
    for service in (ready, plain):
        with pytest.raises(InvalidPosition) as raised:
            service.get_value(GetValue("nim", "3 x"))
        assert "'3 x'" in str(raised.value)
    with (
        running_server(plain, LIMITS) as bound,
        httpx.Client(base_url=f"http://127.0.0.1:{bound.http}") as other,
    ):
        for game, position in SAMPLE[::3]:
            for route in ("/v1/value", "/v1/best-move"):
                params = {"game": game, "position": position}
                mine, theirs = http.get(route, params=params), other.get(route, params=params)
                assert (mine.status_code, mine.json()) == (theirs.status_code, theirs.json()), (route, game)


def test_a_refusal_crosses_the_process_boundary_with_its_class_and_attributes() -> None:
    """Errors whose constructor takes more than the message (a Pending names its job) keep both."""
    job = JobView(
        7, "octal:0.37", "heap", 1 << 24, False, "queued", 0, 1 << 24, None, "2024-01-01", None, None
    )
    error = unpack_error(
        pickle.loads(pickle.dumps(pack_error(Pending("computing 'octal:0.37' would take long", job))))
    )
    assert type(error) is Pending and isinstance(error, NimbaseError)
    assert str(error) == "computing 'octal:0.37' would take long" and error.job == job


def test_a_server_handed_over_before_its_processes_is_ready_once_they_start(
    database_url: str, db_engine: sa.Engine
) -> None:
    """`nimbase serve` does not wait for its live processes (ProcessPool.start(wait=False)): it
    answers at once what it answers by itself, reports not ready until every process has started, then
    ready. The test starts the pool after the first reads: forked from a template an earlier test had
    warmed, the processes were up before a first read could be made (CI)."""
    settings = Settings(limits=LIMITS)
    pool = ProcessPool(settings, database_url)
    service = PooledService(Nimbase(settings, db_engine), pool)
    try:
        assert service.get_value(GetValue("nim", "7")).outcome == "N"  # a formula, in this process
        first = service.health()
        assert not first.ready
        assert first.details["live_processes"] == {"started": 0, "of": LIMITS.live_processes}
        assert f"0 of {LIMITS.live_processes} ready" in " ".join(first.reasons)
        began = time.monotonic()
        pool.start(wait=False)
        assert time.monotonic() - began < 5  # handed over, not waited for
        wait_until(lambda: service.health().ready, 180, "every live process started")
        assert service.health().details["live_processes"] == {
            "started": LIMITS.live_processes,
            "of": LIMITS.live_processes,
        }
    finally:
        pool.close()
