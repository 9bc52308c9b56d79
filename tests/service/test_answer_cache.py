"""The answer cache (service.answers): a gRPC lookup asked again is answered with the bytes kept from its
first answer, and those are the answer the lookup itself gives.

The real servers run in-process on loopback over a real `Nimbase` on the test PostgreSQL, with a table a
real worker stored; values are checked against the mex-rule oracle. Only answers that stay the same
(source `formula` or `table`) are kept: a live answer, one from a period, an error, a long request
never are.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import grpc
import pytest
import sqlalchemy as sa

from nimbase.client import NimbaseClient, NimbaseClientError
from nimbase.settings import Settings
from nimbase.v1 import nimbase_pb2 as pb
from service import convert
from service.answers import ENTRY_BYTES, MAX_REQUEST_BYTES, AnswerCache
from service.calls import GetValue, SubmitJob
from service.core import Nimbase
from storage.packing import CHUNK_VALUES
from tests.servers import running_server
from tests.service.test_concurrency import stored_oracle
from worker.runner import Worker

TOKEN = "answer-cache-token"
STORED = "subtraction:1,3,4"
STORED_UPTO = CHUNK_VALUES
#: A game with no table: its answers come from the values computed live, or their certified period.
LIVE = "subtraction:2,5"
GET_VALUE = "/nimbase.v1.Nimbase/GetValue"


def mex_oracle(moves: tuple[int, ...], n: int) -> int:
    """g(n) of the subtraction game with these moves, by the mex rule from 0."""
    g: list[int] = []
    for m in range(n + 1):
        options = {g[m - s] for s in moves if s <= m}
        g.append(min(set(range(len(moves) + 1)) - options))
    return g[n]


def run_worker(engine: sa.Engine) -> None:
    Worker(engine, worker_id="answer-cache-worker", poll_seconds=0).run_until_idle(threading.Event())


@contextmanager
def serving(engine: sa.Engine) -> Iterator[tuple[Nimbase, NimbaseClient, grpc.Channel]]:
    """A real Nimbase behind both servers, a client, and a bare channel for raw calls."""
    service = Nimbase(Settings(admin_token=TOKEN), engine)
    with (
        running_server(service) as ports,
        NimbaseClient(f"127.0.0.1:{ports.grpc}", token=TOKEN, timeout=30) as client,
        grpc.insecure_channel(f"127.0.0.1:{ports.grpc}") as channel,
    ):
        yield service, client, channel


def raw_get_value(channel: grpc.Channel, game: str, position: str) -> bytes:
    """GetValue's answer as the bytes the server sent."""
    request = pb.GetValueRequest(game=game, position=position).SerializeToString()
    answer: bytes = channel.unary_unary(GET_VALUE)(request, timeout=30)
    return answer


def test_a_repeated_lookup_gets_the_bytes_of_its_first_answer(clean_db: sa.Engine) -> None:
    Nimbase(Settings(admin_token=TOKEN), clean_db).submit_job(
        SubmitJob(STORED, STORED_UPTO, True, token=TOKEN)
    )
    run_worker(clean_db)
    expected = stored_oracle(STORED_UPTO)
    rng = random.Random(5)
    heaps = sorted({0, 1, STORED_UPTO - 1, *rng.sample(range(STORED_UPTO), 150)})
    with serving(clean_db) as (service, client, channel):
        for heap in heaps:
            first, again = client.get_value(STORED, str(heap)), client.get_value(STORED, str(heap))
            assert first == again
            assert (first["grundy"], first["source"]) == (expected[heap], "formula" if heap == 0 else "table")
            assert first["outcome"] == ("P" if expected[heap] == 0 else "N")
            p_first = client.is_p_position(STORED, str(heap))
            assert p_first == client.is_p_position(STORED, str(heap))
            assert p_first["p_position"] == (expected[heap] == 0)
            assert {**p_first, "p_position": None} == {**first, "p_position": None}
        # Each heap kept once per method (by the second call at the latest: an answer made in a worker
        # thread, as a first one may be while the table's header is read, is not kept).
        assert len(service.answers) == 2 * len(heaps)
        for heap in heaps[:20]:  # the kept bytes are those the lookup itself makes
            kept = raw_get_value(channel, STORED, str(heap))
            made = convert.value_to_pb(service.get_value(GetValue(STORED, str(heap)))).SerializeToString()
            assert kept == made
        # Another spelling of a position is another request: looked up, and kept on its own.
        for _ in range(2):
            assert client.get_value(STORED, " 0012 ")["grundy"] == expected[12]
        assert len(service.answers) == 2 * len(heaps) + 1
        # What is kept is what is sent: bytes planted for a request come back for it, unparsed.
        request = pb.GetValueRequest(game=STORED, position="7").SerializeToString()
        planted = pb.Value(game=STORED, position="7", outcome="N", grundy=99, source="table")
        service.answers.keep("GetValue", request, "table", planted.SerializeToString())
        assert raw_get_value(channel, STORED, "7") == planted.SerializeToString()
        assert client.get_value(STORED, "7")["grundy"] == 99
        service.answers.clear()
        assert client.get_value(STORED, "7")["grundy"] == expected[7]


