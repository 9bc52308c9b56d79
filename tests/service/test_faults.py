"""Damaged stored chunks over REST and gRPC (issue 12, cases 8 and 9): a real `Nimbase` over the test
PostgreSQL behind the real servers on loopback, and a real worker running the repairs.

A chunk whose row was deleted, or whose bytes were flipped, is never served. A heap in it is answered
from a certified period, or live within the limits, when they can; otherwise the answer is UNAVAILABLE
naming the range being repaired and its repair job. However often it is read, the damage is reported
once and one repair job is queued; once the worker has run it, the table answers again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache

import httpx
import numpy as np
import pytest
import sqlalchemy as sa
from numpy.typing import NDArray

from engine.registry import parse_game_id
from nimbase.client import NimbaseClient, NimbaseClientError
from nimbase.settings import Limits, Settings
from service.calls import SubmitJob
from service.core import Nimbase
from storage.packing import CHUNK_VALUES
from tests.servers import running_server
from tests.storage.helpers import chunk_rows, corruption_reports, delete_chunk, flip_byte, repair_jobs
from worker.runner import Worker

TOKEN = "faults-token"
#: Live computation stops at heap 1000, so a heap of a stored chunk can come only from its table (or a
#: period): the case that must be refused as being repaired, not as beyond reach.
LIMITS = Limits(live_values=1000)

#: Grundy's game has no period; three chunks of it are stored.
GRUNDY = "grundy"
GRUNDY_UPTO = 3 * CHUNK_VALUES
#: octal:0.16: period 149,459 from 105,351, certified once about 524,288 values are stored.
OCTAL = "octal:0.16"
OCTAL_HEAP = 327_681  # in chunk 5; the period reduces it to heap 178,222 in chunk 2


@cache
def fresh(game: str, stop: int) -> NDArray[np.uint32]:
    """g(0..stop-1) computed from nothing by the game's kernel, for comparing with what is served."""
    kernel = parse_game_id(game).kernel_for("heap")
    assert kernel is not None
    return kernel.extend(np.zeros(0, dtype=np.uint32), stop)


@dataclass
class Endpoints:
    service: Nimbase
    http: httpx.Client
    grpc: NimbaseClient


@contextmanager
def serving(engine: sa.Engine, limits: Limits = LIMITS) -> Iterator[Endpoints]:
    service = Nimbase(Settings(admin_token=TOKEN, limits=limits), engine)
    with (
        running_server(service, limits) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=60) as http,
        NimbaseClient(f"127.0.0.1:{ports.grpc}", token=TOKEN) as grpc,
    ):
        yield Endpoints(service, http, grpc)


def run_worker(engine: sa.Engine) -> None:
    Worker(engine, worker_id="faults-worker", poll_seconds=0).run_until_idle(threading.Event())


def store_table(engine: sa.Engine, game: str, upto: int) -> None:
    Nimbase(Settings(admin_token=TOKEN), engine).submit_job(SubmitJob(game, upto, token=TOKEN))
    run_worker(engine)


def value_over_both(api: Endpoints, game: str, heap: int) -> tuple[dict[str, object], dict[str, object]]:
    """The value of one heap over REST and over gRPC (both must answer)."""
    response = api.http.get("/v1/value", params={"game": game, "position": str(heap)})
    assert response.status_code == 200, response.text
    return response.json(), dict(api.grpc.get_value(game, str(heap)))


def refusals_over_both(api: Endpoints, game: str, heap: int) -> list[str]:
    """The messages of a heap's refusal over REST and gRPC, each checked to be UNAVAILABLE (503)."""
    response = api.http.get("/v1/value", params={"game": game, "position": str(heap)})
    assert response.status_code == 503, response.text
    assert response.json()["error"]["code"] == "UNAVAILABLE"
    with pytest.raises(NimbaseClientError) as error:
        api.grpc.get_value(game, str(heap))
    assert error.value.code == "UNAVAILABLE"
    return [response.json()["error"]["message"], error.value.message]


def wait_for_table(api: Endpoints, game: str, heap: int, expected: int, seconds: float = 20) -> None:
    """Poll until REST answers `heap` from the table (a damaged chunk is read again after a couple of
    seconds), then check both transports give the right value from it."""
    deadline = time.monotonic() + seconds
    while True:
        response = api.http.get("/v1/value", params={"game": game, "position": str(heap)})
        if response.status_code == 200 and response.json()["source"] == "table":
            break
        assert time.monotonic() < deadline, (
            f"heap {heap} of {game!r} is not served from its table: {response.text}"
        )
        time.sleep(0.2)
    for answer in value_over_both(api, game, heap):
        assert (answer["source"], answer["grundy"]) == ("table", expected)


