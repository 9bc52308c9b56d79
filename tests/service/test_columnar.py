"""Columnar bulk lookups (issue 10): packed arrays in and out, checked value by value against the
single-value path, refused whole on bad input, and a million stored heaps in one call.

A real `Nimbase` over the test PostgreSQL with tables stored by a real worker, served by the real gRPC
and REST servers on loopback.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import numpy as np
import pytest
import sqlalchemy as sa
from numpy.typing import NDArray

from nimbase.client import NimbaseClient, NimbaseClientError
from nimbase.settings import Limits, Settings
from service.calls import ColumnarValues, GetSequence, SubmitJob
from service.core import Nimbase
from storage.packing import CHUNK_VALUES
from tests.database import empty_data_tables
from tests.servers import running_server
from worker.runner import Worker

TOKEN = "columnar-test-token"
#: Stored with a certified period: heaps below STORED_UPTO come from the table, the others from the period.
PERIODIC = "subtraction:1,3,4"
STORED_UPTO = 1 << 20
#: Stored without any period (none is known for Grundy's game): heaps above its table are computed live.
APERIODIC = "grundy"
APERIODIC_UPTO = 2 * CHUNK_VALUES
LIVE_TOP = APERIODIC_UPTO + 8_000
#: One heap more than a call may hold, within the body cap, so the count limit itself is reached.
LIMITS = Limits(columnar_values=1 << 20, columnar_body_bytes=(8 << 20) + 64)
OCTET = {"content-type": "application/octet-stream"}


@dataclass(frozen=True)
class Served:
    service: Nimbase
    client: NimbaseClient
    http: httpx.Client


@pytest.fixture(scope="module")
def served(db_engine: sa.Engine) -> Iterator[Served]:
    empty_data_tables(db_engine)
    service = Nimbase(Settings(admin_token=TOKEN, limits=LIMITS), db_engine)
    service.submit_job(SubmitJob(PERIODIC, STORED_UPTO, True, token=TOKEN))
    service.submit_job(SubmitJob(APERIODIC, APERIODIC_UPTO, token=TOKEN))
    Worker(db_engine, worker_id="columnar-test-worker", poll_seconds=0).run_until_idle(threading.Event())
    with (
        running_server(service, LIMITS) as ports,
        NimbaseClient(f"127.0.0.1:{ports.grpc}", timeout=60.0) as client,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=60.0) as http,
    ):
        yield Served(service, client, http)


def body(heaps: list[int] | NDArray[np.uint64]) -> bytes:
    return np.asarray(heaps, dtype="<u8").tobytes()


def rest_values(http: httpx.Client, game: str, heaps: list[int] | NDArray[np.uint64]) -> NDArray[np.uint32]:
    reply = http.post("/v1/values:columnar", params={"game": game}, content=body(heaps), headers=OCTET)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"] == "application/octet-stream"
    return np.frombuffer(reply.content, dtype="<u4")


def single_values(client: NimbaseClient, game: str, positions: list[str]) -> tuple[list[int], set[str]]:
    """Grundy values and sources by BatchGetValues (10,000 a call), every one answered."""
    values: list[int] = []
    sources: set[str] = set()
    for i in range(0, len(positions), 10_000):
        for item in client.batch_get_values(game, positions[i : i + 10_000])["values"]:
            assert "error" not in item, item
            grundy = item.get("grundy")
            assert isinstance(grundy, int)
            values.append(grundy)
            sources.add(str(item["source"]))
    return values, sources


def assert_rest_error(reply: httpx.Response, status: int, code: str, *quoted: str) -> None:
    """The contract's error body, and nothing of an answer (no partial values)."""
    assert reply.status_code == status, reply.text
    assert reply.headers["content-type"].startswith("application/json")
    error = reply.json()["error"]
    assert set(reply.json()) == {"error"} and set(error) <= {"code", "message", "job"}
    assert error["code"] == code
    for text in quoted:
        assert text in error["message"], error["message"]
    assert "Traceback" not in reply.text


def assert_grpc_error(call: object, code: str, *quoted: str) -> NimbaseClientError:
    assert callable(call)
    with pytest.raises(NimbaseClientError) as refused:
        call()
    assert refused.value.code == code, refused.value
    for text in quoted:
        assert text in refused.value.message, refused.value.message
    return refused.value


# ---- the same values as the single-value path ------------------------------------------------------


