"""Long answers written as the client reads (issue 31): a long GET /v1/sequence is streamed a piece at a
time with the bytes, headers and 304s of the whole answer, a silent reader holds a few pieces of it and
not the answer, and cheap lookups are answered meanwhile over both transports.

A real `Nimbase` over the test PostgreSQL (one game stored by a real worker), served by the real gRPC and
REST servers on loopback; the service counts the pieces it is asked for.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, cast

import httpx
import pytest
import sqlalchemy as sa
from fastapi.responses import JSONResponse

from engine.values import SequenceResult
from nimbase.client import NimbaseClient
from nimbase.settings import Limits, Settings
from service import convert, grpc_server, long_sequences
from service.calls import GetSequence, SubmitJob
from service.core import Nimbase
from service.long_sequences import PIECE_VALUES
from tests.database import empty_data_tables
from tests.servers import running_server
from worker.runner import Worker

TOKEN = "long-answers-token"
#: Stored with a certified period: a range past its table is answered from the table, then the period.
PERIODIC = "subtraction:1,3,4"
STORED_UPTO = 3 * PIECE_VALUES + 100
#: The longest range a call may ask for here: an answer of about 32 MB, far beyond the kernel's buffers.
LONGEST = 4_000_000
LIMITS = Limits(sequence_values=LONGEST)


class CountingNimbase(Nimbase):
    """A real service that counts the sequence pieces it is asked for, by range length."""

    def __init__(self, settings: Settings, engine: sa.Engine) -> None:
        super().__init__(settings, engine)
        self.asked = 0
        self._lock = threading.Lock()

    def get_sequence(self, asked: GetSequence) -> SequenceResult:
        with self._lock:
            self.asked += 1
        return super().get_sequence(asked)


@dataclass(frozen=True)
class Served:
    service: CountingNimbase
    http: httpx.Client
    client: NimbaseClient
    port: int


@pytest.fixture(scope="module")
def served(db_engine: sa.Engine) -> Iterator[Served]:
    empty_data_tables(db_engine)
    service = CountingNimbase(Settings(admin_token=TOKEN, limits=LIMITS), db_engine)
    service.submit_job(SubmitJob(PERIODIC, STORED_UPTO, True, token=TOKEN))
    Worker(db_engine, worker_id="long-answers-worker", poll_seconds=0).run_until_idle(threading.Event())
    with (
        running_server(service, LIMITS) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=60.0) as http,
        NimbaseClient(f"127.0.0.1:{ports.grpc}", timeout=60.0) as client,
    ):
        yield Served(service, http, client, ports.http)


def whole_answer(service: Nimbase, game: str, start: int, stop: int) -> bytes:
    """What GET /v1/sequence sent before it streamed: the whole answer, encoded at once."""
    return bytes(
        JSONResponse(
            convert.sequence_as_dict(service.get_sequence(GetSequence(game, None, start, stop)))
        ).body
    )


@pytest.mark.parametrize(
    ("game", "start", "stop"),
    [
        ("nim", 5, 5 + 2 * PIECE_VALUES + 17),  # a formula
        (PERIODIC, 0, STORED_UPTO),  # the stored table
        (PERIODIC, 100, STORED_UPTO + 3 * PIECE_VALUES),  # the table, then the certified period
    ],
)
def test_a_long_sequence_is_the_whole_answers_bytes(served: Served, game: str, start: int, stop: int) -> None:
    expected = whole_answer(served.service, game, start, stop)
    params = {"game": game, "start": str(start), "stop": str(stop)}
    for encoding in ("identity", "gzip"):
        reply = served.http.get("/v1/sequence", params=params, headers={"accept-encoding": encoding})
        assert reply.status_code == 200, reply.text
        assert reply.headers["transfer-encoding"] == "chunked"  # streamed, not sent whole
        assert reply.headers["content-type"] == "application/json"
        assert reply.content == expected  # httpx undoes the gzip
        assert "immutable" in reply.headers["cache-control"]
    tag = served.http.get("/v1/sequence", params=params, headers={"accept-encoding": "identity"}).headers[
        "etag"
    ]
    again = served.http.get("/v1/sequence", params=params, headers={"if-none-match": tag})
    assert again.status_code == 304 and again.content == b""
    other = {**params, "stop": str(stop + 1)}
    assert served.http.get("/v1/sequence", params=other).headers["etag"] != tag


def test_a_long_range_is_checked_before_anything_is_sent(served: Served) -> None:
    too_long = served.http.get("/v1/sequence", params={"game": "nim", "start": "0", "stop": str(LONGEST + 1)})
    assert too_long.status_code == 400
    assert f"range 0..{LONGEST + 1} holds {LONGEST + 1} values" in too_long.json()["error"]["message"]
    unknown = served.http.get("/v1/sequence", params={"game": "no-such-game", "stop": str(LONGEST)})
    assert unknown.status_code == 404, unknown.text
    family = served.http.get("/v1/sequence", params={"game": "nim", "stop": str(LONGEST), "family": "row:3"})
    assert family.status_code in (400, 404) and "row:3" in family.text


def _silent_reader(port: int, path: str) -> socket.socket:
    """A connection that asks for `path` and then reads nothing."""
    connection = socket.socket()
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    connection.connect(("127.0.0.1", port))
    connection.sendall(f"GET {path} HTTP/1.1\r\nhost: test\r\n\r\n".encode())
    return connection


def _settled(count: Callable[[], int], quiet_seconds: float = 1.5, most_seconds: float = 120.0) -> int:
    """The count once it has stopped changing for `quiet_seconds`."""
    last, since, give_up = count(), time.monotonic(), time.monotonic() + most_seconds
    while time.monotonic() < give_up:
        time.sleep(0.1)
        now = count()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet_seconds:
            break
    return last


def test_a_silent_reader_holds_a_few_pieces_and_cheap_lookups_are_answered(served: Served) -> None:
    pieces = -(-LONGEST // PIECE_VALUES)
    before = served.service.asked
    readers = [_silent_reader(served.port, f"/v1/sequence?game=nim&start=0&stop={LONGEST}") for _ in range(3)]
    try:
        asked = _settled(lambda: served.service.asked) - before
        # Each reader's range was checked at its two ends, then written only as far as the kernel's buffers
        # and the transport's took it: a few pieces, not the answer.
        assert 3 * 2 < asked < 3 * (2 + pieces // 4), asked
        # Meanwhile the loop answers cheap lookups on both transports.
        reply = served.http.get("/v1/value", params={"game": "nim", "position": "3 5 7"})
        assert reply.status_code == 200 and reply.json()["grundy"] == 1
        assert served.client.get_value("nim", "3 5 6")["grundy"] == 0
        sequence = served.http.get("/v1/sequence", params={"game": "nim", "start": "7", "stop": "20"})
        assert sequence.json()["values"] == list(range(7, 20))
    finally:
        for reader in readers:
            reader.close()


def test_each_piece_is_made_holding_a_place_and_handed_over_without_it() -> None:
    free = long_sequences._producing._value  # type: ignore[attr-defined]
    seen = []

    def made() -> Iterator[int]:
        for item in range(3):
            seen.append(long_sequences._producing._value)  # type: ignore[attr-defined]
            yield item

    for item in long_sequences.one_at_a_time(made()):
        assert long_sequences._producing._value == free, item  # type: ignore[attr-defined]
    assert seen == [free - 1] * 3


def test_long_grpc_messages_are_parsed_and_serialized_in_the_calls_thread() -> None:
    """grpc.aio parses requests and serializes answers on the event loop; the long ones take and give bytes,
    made in the call's thread (a million values: milliseconds of the loop each way otherwise)."""
    handlers: dict[str, Any] = {}

    class Collecting:
        def add_generic_rpc_handlers(self, generic: Any) -> None:
            pass

        def add_registered_method_handlers(self, service: str, methods: dict[str, Any]) -> None:
            handlers.update(methods)

    grpc_server.add_servicer(cast(Any, object.__new__(grpc_server.NimbaseServicer)), cast(Any, Collecting()))
    for method in ("ColumnarValues", "GetSequence"):
        assert handlers[method].request_deserializer is None, method
        assert handlers[method].response_serializer(b"made in the thread") == b"made in the thread"