def check_refused_as_being_repaired(api: Endpoints, engine: sa.Engine, heap: int, chunk: int) -> int:
    """Every way of asking for `heap` (value, batch, sequence, stats) is refused as being repaired, naming
    the range of `chunk` and its one repair job; its id."""
    first, last = chunk * CHUNK_VALUES, (chunk + 1) * CHUNK_VALUES - 1
    messages = refusals_over_both(api, GRUNDY, heap) + refusals_over_both(api, GRUNDY, heap + 1)
    [(job_id, index, _)] = repair_jobs(engine, GRUNDY)
    assert index == chunk
    for message in messages:
        assert f"heaps {first}..{last} of 'grundy' are being repaired" in message, message
        assert f"repair job {job_id}" in message and f"GET /v1/jobs/{job_id}" in message, message
        assert "beyond" not in message and "reach" not in message, message
    g = fresh(GRUNDY, GRUNDY_UPTO)
    positions = ["5", str(heap), str(first - 1), str(2 * CHUNK_VALUES + 7)]
    for batch in (
        api.http.post("/v1/values:batch", json={"game": GRUNDY, "positions": positions}).json(),
        api.grpc.batch_get_values(GRUNDY, positions),
    ):
        slots = batch["values"]
        assert [slots[i]["grundy"] for i in (0, 2, 3)] == [g[5], g[first - 1], g[2 * CHUNK_VALUES + 7]]
        assert slots[2]["source"] == slots[3]["source"] == "table"
        assert slots[1]["error"]["code"] == "UNAVAILABLE"
        assert f"heaps {first}..{last} of 'grundy' are being repaired" in slots[1]["error"]["message"]
    response = api.http.get("/v1/sequence", params={"game": GRUNDY, "start": first - 10, "stop": first + 10})
    assert response.status_code == 503 and "being repaired" in response.json()["error"]["message"]
    with pytest.raises(NimbaseClientError) as error:
        api.grpc.get_sequence(GRUNDY, first - 10, first + 10)
    assert error.value.code == "UNAVAILABLE"
    response = api.http.get("/v1/sequence", params={"game": GRUNDY, "start": first - 10, "stop": first})
    assert response.status_code == 200 and response.json()["values"] == g[first - 10 : first].tolist()
    # The table's statistics were stored beside it by its job: GetStats reads them, not the chunk.
    response = api.http.get("/v1/stats", params={"game": GRUNDY})
    assert response.status_code == 200 and response.json()["computed_upto"] == GRUNDY_UPTO
    return job_id


