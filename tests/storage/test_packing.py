"""Bit-packing against a plain-Python oracle, and the checksum's sensitivity."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from storage.errors import InvalidPayload
from storage.packing import (
    CHUNK_VALUES,
    DEFLATE,
    RAW,
    WIDTHS,
    checksum,
    decode,
    encode,
    pack,
    packed_size,
    unpack,
    width_for,
)


def reference_width(values: list[int]) -> int:
    top = max(values, default=0)
    return next(w for w in WIDTHS if top < (1 << w))


def reference_pack(values: list[int], width: int) -> bytes:
    """Value i occupies bits i*width .. i*width+width-1 of a little-endian bit string."""
    bits = 0
    for i, v in enumerate(values):
        bits |= v << (i * width)
    return bits.to_bytes(packed_size(width, len(values)), "little")


values_lists = st.integers(min_value=0, max_value=32).flatmap(
    lambda bits: st.lists(st.integers(min_value=0, max_value=(1 << bits) - 1), max_size=300)
)


@settings(max_examples=300, deadline=None)
@given(values_lists)
def test_pack_matches_the_reference_and_roundtrips(values: list[int]) -> None:
    arr = np.array(values, dtype=np.uint32)
    width, payload = pack(arr)
    assert width == reference_width(values)
    assert payload == reference_pack(values, width)
    assert unpack(width, len(values), payload).tolist() == values


@pytest.mark.parametrize(
    ("top", "width"),
    [
        (0, 0),
        (1, 1),
        (2, 2),
        (3, 2),
        (4, 4),
        (15, 4),
        (16, 8),
        (255, 8),
        (256, 16),
        (65536, 32),
        (2**32 - 1, 32),
    ],
)
def test_width_is_minimal(top: int, width: int) -> None:
    assert width_for(top) == width
    arr = np.array([0, top, 0], dtype=np.uint32)
    assert pack(arr)[0] == width


def test_a_full_chunk_of_small_values_takes_two_bits_each() -> None:
    arr = (np.arange(CHUNK_VALUES) % 4).astype(np.uint32)
    width, payload = pack(arr)
    assert (width, len(payload)) == (2, CHUNK_VALUES // 4)
    assert np.array_equal(unpack(width, CHUNK_VALUES, payload), arr)


def test_all_zero_chunks_store_no_bytes() -> None:
    assert pack(np.zeros(1000, dtype=np.uint32)) == (0, b"")
    assert unpack(0, 1000, b"").tolist() == [0] * 1000


def test_unpack_rejects_payloads_of_the_wrong_length() -> None:
    with pytest.raises(InvalidPayload, match="4 payload bytes for 10 values at width 2, expected 3"):
        unpack(2, 10, b"abcd")
    with pytest.raises(InvalidPayload, match="width 3"):
        unpack(3, 8, b"abc")


def test_checksum_covers_identity_and_every_byte() -> None:
    payload = bytes(range(256)) * 4
    base = checksum("subtraction:1,3,4", "heap", 7, 4096, 2, payload)
    assert checksum("subtraction:1,3,4", "heap", 7, 4096, 2, payload) == base
    assert checksum("subtraction:1,3,5", "heap", 7, 4096, 2, payload) != base
    assert checksum("subtraction:1,3,4", "heap", 8, 4096, 2, payload) != base
    assert checksum("subtraction:1,3,4", "heap", 7, 4095, 2, payload) != base
    assert checksum("subtraction:1,3,4", "heap", 7, 4096, 4, payload) != base
    for i in range(0, len(payload), 97):
        flipped = bytearray(payload)
        flipped[i] ^= 0x01
        assert checksum("subtraction:1,3,4", "heap", 7, 4096, 2, bytes(flipped)) != base


@settings(max_examples=50, deadline=None)
@given(values=st.lists(st.integers(0, 300), min_size=0, max_size=5000), repeat=st.integers(1, 20))
def test_encode_round_trips_raw_and_deflated(values: list[int], repeat: int) -> None:
    arr = np.array(values * repeat, dtype=np.uint32)
    width, codec, payload = encode(arr)
    assert codec in (RAW, DEFLATE)
    assert decode(width, codec, len(arr), payload).tolist() == arr.tolist()
    assert encode(arr) == (width, codec, payload)  # deterministic: resumed runs store the same bytes


def test_periodic_chunks_are_deflated_and_bad_codecs_refused() -> None:
    arr = np.tile(np.arange(200, dtype=np.uint32), CHUNK_VALUES // 200)
    width, codec, payload = encode(arr)
    assert (width, codec) == (8, DEFLATE) and len(payload) < len(arr) // 20
    with pytest.raises(InvalidPayload, match="inflate"):
        decode(width, DEFLATE, len(arr), payload[:-5] + b"xxxxx")
    with pytest.raises(InvalidPayload, match="codec 7"):
        decode(width, 7, len(arr), payload)
