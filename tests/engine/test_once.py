"""engine.once: each key made once however many threads ask, under its own lock (other keys never wait),
the values kept within their byte budget, and the keys' locks dropped once nobody holds them."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from engine.once import Once


def _bytes(_key: str, value: bytes) -> int:
    return len(value)


def test_a_key_is_made_once_however_many_ask() -> None:
    once: Once[str, bytes] = Once(1000, _bytes)
    made: list[str] = []
    started = threading.Event()
    release = threading.Event()

    def make() -> bytes:
        made.append("a")
        started.set()
        release.wait(5)
        return b"x" * 10

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(once.get, "a", make) for _ in range(8)]
        assert started.wait(5)
        # another key is made meanwhile, without waiting for the first
        assert once.get("b", lambda: b"y") == b"y"
        release.set()
        assert {f.result() for f in futures} == {b"x" * 10}
    assert made == ["a"]
    assert once._keys == {}  # every key's lock dropped


def test_values_are_kept_within_their_bytes_least_recently_used_dropped_first() -> None:
    once: Once[str, bytes] = Once(25, _bytes)
    for key in "abc":
        once.get(key, lambda: b"-" * 10)
    assert "a" not in once and "b" in once and "c" in once
    assert once.kept_bytes == 20 and once.usage().entries == 2
    assert once.get("big", lambda: b"-" * 30) == b"-" * 30  # served, not kept
    assert "big" not in once and once.kept_bytes == 20


def test_a_failed_make_keeps_nothing_and_holds_no_lock() -> None:
    once: Once[str, bytes] = Once(100, _bytes)

    def fail() -> bytes:
        raise RuntimeError("no")

    with pytest.raises(RuntimeError):
        once.get("a", fail)
    assert "a" not in once and once._keys == {}
    assert once.get("a", lambda: b"ok") == b"ok"


def test_replace_keeps_a_value_only_over_the_one_it_replaces() -> None:
    once: Once[str, bytes] = Once(100, _bytes)
    first, second = b"1", b"2"
    assert once.replace("a", first, second)  # nothing kept: kept
    assert not once.replace("a", b"3", second)  # `first` is kept, not `second`
    assert once.replace("a", b"4", first)
    entry = once.entry("a")
    assert entry is not None and entry.value == b"4"
