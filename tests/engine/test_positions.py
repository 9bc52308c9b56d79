"""Heap position parsing: canonical form, strictness and limits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InvalidPosition
from engine.positions import MAX_POSITION_CHARS, canonical, format_heaps, parse_heaps
from kinds.heaps.base import MAX_HEAP, MAX_HEAPS


@pytest.mark.parametrize(
    ("text", "heaps"),
    [
        ("", ()),
        ("0", ()),
        ("   ", ()),
        ("0 0 0", ()),
        ("3 5 7", (3, 5, 7)),
        ("7 5 3", (3, 5, 7)),
        ("  5\t0\n3  5 ", (3, 5, 5)),
        ("007 10", (7, 10)),
        (str(MAX_HEAP), (MAX_HEAP,)),
        ("0" * 30 + "12", (12,)),
    ],
)
def test_parse_valid(text: str, heaps: tuple[int, ...]) -> None:
    assert parse_heaps(text) == heaps


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("3 -1", "-1"),
        ("3 x", "x"),
        ("3,,5", "3,,5"),
        ("+3", "+3"),
        ("1e3", "1e3"),
        ("1_000", "1_000"),
        ("3 ５", "５"),
        ("4 2.5 1", "2.5"),
    ],
)
def test_parse_rejects_bad_tokens(text: str, token: str) -> None:
    with pytest.raises(InvalidPosition) as info:
        parse_heaps(text)
    message = str(info.value)
    assert repr(token) in message
    assert repr(text) in message


@pytest.mark.parametrize("text", [str(MAX_HEAP + 1), "1 " + str(2**64), "9" * 25, "5 " + "1" * 5000])
def test_parse_rejects_huge_heaps(text: str) -> None:
    with pytest.raises(InvalidPosition, match="limit"):
        parse_heaps(text)


def test_parse_respects_custom_limits() -> None:
    assert parse_heaps("1 2", max_heap=2, max_heaps=2) == (1, 2)
    with pytest.raises(InvalidPosition, match="limit of 2"):
        parse_heaps("1 3", max_heap=2)
    with pytest.raises(InvalidPosition, match="limit of 2"):
        parse_heaps("1 1 1", max_heaps=2)


def test_parse_heap_count_limit() -> None:
    at_limit = " ".join(["1"] * MAX_HEAPS)
    assert len(parse_heaps(at_limit)) == MAX_HEAPS
    with pytest.raises(InvalidPosition, match=f"{MAX_HEAPS + 1} heaps.*limit of {MAX_HEAPS}"):
        parse_heaps(at_limit + " 1")


def test_parse_length_limit() -> None:
    with pytest.raises(InvalidPosition, match=f"limit of {MAX_POSITION_CHARS}"):
        parse_heaps(" " * (MAX_POSITION_CHARS + 1))


def test_large_position_parses() -> None:
    heaps = [(i * 7919) % 1_000_003 for i in range(MAX_HEAPS)]
    text = " ".join(map(str, heaps))
    assert parse_heaps(text) == canonical(heaps)


@given(
    st.lists(st.integers(min_value=0, max_value=MAX_HEAP), max_size=30),
    st.lists(st.sampled_from([" ", "  ", "\t", "\n", " \r\n "]), min_size=31, max_size=31),
)
def test_round_trip(heaps: list[int], seps: list[str]) -> None:
    text = seps[0] + "".join(str(h) + seps[i + 1] for i, h in enumerate(heaps))
    parsed = parse_heaps(text)
    assert parsed == tuple(sorted(h for h in heaps if h))
    assert format_heaps(heaps) == " ".join(map(str, parsed))
    assert parse_heaps(format_heaps(parsed)) == parsed


def test_format() -> None:
    assert format_heaps(()) == ""
    assert format_heaps((7, 0, 3, 3)) == "3 3 7"
