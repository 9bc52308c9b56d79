"""service.batch_wire: a BatchGetValues answer written from pieces is byte for byte the message that
`convert.batch_to_pb` fills, serialized by protobuf, on values of every shape a batch may hold."""

from __future__ import annotations

import random

from engine.errors import InvalidArgument, LimitExceeded
from engine.values import Value
from service import convert
from service.batch_wire import batch_bytes, varint
from tests.service.wire_shapes import RECORDS, positions


def _values(rng: random.Random) -> list[Value | BaseException]:
    """Values and errors as batches hold them: long and empty positions, non-ASCII text, records of
    several kinds (one not hashable), numbers beyond the wire's integers."""
    texts = positions(rng)
    items: list[Value | BaseException] = []
    for _ in range(300):
        draw = rng.random()
        if draw < 0.05:
            items.append(InvalidArgument(f"position {rng.choice(texts)[:20]!r} does not parse"))
        elif draw < 0.08:
            items.append(LimitExceeded("beyond the live search budget"))
        else:
            items.append(
                Value(
                    rng.choice(["nim", "octal:0.75:misere", "graph:g"]),
                    rng.choice(texts),
                    rng.choice(["P", "N", "D", None]),
                    rng.choice([None, 0, 3, 2**40, 2**70]),  # 2**70: beyond int64, the slot's error
                    rng.choice([None, 0, 12]),
                    rng.choice(["table", "period", "formula", "live"]),
                    rng.choice(RECORDS),
                )
            )
    return items


def test_a_batch_written_from_pieces_is_protobufs_own_bytes() -> None:
    rng = random.Random(5)
    for _ in range(20):
        items = _values(rng)
        assert batch_bytes(items) == convert.batch_to_pb(items).SerializeToString()
    assert batch_bytes([]) == b""


def test_varints() -> None:
    from google.protobuf.internal.encoder import _VarintBytes  # type: ignore[attr-defined]

    for n in [0, 1, 127, 128, 300, 16383, 16384, 2**21, 2**35 + 7]:
        assert varint(n) == _VarintBytes(n)