def test_a_missing_chunk_of_a_periodic_game_is_answered_from_its_period(clean_db: sa.Engine) -> None:
    """Case 8 as reported: octal:0.16 heap 327,681 gave 500 (NotStored) once its chunk row was deleted."""
    store_table(clean_db, OCTAL, 600_000)
    rows = chunk_rows(clean_db)
    expected = int(fresh(OCTAL, OCTAL_HEAP + 1)[OCTAL_HEAP])
    with serving(clean_db) as api:
        assert value_over_both(api, OCTAL, OCTAL_HEAP)[0]["source"] == "table"
        api.service.tables.forget()  # a replica that has not read the chunk yet (nor answered the heap)
        api.service.answers.clear()
        delete_chunk(clean_db, OCTAL, OCTAL_HEAP // CHUNK_VALUES)
        for _ in range(3):
            for answer in value_over_both(api, OCTAL, OCTAL_HEAP):
                assert (answer["source"], answer["grundy"]) == ("period", expected)
        # The missing chunk is reported once and one repair job is queued, however often it is read.
        assert corruption_reports(clean_db, OCTAL) == [(5, False)]
        assert [(index, status) for _, index, status in repair_jobs(clean_db, OCTAL)] == [(5, "queued")]
        run_worker(clean_db)
        assert chunk_rows(clean_db) == rows  # restored byte for byte
        assert corruption_reports(clean_db, OCTAL) == [(5, True)]
        assert [status for _, _, status in repair_jobs(clean_db, OCTAL)] == ["done"]
        wait_for_table(api, OCTAL, OCTAL_HEAP, expected)


def test_a_missing_chunk_without_a_period_is_refused_as_being_repaired_until_repaired(
    clean_db: sa.Engine,
) -> None:
    """Case 8 without a period, beyond the live limit: UNAVAILABLE naming the range and its one repair
    job (not 500, not a limit), then, once the worker has restored the chunk, the table answers."""
    store_table(clean_db, GRUNDY, GRUNDY_UPTO)
    rows = chunk_rows(clean_db)
    heap = CHUNK_VALUES + 1234
    delete_chunk(clean_db, GRUNDY, 1)
    with serving(clean_db) as api:
        for _ in range(3):
            job_id = check_refused_as_being_repaired(api, clean_db, heap, 1)
        assert corruption_reports(clean_db, GRUNDY) == [(1, False)]
        assert repair_jobs(clean_db, GRUNDY) == [(job_id, 1, "queued")]
        run_worker(clean_db)
        assert chunk_rows(clean_db) == rows
        assert repair_jobs(clean_db, GRUNDY) == [(job_id, 1, "done")]
        assert corruption_reports(clean_db, GRUNDY) == [(1, True)]
        wait_for_table(api, GRUNDY, heap, int(fresh(GRUNDY, GRUNDY_UPTO)[heap]))


def test_a_corrupt_chunk_is_reported_once_refused_as_being_repaired_and_never_served(
    clean_db: sa.Engine,
) -> None:
    """Case 9: a flipped byte in Grundy's game (no period) gave a 422 saying the heap was beyond reach,
    and every read added a corruption report. Now: one report, one repair job, UNAVAILABLE naming them
    where only the table could answer, the live answer where live computation can, and after the
    repair the table again, byte for byte as computed afresh."""
    store_table(clean_db, GRUNDY, GRUNDY_UPTO)
    rows = chunk_rows(clean_db)
    g = fresh(GRUNDY, GRUNDY_UPTO)
    heap = 2 * CHUNK_VALUES - 3
    flip_byte(clean_db, GRUNDY, 1, offset=4321)
    assert chunk_rows(clean_db) != rows
    with serving(clean_db) as api, serving(clean_db, Limits()) as live:
        for _ in range(3):
            job_id = check_refused_as_being_repaired(api, clean_db, heap, 1)
        # A replica whose live limit reaches the heap answers it live, and reports nothing more.
        for answer in value_over_both(live, GRUNDY, heap):
            assert (answer["source"], answer["grundy"]) == ("live", int(g[heap]))
        assert corruption_reports(clean_db, GRUNDY) == [(1, False)]
        assert repair_jobs(clean_db, GRUNDY) == [(job_id, 1, "queued")]
        run_worker(clean_db)
        assert repair_jobs(clean_db, GRUNDY) == [(job_id, 1, "done")]
        assert chunk_rows(clean_db) == rows
        assert corruption_reports(clean_db, GRUNDY) == [(1, True)]
        wait_for_table(api, GRUNDY, heap, int(g[heap]))
        sequence = api.grpc.get_sequence(GRUNDY, 0, GRUNDY_UPTO)
        assert sequence["values"] == g.tolist() and sequence["source"] == "table"


def test_a_cached_partial_chunk_is_read_again_once_the_table_grows(clean_db: sa.Engine) -> None:
    """The last chunk of a table is partial; once a worker extends the table past it, a replica that
    cached it must read it again, not index past its end (an IndexError, 500)."""
    store_table(clean_db, GRUNDY, CHUNK_VALUES + 4000)
    g = fresh(GRUNDY, CHUNK_VALUES + 60_000)
    with serving(clean_db) as api:
        for answer in value_over_both(api, GRUNDY, CHUNK_VALUES + 10):
            assert (answer["source"], answer["grundy"]) == ("table", g[CHUNK_VALUES + 10])
        store_table(clean_db, GRUNDY, CHUNK_VALUES + 60_000)
        wait_for_table(api, GRUNDY, CHUNK_VALUES + 50_000, int(g[CHUNK_VALUES + 50_000]))
        sequence = api.grpc.get_sequence(GRUNDY, CHUNK_VALUES, CHUNK_VALUES + 60_000)
        assert sequence["values"] == g[CHUNK_VALUES:].tolist() and sequence["source"] == "table"
