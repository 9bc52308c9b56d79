"""`read_stored`: an object stored whole as words is decoded, and one that is missing, cut short or does
not decode (another version's layout, damaged bytes) is None, so the kind makes it again."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable

import pytest

from engine.stored_bytes import encode_words, read_stored
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
