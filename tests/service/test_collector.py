"""A serving process freezes its start-up objects out of the garbage collector (service.collector)."""

from __future__ import annotations

import gc
import weakref

import pytest

from nimbase.settings import Settings
from service import warm_up
from service.collector import freeze_startup


def test_start_up_objects_leave_the_collections_and_garbage_before_them_is_collected() -> None:
    class Cycle:
        other: object

    before = gc.get_freeze_count()
    garbage = Cycle()
    garbage.other = garbage  # a cycle only a collection frees
    kept = [Cycle() for _ in range(1000)]
    gone = weakref.ref(garbage)
    del garbage
    try:
        frozen = freeze_startup()
        assert frozen >= before + len(kept)
        walked = {id(o) for o in gc.get_objects()}
        ours = {id(o) for o in kept}
        assert not walked & ours  # frozen: no longer walked by a collection
        assert gone() is None, "a cycle left by the start-up was frozen instead of collected"
    finally:
        gc.unfreeze()


def test_what_the_servers_warm_up_made_is_frozen_before_it_says_done(monkeypatch: pytest.MonkeyPatch) -> None:
    # Frozen only at start-up, before the warm-up ran, its objects (tens of thousands: kernels loaded,
    # tables read ahead) were walked by the first full collections after ready, under the first requests.
    made: list[object] = []

    def warming(*_args: object, **_kwargs: object) -> int:
        made.extend([i] for i in range(1000))  # lists: objects the collector walks
        return 0

    monkeypatch.setattr(warm_up, "warm_up", warming)
    try:
        done = warm_up.WarmUp(Settings()).start()
        assert done.wait(60)
        assert done.reason() is None
        walked = {id(o) for o in gc.get_objects()}
        assert len(made) == 1000
        assert not walked & {id(o) for o in made}
    finally:
        gc.unfreeze()
