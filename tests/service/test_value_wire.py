"""service.value_wire: a GetValue answer written from pieces is byte for byte the message that
`convert.value_to_pb` fills, serialized by protobuf: on values of every shape, and over a real gRPC server
for formula answers, stored heaps and heaps of a certified period, refusals keeping their status."""

from __future__ import annotations

import random
from collections.abc import Iterator

import grpc
import pytest
import sqlalchemy as sa

from engine.errors import NimbaseError
from engine.values import Value
from nimbase.settings import Settings
from nimbase.v1 import nimbase_pb2 as pb
from service import convert
from service.calls import GetValue
from service.core import Nimbase
from service.errors import BeyondTheWire
from service.server import BoundPorts
from service.value_wire import KEPT, ValueWire
from storage.jobs import JobQueue
from tests.database import empty_data_tables
from tests.servers import running_server
from tests.service.wire_shapes import RECORDS, positions
from worker.runner import Worker

#: A game whose values no formula gives, stored for heaps 0..STORED-1.
STORED_GAME, STORED = "octal:0.137", 3_000
#: Dawson's Kayles: its period (34) is certified live, then answers every heap.
PERIODIC = "octal:0.07"


def _protobufs(value: Value) -> bytes | type[BeyondTheWire]:
    try:
        return convert.value_to_pb(value).SerializeToString()
    except BeyondTheWire:
        return BeyondTheWire


def _wired(wire: ValueWire, value: Value) -> bytes | type[BeyondTheWire]:
    try:
        return wire.answer(value)
    except BeyondTheWire:
        return BeyondTheWire


def test_an_answer_written_from_pieces_is_protobufs_own_bytes() -> None:
    rng = random.Random(31)
    texts = positions(rng)
    wire = ValueWire()
    for _ in range(3000):
        value = Value(
            rng.choice(["nim", "octal:0.75:misere", "graph:g", ""]),
            rng.choice(texts),
            rng.choice(["P", "N", "D", None]),
            rng.choice([None, 0, 1, 127, 128, 2**40, 2**63 - 1, 2**63, -1, 2**70]),
            rng.choice([None, 0, 12, 128, 2**63 - 1, 2**63, -1, 2**70]),
            rng.choice(["table", "period", "formula", "live", "syzygy"]),
            rng.choice(RECORDS),
        )
        assert _wired(wire, value) == _protobufs(value), value


def test_the_kept_combinations_are_bounded() -> None:
    wire = ValueWire()
    for n in range(KEPT + 10):
        value = Value(f"subtraction:1,{n + 2}", str(n), "N", n, n, "formula")  # a combination each
        assert wire.answer(value) == convert.value_to_pb(value).SerializeToString()
    assert len(wire._pieces) <= KEPT


@pytest.fixture(scope="module")
def service(db_engine: sa.Engine) -> Iterator[Nimbase]:
    empty_data_tables(db_engine)
    JobQueue(db_engine).submit(STORED_GAME, "heap", STORED, fill=True)
    assert Worker(db_engine).run_once()
    yield Nimbase(Settings(), db_engine)


@pytest.fixture(scope="module")
def ports(service: Nimbase) -> Iterator[BoundPorts]:
    with running_server(service) as bound:
        yield bound


def _ask(channel: grpc.Channel, game: str, position: str) -> bytes:
    """GetValue's answer as the server wrote it, unparsed."""
    call = channel.unary_unary("/nimbase.v1.Nimbase/GetValue", None, None)
    answer: bytes = call(pb.GetValueRequest(game=game, position=position).SerializeToString(), timeout=60)
    return answer


@pytest.mark.parametrize(
    ("game", "heaps"),
    [
        ("nim", [0, 1, 127, 128, 16_383, 16_384, 10**9 + 7, 2**63 - 1]),
        (STORED_GAME, [0, 1, 2, 33, 500, 1_000, 2_047, 2_048, 2_999]),
        (PERIODIC, [0, 1, 34, 1_000, 10**6, 10**12, 2**62]),
    ],
    ids=["formula", "stored heap", "certified period"],
)
def test_grpc_answers_are_protobufs_bytes_of_the_value(
    service: Nimbase, ports: BoundPorts, game: str, heaps: list[int]
) -> None:
    service.get_value(GetValue(game, str(heaps[-1])))  # a period certified live first: answers then stay
    with grpc.insecure_channel(f"127.0.0.1:{ports.grpc}") as channel:
        for heap in heaps:
            for position in (str(heap), f" {heap} "):  # canonical in the answer, not as asked
                expected = convert.value_to_pb(service.get_value(GetValue(game, position)))
                answer = _ask(channel, game, position)
                assert answer == expected.SerializeToString(), (game, position)
        sources = {pb.Value.FromString(_ask(channel, game, str(h))).source for h in heaps}
    # (A heap of 0 has a formula in every game; heaps below a period's start may come from the live prefix.)
    assert {"nim": "formula", STORED_GAME: "table", PERIODIC: "period"}[game] in sources


def test_refusals_keep_their_status_and_message(service: Nimbase, ports: BoundPorts) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{ports.grpc}") as channel:
        for game, position in [("nim", "seven"), (STORED_GAME, "-1"), ("nim", str(2**64)), ("nope", "1")]:
            with pytest.raises(grpc.RpcError) as raised:
                _ask(channel, game, position)
            assert raised.value.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND)
            with pytest.raises(NimbaseError) as expected:
                service.get_value(GetValue(game, position))
            assert raised.value.details() == convert.public_error(expected.value)[1]
