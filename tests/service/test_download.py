"""GET /v1/sequence:download: a stored range as a gzipped .npy, streamed, equal to GetSequence."""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator

import httpx
import numpy as np
import pytest
import sqlalchemy as sa

from nimbase.settings import Settings
from service.core import Nimbase
from storage.jobs import JobQueue
from tests.database import empty_data_tables
from tests.servers import running_server
from worker.runner import Worker

GAME = "subtraction:1,3,4"
STORED = 150_000


@pytest.fixture(scope="module")
def http(db_engine: sa.Engine) -> Iterator[httpx.Client]:
    empty_data_tables(db_engine)
    JobQueue(db_engine).submit(GAME, "heap", STORED, fill=True)
    JobQueue(db_engine).submit("grundy", "heap", STORED, fill=True)  # no period: its table ends there
    assert Worker(db_engine).run_once() and Worker(db_engine).run_once()
    settings = Settings.model_validate(
        {"limits": {"sequence_values": 40_000, "download_values": 500_000, "live_values": 100_000}}
    )
    with (
        running_server(Nimbase(settings, db_engine), settings.limits) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=60) as client,
    ):
        yield client


def load(reply: httpx.Response) -> np.ndarray:
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"] == "application/gzip"
    return np.load(io.BytesIO(gzip.decompress(reply.content)))


def test_a_stored_range_in_several_blocks_equals_get_sequence(http: httpx.Client) -> None:
    reply = http.get("/v1/sequence:download", params={"game": GAME, "start": 5, "stop": STORED})
    assert 'filename="subtraction_1,3,4_5-150000.npy.gz"' in reply.headers["content-disposition"]
    values = load(reply)
    assert values.dtype == np.dtype("<u4") and values.shape == (STORED - 5,)
    for start in (5, 40_005, 149_000):  # block boundaries of 40,000 values
        sequence = http.get(
            "/v1/sequence", params={"game": GAME, "start": start, "stop": start + 1000}
        ).json()
        assert values[start - 5 : start - 5 + 1000].tolist() == sequence["values"]
    assert len(reply.content) < values.nbytes / 4  # compressed


def test_past_the_table_the_certified_period_answers(http: httpx.Client) -> None:
    values = load(
        http.get("/v1/sequence:download", params={"game": GAME, "start": 10**12, "stop": 10**12 + 300})
    )
    sequence = http.get("/v1/sequence", params={"game": GAME, "start": 10**12, "stop": 10**12 + 300}).json()
    assert values.tolist() == sequence["values"]


@pytest.mark.parametrize(
    ("params", "status", "code"),
    [
        ({"game": GAME, "start": 0, "stop": 500_001}, 400, "INVALID_ARGUMENT"),
        ({"game": GAME, "start": 10, "stop": 5}, 400, "INVALID_ARGUMENT"),
        ({"game": "nosuchgame", "start": 0, "stop": 10}, 404, "NOT_FOUND"),
        ({"game": "bicolor-nim", "family": "x_3", "start": 0, "stop": 10}, 400, "INVALID_ARGUMENT"),
        # its first block is stored, its last beyond the table and what may be computed live: refused
        # before the first byte, not cut short
        ({"game": "grundy", "start": STORED - 50_000, "stop": STORED + 500}, 422, "RESOURCE_EXHAUSTED"),
        # values past uint32, the file's type (nim's value of a heap is the heap)
        ({"game": "nim", "start": 2**63 - 1000, "stop": 2**63 - 1}, 400, "INVALID_ARGUMENT"),
        ({"game": "nim", "start": 2**32 - 5, "stop": 2**32 + 5}, 400, "INVALID_ARGUMENT"),
    ],
)
def test_bad_requests_get_their_error_before_any_byte(
    http: httpx.Client, params: dict[str, object], status: int, code: str
) -> None:
    reply = http.get("/v1/sequence:download", params=params)
    assert reply.status_code == status
    assert reply.json()["error"]["code"] == code
