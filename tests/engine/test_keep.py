"""The keeper of objects stored whole (engine.keep): the ladder kept -> stored -> made live -> refused,
each key made once under its own lock, a live one looked up in storage again on a timer, a stored one
final, and the budget in bytes."""

from __future__ import annotations

import threading
import time

import pytest

from engine import keep
from engine.deadline import Deadline
from engine.errors import DeadlineExceeded, LimitExceeded
from engine.keep import Keeper, Keepers, keeper_names
from engine.lru import Usage
from engine.registry import declared_settings
from tests.engine.contexts import kind_settings


def later(seconds: float = 60.0) -> Deadline:
    return Deadline(time.monotonic() + seconds)


def test_the_ladder_kept_stored_live_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keep, "STORED_RECHECK_SECONDS", 3600.0)
    keeper = Keeper(1000)
    stored: dict[str, str] = {}
    made: list[str] = []

    def get(key: str, allowed: bool = True) -> tuple[str, str]:
        def refuse() -> None:
            if not allowed:
                raise LimitExceeded(f"{key} is not stored yet: a job is queued")

        def make() -> str:
            made.append(key)
            return f"live {key}"

        kept = keeper.get(
            key, later(), what=key, read=lambda: stored.get(key), make=make, weigh=len, refuse=refuse
        )
        return kept.value, kept.source

    with pytest.raises(LimitExceeded, match="a job is queued"):
        get("a", allowed=False)
    assert made == [] and "a" not in keeper
    assert get("a") == ("live a", "live") and made == ["a"]
    assert get("a", allowed=False) == ("live a", "live") and made == ["a"]  # kept: neither made nor refused
    stored["a"] = "stored a"
    assert get("a") == ("live a", "live")  # storage is looked at again only now and then
    monkeypatch.setattr(keep, "STORED_RECHECK_SECONDS", 0.0)
    assert get("a") == ("stored a", "table")
    del stored["a"]
    assert get("a") == ("stored a", "table")  # a stored one is final
    stored["b"] = "stored b"
    assert get("b", allowed=False) == ("stored b", "table") and made == ["a"]
    assert keeper.kept_bytes == len("stored a") + len("stored b")


def test_least_recently_used_goes_first_and_the_too_large_is_not_kept() -> None:
    keeper = Keeper(10)

    def get(key: str, value: str) -> str:
        return keeper.get(key, later(), what=key, read=lambda: None, make=lambda: value, weigh=len).value

    get("a", "aaaa")
    get("b", "bbbb")
    get("a", "never made")  # now the most recently used
    get("c", "cccc")
    assert ["a" in keeper, "b" in keeper, "c" in keeper] == [True, False, True]
    assert keeper.kept_bytes == 8
    assert get("d", "d" * 11) == "d" * 11  # served, not kept, nothing dropped for it
    assert "d" not in keeper and keeper.kept_bytes == 8
    assert keeper.usage() == Usage(entries=2, bytes=8, budget_bytes=10)


def test_what_is_discarded_is_no_longer_kept_nor_counted() -> None:
    keeper = Keeper(10)
    keeper.keep("a", "aaaa", "live", 4)
    keeper.keep("b", "bb", "table", 2)
    keeper.discard("a")
    keeper.discard("never kept")
    assert keeper.peek("a") is None and "b" in keeper and keeper.kept_bytes == 2


def test_keepers_usage_lists_the_declared_ones_before_their_first_use() -> None:
    names = keeper_names(declared_settings())
    assert all(name and not name.endswith("_bytes") for name in names.values())
    keepers = Keepers(kind_settings())
    empty = keepers.usage(names)
    assert set(empty) == set(names)
    assert all(u.entries == 0 and u.bytes == 0 and (u.budget_bytes or 0) > 0 for u in empty.values())
    spec = next(iter(names))
    keepers.keeper(spec).keep("k", "value", "live", 5)
    assert keepers.usage(names)[spec] == Usage(1, 5, empty[spec].budget_bytes)
    assert set(keepers.usage()) == {spec}  # without specs: the keepers made so far


def test_a_key_is_made_once_and_others_wait_for_it() -> None:
    keeper = Keeper(1000)
    started = threading.Event()
    release = threading.Event()
    calls: list[int] = []

    def make() -> str:
        calls.append(1)
        started.set()
        release.wait(10)
        return "made"

    results: list[str] = []

    def ask() -> None:
        results.append(
            keeper.get("k", later(), what="making k", read=lambda: None, make=make, weigh=len).value
        )

    first = threading.Thread(target=ask)
    first.start()
    assert started.wait(10)
    # another request waits on the key's lock only until its deadline, and says what it waited for
    with pytest.raises(DeadlineExceeded, match="making k"):
        keeper.get("k", later(0.05), what="making k", read=lambda: None, make=make, weigh=len)
    second = threading.Thread(target=ask)
    second.start()
    # another key is not held up by it
    assert (
        keeper.get("other", later(1), what="other", read=lambda: None, make=lambda: "x", weigh=len).value
        == "x"
    )
    release.set()
    first.join(10)
    second.join(10)
    assert results == ["made", "made"] and calls == [1]


def test_look_again_has_objects_made_live_look_in_storage_at_their_next_get(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What a service adopts from a warm-up made without storage gives way to what is stored at once."""
    monkeypatch.setattr(keep, "STORED_RECHECK_SECONDS", 3600.0)
    keepers = Keepers(kind_settings())
    spec = next(iter(keeper_names(declared_settings())))
    keeper = keepers.keeper(spec)
    stored: dict[str, str] = {}

    def get(key: str) -> tuple[str, str]:
        kept = keeper.get(
            key, later(), what=key, read=lambda: stored.get(key), make=lambda: f"live {key}", weigh=len
        )
        return kept.value, kept.source

    assert get("a") == ("live a", "live") and get("b") == ("live b", "live")
    stored["a"] = "stored a"
    assert get("a") == ("live a", "live")  # not looked at again for an hour
    keepers.look_again()
    assert get("a") == ("stored a", "table")
    assert get("b") == ("live b", "live")  # nothing stored: still the one made live