def test_only_answers_that_stay_the_same_are_kept(clean_db: sa.Engine) -> None:
    with serving(clean_db) as (service, client, _):
        for _ in range(2):
            assert client.get_value("nim", "3 5 6")["source"] == "formula"
        assert len(service.answers) == 1
        for _ in range(3):  # live, then from the period certified live: both will say "table" once stored
            live = client.get_value(LIVE, "40")
            assert live["source"] in ("live", "period") and live["grundy"] == mex_oracle((2, 5), 40)
        for _ in range(2):
            with pytest.raises(NimbaseClientError) as error:
                client.get_value("no-such-game", "3")
            assert error.value.code == "NOT_FOUND" and "'no-such-game'" in error.value.message
        long = " ".join(["1"] * (MAX_REQUEST_BYTES // 2 + 1))  # an odd number of ones: nim-sum 1
        for _ in range(2):
            assert client.get_value("nim", long)["grundy"] == 1
        assert len(service.answers) == 1

        Nimbase(Settings(admin_token=TOKEN), clean_db).submit_job(SubmitJob(LIVE, 1000, token=TOKEN))
        run_worker(clean_db)
        service.tables.forget()  # the stored header is seen at once (not after its two seconds)
        for _ in range(2):
            stored = client.get_value(LIVE, "40")
            assert (stored["source"], stored["grundy"]) == ("table", mex_oracle((2, 5), 40))
        assert len(service.answers) == 2


def test_a_request_that_is_not_a_message_is_invalid_and_not_kept(clean_db: sa.Engine) -> None:
    with serving(clean_db) as (service, _, channel):
        for _ in range(2):
            with pytest.raises(grpc.RpcError) as error:
                channel.unary_unary(GET_VALUE)(b"\xff\xff\xff", timeout=30)
            assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "not a valid GetValueRequest message (3 bytes)" in (error.value.details() or "")
        assert len(service.answers) == 0


def test_the_cache_holds_its_bytes_at_most_dropping_the_least_recently_used() -> None:
    answers = AnswerCache(3 * (ENTRY_BYTES + 10))
    for n in range(4):
        answers.keep("GetValue", bytes([n]), "table", b"x" * 10)
    assert len(answers) == 3 and answers.get("GetValue", bytes([0])) is None
    assert answers.get("GetValue", bytes([1])) == b"x" * 10  # now the most recently used
    answers.keep("GetValue", bytes([4]), "formula", b"y" * 10)
    assert answers.get("GetValue", bytes([2])) is None and answers.get("GetValue", bytes([1])) is not None
    assert answers.get("IsPPosition", bytes([1])) is None  # methods do not share answers
    for source in ("live", "period", None):
        answers.keep("GetValue", b"other", source, b"z")
    answers.keep("GetValue", b"x" * (MAX_REQUEST_BYTES + 1), "table", b"z")
    answers.keep("GetValue", b"huge", "table", b"z" * (3 * ENTRY_BYTES))  # larger than the whole budget
    assert len(answers) == 3 and answers.get("GetValue", b"other") is None