def test_stored_periodic_and_live_heaps_match_the_single_value_path(served: Served) -> None:
    """Random heaps answered from the table, the period, live computation and a closed form, both
    transports, compared value by value with BatchGetValues (and a sample with GetValue)."""
    rng = random.Random(10)
    cases = {
        PERIODIC: [
            *(rng.randrange(STORED_UPTO) for _ in range(3000)),
            *(rng.randrange(STORED_UPTO, 2**63) for _ in range(1000)),
            0,
            STORED_UPTO - 1,
            STORED_UPTO,
            2**63 - 1,
        ],
        APERIODIC: [
            *(rng.randrange(APERIODIC_UPTO) for _ in range(2000)),
            *(rng.randrange(APERIODIC_UPTO, LIVE_TOP) for _ in range(1000)),
            APERIODIC_UPTO - 1,
            LIVE_TOP,
        ],
        "octal:0.137": [rng.randrange(2**40) for _ in range(500)],  # a period certified live
        "nim": [rng.randrange(2**32) for _ in range(500)],
        "subtraction:1,2,3": [rng.randrange(2**63) for _ in range(500)],  # a closed form without a period
    }
    sources: set[str] = set()
    for game, heaps in cases.items():
        rng.shuffle(heaps)
        expected, used = single_values(served.client, game, [str(h) for h in heaps])
        sources |= used
        assert served.client.columnar_values(game, heaps).tolist() == expected, game
        assert served.client.columnar_values(game, np.array(heaps, dtype=np.uint64)).tolist() == expected
        assert rest_values(served.http, game, heaps).tolist() == expected, game
        for i in rng.sample(range(len(heaps)), 20):
            assert served.client.get_value(game, str(heaps[i]))["grundy"] == expected[i]
    assert sources == {"table", "period", "live", "formula"}


def test_sums_by_offsets_match_batch_values(served: Served) -> None:
    """Sums over gRPC (heaps plus offsets, empty positions included) against BatchGetValues of the same
    positions as text."""
    rng = random.Random(11)
    for game in (PERIODIC, APERIODIC, "nim"):
        top = LIVE_TOP if game == APERIODIC else STORED_UPTO * 4
        positions = [[rng.randrange(top) for _ in range(rng.choice((0, 1, 2, 3, 7)))] for _ in range(3000)]
        heaps = [h for position in positions for h in position]
        offsets = np.cumsum([0, *map(len, positions)]).tolist()
        expected, _ = single_values(served.client, game, [" ".join(map(str, p)) for p in positions])
        assert served.client.columnar_values(game, heaps, offsets).tolist() == expected, game


def test_an_empty_call_is_answered_empty(served: Served) -> None:
    assert served.client.columnar_values(PERIODIC, []).tolist() == []
    assert served.client.columnar_values(PERIODIC, [], [0]).tolist() == []
    assert rest_values(served.http, PERIODIC, []).tolist() == []


def test_a_million_stored_heaps_in_one_call(served: Served) -> None:
    """1,000,000 random heaps of a stored table, over both transports, against the table itself."""
    heaps = np.random.default_rng(12).integers(0, 1_000_000, 1_000_000, dtype=np.uint64)
    table = served.service.get_sequence(GetSequence(PERIODIC, None, 0, 1_000_000))
    assert table.source == "table"
    expected = np.array(table.values)[heaps.astype(np.int64)]
    assert np.array_equal(served.client.columnar_values(PERIODIC, heaps), expected)
    assert np.array_equal(rest_values(served.http, PERIODIC, heaps), expected)


# ---- bad input: the contract's error, and never half an answer -------------------------------------


