"""`read_stored`: an object stored whole as words is decoded, and one that is missing, cut short or does
not decode (another version's layout, damaged bytes) is None, so the kind makes it again."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable

import pytest

from engine.stored_bytes import encode_words, read_stored, read_stored_range, stored_object_size
from tests.engine.contexts import StoredWords, engine_context

GAME, FAMILY = "graph:g", "solution"


def stored(data: bytes) -> StoredWords:
    tables = StoredWords()
    tables.words[(GAME, FAMILY)] = encode_words(data)
    return tables


def test_stored_bytes_are_decoded() -> None:
    ctx = engine_context(stored(b"three words, padded"))
    assert read_stored(GAME, FAMILY, ctx, "a stored solution", bytes.upper) == b"THREE WORDS, PADDED"


def test_nothing_stored_is_none_without_decoding() -> None:
    def never(data: bytes) -> bytes:
        raise AssertionError("nothing to decode")

    assert read_stored(GAME, FAMILY, engine_context(StoredWords()), "a stored solution", never) is None


def test_words_cut_short_are_none() -> None:
    tables = stored(b"x" * 40)
    tables.words[(GAME, FAMILY)] = tables.words[(GAME, FAMILY)][:-3]  # a job still writing them

    def unread(*_: object) -> None:
        raise AssertionError("a partial object is not read: its first two words say it is short")

    tables.known_prefix = unread  # type: ignore[method-assign,assignment]
    assert read_stored(GAME, FAMILY, engine_context(tables), "a stored solution", bytes) is None


@pytest.mark.parametrize(
    "decode",
    [
        lambda data: int(data),  # ValueError: another layout
        lambda data: struct.unpack("<Q", data),  # struct.error: the wrong length
        lambda data: zlib.decompress(data),  # zlib.error: not deflated
    ],
)
def test_bytes_that_do_not_decode_are_none(decode: Callable[[bytes], object]) -> None:
    ctx = engine_context(stored(b"not what this version wrote"))
    assert read_stored(GAME, FAMILY, ctx, "a stored solution", decode) is None


def test_a_fault_in_the_decoder_itself_is_not_hidden() -> None:
    ctx = engine_context(stored(b"data"))
    with pytest.raises(TypeError):
        read_stored(GAME, FAMILY, ctx, "a stored solution", lambda data: data + 1)  # type: ignore[operator]


def test_byte_ranges_of_a_stored_object() -> None:
    """Any byte range of a stored object reads as those bytes (ranges not aligned on words too); its size
    is known only once all of it is stored."""
    data = bytes(range(256)) * 4 + b"xyz"
    tables = stored(data)
    ctx = engine_context(tables)
    assert stored_object_size(GAME, FAMILY, ctx) == len(data)
    for start, stop in [(0, 0), (0, 1), (1, 2), (3, 9), (5, 1027), (1000, 1027), (0, len(data))]:
        assert read_stored_range(GAME, FAMILY, ctx, start, stop) == data[start:stop], (start, stop)
    with pytest.raises(ValueError):
        read_stored_range(GAME, FAMILY, ctx, 5, 4)
    tables.words[(GAME, FAMILY)] = tables.words[(GAME, FAMILY)][:100]  # a job still writing it
    assert stored_object_size(GAME, FAMILY, ctx) is None
    assert stored_object_size(GAME, "other", ctx) is None
