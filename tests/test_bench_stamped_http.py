"""The hostile bench's stamped HTTP client (bench.stamped_http) against a real server on loopback: the
answers it reads, and the kernel's stamp of each answer's arrival between its send and its read."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

import pytest

from bench.bench_isolation import BATCH, _rest
from bench.stamped_http import StampedConnection
from nimbase.settings import Settings
from service.core import Nimbase
from tests.servers import running_server


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with running_server(Nimbase(Settings(), None)) as ports:
        yield f"http://127.0.0.1:{ports.http}"


def test_answers_on_one_kept_connection_each_stamped_between_send_and_read(base: str) -> None:
    with StampedConnection(base) as http:
        for heaps, expected in (("3 5 6", 0), ("1 2", 3)):
            answer = http.get("/v1/value", {"game": "nim", "position": heaps}, {"x-deadline-ms": "2000"})
            assert answer.status == 200
            assert json.loads(answer.body)["grundy"] == expected
            assert answer.sent <= answer.arrived <= answer.read
            assert answer.read - answer.sent < 5
            assert "app;dur=" in answer.headers["server-timing"]
        batch = http.post_json(BATCH, {"game": "nim", "positions": ["1", "2 2"]}, {})
        assert batch.status == 200
        assert [slot["grundy"] for slot in json.loads(batch.body)["values"]] == [1, 0]


def test_the_bench_reads_outcome_server_time_and_arrival(base: str) -> None:
    with StampedConnection(base) as http:
        outcome, detail, server, arrived = _rest(
            http, "/v1/value", {"game": "nim", "position": "-1"}, {"x-deadline-ms": "2000"}
        )
    assert outcome == "400" and detail == ""
    assert 0 <= server <= arrived < 5


def test_a_closed_server_is_a_client_failure_not_an_exception() -> None:
    with StampedConnection("http://127.0.0.1:9") as http:
        outcome, _detail, server, arrived = _rest(http, "/v1/value", {"game": "nim", "position": "1"}, {})
    assert outcome.startswith("CLIENT-") and math.isnan(server) and math.isnan(arrived)