def test_bad_rest_bodies_are_refused_with_the_contracts_errors(served: Served) -> None:
    http = served.http
    route = "/v1/values:columnar"
    good = body([1, 2, 3])
    for headers, sent in (
        ({"content-type": "application/json"}, "'application/json'"),
        ({"content-type": "text/plain"}, "'text/plain'"),
        ({}, "got none"),
    ):
        reply = http.post(route, params={"game": PERIODIC}, content=good, headers=headers)
        assert_rest_error(reply, 400, "INVALID_ARGUMENT", "application/octet-stream", sent)
    charset = {"content-type": "Application/Octet-Stream; charset=binary"}
    assert http.post(route, params={"game": PERIODIC}, content=good, headers=charset).status_code == 200
    truncated = http.post(route, params={"game": PERIODIC}, content=good[:-3], headers=OCTET)
    assert_rest_error(truncated, 400, "INVALID_ARGUMENT", "21 bytes", "multiple of 8")
    missing = http.post(route, content=good, headers=OCTET)
    assert_rest_error(missing, 400, "INVALID_ARGUMENT", "game")
    too_many = body(np.zeros(LIMITS.columnar_values + 1, dtype=np.uint64))
    assert len(too_many) <= LIMITS.columnar_body_bytes
    reply = http.post(route, params={"game": PERIODIC}, content=too_many, headers=OCTET)
    assert_rest_error(reply, 400, "INVALID_ARGUMENT", f"{LIMITS.columnar_values + 1} heaps")
    over = too_many + body([1] * 9)
    for content in (over, iter([over[: len(over) // 2], over[len(over) // 2 :]])):  # declared, chunked
        reply = http.post(route, params={"game": PERIODIC}, content=content, headers=OCTET)
        assert_rest_error(reply, 413, "RESOURCE_EXHAUSTED", "NIMBASE_LIMITS_COLUMNAR_BODY_BYTES")
    deadline = {**OCTET, "x-deadline-ms": "soon"}
    assert_rest_error(
        http.post(route, params={"game": PERIODIC}, content=good, headers=deadline),
        400,
        "INVALID_ARGUMENT",
        "x-deadline-ms",
    )


@pytest.mark.parametrize(
    ("game", "heaps", "status", "code", "quoted"),
    [
        ("nosuchgame", [1], 404, "NOT_FOUND", "nosuchgame"),
        ("subtraction:", [1], 400, "INVALID_ARGUMENT", "subtraction:"),
        (f"{PERIODIC}:misere", [1, 2], 409, "FAILED_PRECONDITION", "misère"),
        ("wythoff", [1, 2], 409, "FAILED_PRECONDITION", "heap games only"),
        (PERIODIC, [5, 2**63, 7], 400, "INVALID_ARGUMENT", "heap 9223372036854775808 (at index 1)"),
        ("nim", [5, 2**32, 7], 400, "INVALID_ARGUMENT", ("4294967296", "uint32")),
        (APERIODIC, [5, 10**7, 7, 10**6], 422, "RESOURCE_EXHAUSTED", "heap 10000000 of 'grundy'"),
    ],
)
def test_one_bad_heap_or_game_fails_the_whole_call(
    served: Served, game: str, heaps: list[int], status: int, code: str, quoted: tuple[str, ...] | str
) -> None:
    """Both transports refuse the call with the same code; the good heaps beside a bad one get nothing."""
    texts = (quoted,) if isinstance(quoted, str) else quoted
    reply = served.http.post("/v1/values:columnar", params={"game": game}, content=body(heaps), headers=OCTET)
    assert_rest_error(reply, status, code, *texts)
    assert_grpc_error(lambda: served.client.columnar_values(game, heaps), code, *texts)


def test_a_heap_beyond_reach_names_the_job_queued_for_it(served: Served) -> None:
    """Past the live limit (2^22) but within what an automatic job computes (2^24, which a heap of
    20,000,000 is not: no job is queued for that one, tests/service/test_automatic.py)."""
    refused = assert_grpc_error(
        lambda: served.client.columnar_values(APERIODIC, [1, 10_000_000]), "RESOURCE_EXHAUSTED", "job"
    )
    assert refused.job is not None and refused.job["game"] == APERIODIC


@pytest.mark.parametrize(
    ("heaps", "offsets", "quoted"),
    [
        ([1, 2, 3], [0, 2, 1, 3], "offsets[2] = 1 is below offsets[1] = 2"),
        ([1, 2, 3], [1, 3], "must start at 0"),
        ([1, 2, 3], [0, 2], "must end at the number of heaps, 3"),
        ([1, 2, 3], [0, 2, 4], "must end at the number of heaps, 3"),
        ([1, 2, 3], [0, 2**64 - 1, 3], "offsets[2] = 3 is below offsets[1] = 18446744073709551615"),
        ([], [5], "must start at 0"),
    ],
)
def test_bad_offsets_are_refused(served: Served, heaps: list[int], offsets: list[int], quoted: str) -> None:
    assert_grpc_error(
        lambda: served.client.columnar_values(PERIODIC, heaps, offsets), "INVALID_ARGUMENT", quoted
    )


def test_too_many_heaps_over_grpc_are_refused(served: Served) -> None:
    heaps = np.zeros(LIMITS.columnar_values + 1, dtype=np.uint64)
    assert_grpc_error(
        lambda: served.client.columnar_values(PERIODIC, heaps),
        "INVALID_ARGUMENT",
        f"{LIMITS.columnar_values + 1} heaps",
        "NIMBASE_LIMITS_COLUMNAR_VALUES",
    )
    offsets = list(range(LIMITS.columnar_values + 2))
    assert_grpc_error(
        lambda: served.client.columnar_values(PERIODIC, [1], offsets), "INVALID_ARGUMENT", "offsets"
    )


def test_the_deadline_bounds_live_work(served: Served) -> None:
    """A call needing long live work past its deadline is refused whole (RESOURCE_EXHAUSTED naming the
    heap, or DEADLINE_EXCEEDED), promptly."""
    started = time.monotonic()
    reply = served.http.post(
        "/v1/values:columnar",
        params={"game": "octal:0.6"},
        content=body([1, 3_000_000]),
        headers={**OCTET, "x-deadline-ms": "200"},
    )
    assert reply.status_code in (422, 504), reply.text
    assert "application/json" in reply.headers["content-type"]
    assert time.monotonic() - started < 5


def test_a_columnar_answer_is_sent_as_it_is_to_a_client_accepting_gzip(served: Served) -> None:
    """Packed arrays are for speed: compressing a million values cost more than looking them up."""
    heaps = list(range(5000))
    reply = served.http.post(
        "/v1/values:columnar",
        params={"game": PERIODIC},
        content=body(heaps),
        headers={**OCTET, "accept-encoding": "gzip"},
    )
    assert reply.status_code == 200 and "content-encoding" not in reply.headers
    expected = served.service.columnar_values(ColumnarValues(PERIODIC, np.array(heaps, dtype=np.uint64)))
    assert np.frombuffer(reply.content, dtype="<u4").tolist() == expected.tolist()
