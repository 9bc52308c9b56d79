"""Hostile clients, round two: each request a probe of the running service found wrong, reproduced at a
size `make test` affords, over both transports where both carry it.

This file holds defects 1 (a heap of 2^63-1 stones), 2 (values past int64 on gRPC), 6 (refusals quoting
whole positions) and 10 (graph names '.' and '..'). The others are tested beside the code that mends
them: 3 and 4 (downloads cut short, values past uint32) in tests/service/test_download.py; 5 (misère
searches past their deadline and memory) in tests/engine/test_search.py and, over the servers, the
runaway requests of tests/service/test_isolation.py, which also holds 7 (cheap requests beside expensive
ones); 8 and 9 (automatic jobs past their bounds, queued when they cannot help, one client holding every
slot) in tests/worker/test_bounds.py, tests/service/test_automatic.py and tests/storage/test_jobs.py; 11
(headers sent a byte at a time) in tests/service/test_http.py; 12 (the OpenAPI document looser than the
server) in tests/fuzz and tests/service/test_rest.py. `make soak` and `bench.bench_isolation` run the
load at full size.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest
import sqlalchemy as sa

from nimbase.settings import Settings
from nimbase.v1 import nimbase_pb2 as pb
from nimbase.v1 import nimbase_pb2_grpc
from service.core import Nimbase
from tests.servers import running_server
from tests.service.fake_service import FakeService

HUGE = 2**63 - 1
TOKEN = "hostile-token"


@pytest.fixture(scope="module")
def real(db_engine: sa.Engine) -> Iterator[tuple[httpx.Client, Any]]:
    with (
        running_server(Nimbase(Settings(admin_token=TOKEN), db_engine)) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=30) as http,
        grpc.insecure_channel(f"127.0.0.1:{ports.grpc}") as channel,
    ):
        yield http, nimbase_pb2_grpc.NimbaseStub(channel)  # type: ignore[no-untyped-call]


@pytest.fixture(scope="module")
def fake() -> Iterator[Any]:
    with running_server(FakeService()) as ports, grpc.insecure_channel(f"127.0.0.1:{ports.grpc}") as channel:
        yield nimbase_pb2_grpc.NimbaseStub(channel)  # type: ignore[no-untyped-call]


# ---- 1: a heap of 2^63-1 stones --------------------------------------------------------------------


@pytest.mark.parametrize("position", [f"{HUGE}w", f"{HUGE}b"])
def test_best_move_of_a_huge_bicolor_heap_is_answered(real: tuple[httpx.Client, Any], position: str) -> None:
    """It built every move first and grew the server until the kernel killed it."""
    http, stub = real
    params = {"game": "bicolor-nim", "position": position, "limit": 2}
    reply = http.get("/v1/best-move", params=params, headers={"x-deadline-ms": "5000"})
    assert reply.status_code == 200, reply.text
    moves = reply.json()["moves"]
    assert 1 <= len(moves) <= 2 and moves[0]["outcome"] == "P"
    answer = stub.BestMove(pb.BestMoveRequest(game="bicolor-nim", position=position, limit=2), timeout=5)
    assert [m.move for m in answer.moves] == [m["move"] for m in moves]


# ---- 2: values of 2^63 and more on gRPC ------------------------------------------------------------


def test_g_minus_of_2_63_travels_on_grpc(real: tuple[httpx.Client, Any]) -> None:
    """bicolor-nim's G- of a heap of 2^63-1 white stones is 2^63: REST sent it, gRPC answered INTERNAL."""
    http, stub = real
    position = f"{HUGE}w"
    rest = http.get("/v1/value", params={"game": "bicolor-nim", "position": position}).json()
    assert rest["grundy_black"] == 2**63
    value = stub.GetValue(pb.GetValueRequest(game="bicolor-nim", position=position), timeout=10)
    assert value.bicolor.grundy_black == 2**63 and value.grundy == HUGE
    p = stub.IsPPosition(pb.IsPPositionRequest(game="bicolor-nim", position=position), timeout=10)
    assert p.value.bicolor.grundy_black == 2**63 and not p.p_position
    batch = stub.BatchGetValues(
        pb.BatchGetValuesRequest(game="bicolor-nim", positions=[position, "1w"]), timeout=10
    )
    assert [slot.value.bicolor.grundy_black for slot in batch.values] == [2**63, 2]


def test_a_number_beyond_int64_is_an_error_of_its_own_slot(fake: Any) -> None:
    """The fake's remoteness is the heaps' sum: two heaps of 2^63-1 make it 2^64-2. Unary calls answer
    INVALID_ARGUMENT naming it; a batch fails that slot only, and a stream that item only."""
    big = f"{HUGE} {HUGE}"
    with pytest.raises(grpc.RpcError) as info:
        fake.GetValue(pb.GetValueRequest(game="nim", position=big), timeout=10)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    assert "64-bit" in info.value.details()  # type: ignore[attr-defined]
    batch = fake.BatchGetValues(pb.BatchGetValuesRequest(game="nim", positions=[big, "1 2"]), timeout=10)
    assert batch.values[0].error.code == "INVALID_ARGUMENT" and not batch.values[0].HasField("value")
    assert batch.values[1].value.grundy == 3
    requests = [pb.StreamValuesRequest(game="nim", position=p) for p in (big, "1 2", big, "3")]
    replies = list(fake.StreamValues(iter(requests), timeout=10))
    assert [r.WhichOneof("result") for r in replies] == ["error", "value", "error", "value"]
    streamed = list(
        fake.StreamBatches(iter([pb.BatchGetValuesRequest(game="nim", positions=[big, "1 2"])]), timeout=10)
    )
    assert [slot.WhichOneof("result") for slot in streamed[0].values] == ["error", "value"]


# ---- 10: graph names that are path segments ----------------------------------------------------------


@pytest.mark.parametrize("name", [".", ".."])
def test_graph_names_that_are_path_segments_are_refused(real: tuple[httpx.Client, Any], name: str) -> None:
    http, _ = real
    body = {"name": name, "vertices": ["a", "b"], "edges": [["a", "b"]]}
    reply = http.post("/v1/graphs", json=body, headers={"authorization": f"Bearer {TOKEN}"})
    assert reply.status_code == 400, reply.text
    assert repr(name) in reply.json()["error"]["message"]


# ---- 6: refusals that quote whole positions ------------------------------------------------------------


def test_a_refusal_of_a_huge_position_is_short_on_both_transports(real: tuple[httpx.Client, Any]) -> None:
    """A misère sum of 100,000 heaps is hopeless for the live search: its refusal quoted the whole
    position (a 2 MB answer; over gRPC past the metadata limit, which the client reported instead)."""
    http, stub = real
    position = " ".join(["7"] * 100_000)
    reply = http.post(
        "/v1/values:batch", json={"game": "subtraction:1,3,4,99:misere", "positions": [position]}
    )
    assert reply.status_code == 200, reply.text[:300]
    error = reply.json()["values"][0]["error"]
    assert error["code"] == "RESOURCE_EXHAUSTED" and len(error["message"]) < 1000
    with pytest.raises(grpc.RpcError) as info:
        stub.GetValue(pb.GetValueRequest(game="subtraction:1,3,4,99:misere", position=position), timeout=30)
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]
    assert len(info.value.details()) < 1000  # type: ignore[attr-defined]
