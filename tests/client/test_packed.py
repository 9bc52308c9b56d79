"""Packed repeated fields written from numpy arrays (nimbase_client.packed): the bytes protobuf itself
writes for the same message, for any values, and the message parses back to them."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nimbase.v1 import nimbase_pb2 as pb
from nimbase_client import packed

uint64s = st.lists(st.integers(min_value=0, max_value=(1 << 64) - 1), max_size=300)
uint32s = st.lists(st.integers(min_value=0, max_value=(1 << 32) - 1), max_size=300)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=20), uint64s, st.none() | uint64s)
def test_a_columnar_request_is_protobufs_own_bytes(
    game: str, heaps: list[int], offsets: list[int] | None
) -> None:
    message = pb.ColumnarValuesRequest(game=game, heaps=heaps, offsets=offsets or [])
    written = packed.field(1, game.encode()) + packed.uint_field(2, np.array(heaps, dtype=np.uint64))
    if offsets is not None:
        written += packed.uint_field(3, np.array(offsets, dtype=np.uint64))
    assert written == message.SerializeToString()
    assert pb.ColumnarValuesRequest.FromString(written) == message


@settings(max_examples=300, deadline=None)
@given(uint32s)
def test_a_columnar_answer_is_protobufs_own_bytes(grundy: list[int]) -> None:
    written = packed.uint_field(1, np.array(grundy, dtype=np.uint32))
    assert written == pb.ColumnarValuesResponse(grundy=grundy).SerializeToString()


def test_every_varint_width() -> None:
    values = (
        [0, 1, 127, 128, 16383, 16384] + [(1 << k) - 1 for k in range(7, 65, 7)] + [1 << 63, (1 << 64) - 1]
    )
    written = packed.uint_field(2, np.array(values, dtype=np.uint64))
    assert written == pb.ColumnarValuesRequest(heaps=values).SerializeToString()
    assert packed.varints(np.zeros(0, dtype=np.uint64)) == b""
