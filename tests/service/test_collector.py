"""A serving process freezes its start-up objects out of the garbage collector (service.collector)."""

from __future__ import annotations

import gc
import weakref

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
