"""The service's LRU cache (engine.lru): what cachetools' LRUCache did, at a third of the cost a read."""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.lru import LRU, Usage


def test_the_least_recently_used_goes_first() -> None:
    cache: LRU[str, int] = LRU(maxsize=2)
    cache["a"], cache["b"] = 1, 2
    assert cache.get("a") == 1  # a is now the most recent
    cache["c"] = 3
    assert "b" not in cache and list(cache) == ["a", "c"] and cache.currsize == 2


def test_usage_gives_entries_and_bytes_or_the_count_bound() -> None:
    counted: LRU[str, int] = LRU(maxsize=3)
    counted["a"] = 1
    assert counted.usage() == Usage(entries=1, max_entries=3)
    weighed: LRU[str, bytes] = LRU(maxsize=10, getsizeof=len)
    weighed["a"], weighed["b"] = b"xxxx", b"yy"
    assert weighed.usage() == Usage(entries=2, bytes=6, budget_bytes=10)


def test_sizes_bound_the_cache_and_a_value_too_large_is_refused() -> None:
    cache: LRU[str, bytes] = LRU(maxsize=10, getsizeof=len)
    cache["a"], cache["b"] = b"xxxx", b"yyyy"
    cache["c"] = b"zzzz"  # 12 > 10: a goes
    assert list(cache) == ["b", "c"] and cache.currsize == 8
    with pytest.raises(ValueError, match="size 11"):
        cache["d"] = b"w" * 11
    assert list(cache) == ["b", "c"] and cache.currsize == 8  # left as it was
    assert not cache.keep("d", b"w" * 11)  # `keep` says so instead of raising
    assert list(cache) == ["b", "c"] and cache.currsize == 8
    assert cache.keep("d", b"w")
    assert list(cache) == ["b", "c", "d"] and cache.currsize == 9
    del cache["d"]
    cache["b"] = b"v"  # a new value for a key is weighed anew
    assert cache.currsize == 5 and cache["b"] == b"v"
    del cache["c"]
    assert cache.pop("b") == b"v" and cache.pop("b") is None and cache.currsize == 0
    with pytest.raises(KeyError):
        del cache["b"]


OPERATIONS = st.sampled_from(["get", "read", "set", "pop"])


@given(st.lists(st.tuples(OPERATIONS, st.integers(0, 6), st.integers(1, 5))))
def test_agrees_with_a_plain_model(operations: list[tuple[str, int, int]]) -> None:
    """Against a list kept in use order: the same keys, order and total size after any operations."""
    cache: LRU[int, int] = LRU(maxsize=9, getsizeof=lambda v: v)
    model: list[tuple[int, int]] = []  # (key, size), least recent first
    for operation, key, size in operations:
        held = dict(model)
        if operation in ("get", "read"):  # `read` is `get` for a caller without the owner's lock
            assert (cache.get(key) if operation == "get" else cache.read(key)) == held.get(key)
            if key in held:
                model = [e for e in model if e[0] != key] + [(key, held[key])]
        elif operation == "set":
            cache[key] = size
            model = [e for e in model if e[0] != key]
            while model and sum(s for _, s in model) + size > 9:
                model.pop(0)
            model.append((key, size))
        else:
            assert cache.pop(key) == held.get(key)
            model = [e for e in model if e[0] != key]
        assert list(cache) == [k for k, _ in model]
        assert cache.currsize == sum(s for _, s in model) == sum(cache[k] for k in list(cache))


def test_a_read_racing_a_drop_serves_the_value_it_found() -> None:
    """`read` without the owner's lock: a key dropped by another thread between its lookup and its
    reordering is served once more, and the cache stays whole."""
    cache: LRU[str, int] = LRU(maxsize=3)
    cache["a"] = 1

    class Dropping(OrderedDict[str, int]):
        def move_to_end(self, key: str, last: bool = True) -> None:
            cache.pop(key)  # another thread, between the lookup and the reordering
            super().move_to_end(key, last)

    cache._data = Dropping(cache._data)
    assert cache.read("a") == 1
    assert "a" not in cache and cache.currsize == 0 and cache.read("a") is None


def test_reads_without_the_lock_never_break_the_owners_eviction_or_iteration() -> None:
    """`read` reorders the dictionary without the owner's lock: the owner's eviction and iteration, which
    hold an iterator across a switch of threads, used to fail with "OrderedDict mutated during
    iteration"."""
    lru: LRU[int, int] = LRU(64)
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            for key in range(0, 200, 7):
                lru.read(key)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for value in range(100_000):
            lru[value % 200] = value
            assert len(list(lru)) <= 64
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(interval)
