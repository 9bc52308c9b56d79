"""How late the server's event loop runs what is due, and where it was when it did not run at all.

Every REST request and gRPC call is read and answered on one event loop. While the loop is held (a long
callback, other threads holding the GIL, the process waiting for a core) every request waits, and a
request read late has its arrival stamped late (service.rest.deadline): neither its deadline nor its
Server-Timing can count that wait. A timer every `TICK_SECONDS` measures it for `/metrics`
(nimbase_event_loop_lag_seconds); a thread watching the timer logs the loop's stack when it has not run
for `STALL_SECONDS`, so what held it can be found.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from types import FrameType

log = logging.getLogger(__name__)

#: How often the loop's timer is due: each tick is one cheap callback on the loop.
TICK_SECONDS = 0.025
#: A loop that has not run its timer for this long is logged with its stack (the cheap lookups' target
#: p99 is 100 ms).
STALL_SECONDS = 0.1
#: At most one stall is logged in this many seconds: a server held for minutes must not flood its log.
LOG_EVERY_SECONDS = 10.0
#: How many of the loop's innermost frames a stall's log line shows.
FRAMES = 8


def _where(entry: traceback.FrameSummary) -> str:
    return f"{entry.name} ({entry.filename.rsplit('/', 1)[-1]}:{entry.lineno})"


def current_frames() -> dict[int, FrameType]:
    """`sys._current_frames()` with the collector off. Python 3.11 holds the lock of its thread list
    through the call and allocates a frame object per thread in it: a collection started there runs
    finalizers and gc callbacks, which may let go of the GIL, and a thread then starting or ending
    holds the GIL waiting for that lock, while the call waits for the GIL: the whole process hangs
    (CPython issue 106883, mended in later versions the same way). A test process of the service hung
    so, a thread starting while this watcher took the stacks of a stalled loop."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return sys._current_frames()
    finally:
        if enabled:
            gc.enable()


def stacks(loop_thread: int) -> str:
    """The loop thread's innermost `FRAMES` frames, innermost first, then how many other threads are at
    each innermost frame (the GIL is held by one of those, or by none): one line."""
    frames = current_frames()
    frames.pop(threading.get_ident(), None)  # the watcher's own
    loop = frames.pop(loop_thread, None)
    loop_text = " <- ".join(map(_where, reversed(traceback.extract_stack(loop)[-FRAMES:]))) if loop else "?"
    others = Counter(_where(traceback.extract_stack(frame)[-1]) for frame in frames.values())
    other_text = ", ".join(f"{count} at {where}" for where, count in others.most_common())
    return f"{loop_text}; other threads: {other_text or 'none'}"


class LoopWatch:
    """The timer (`run`, a task on the loop) and its watcher thread (started by `run`)."""

    def __init__(self, observe: Callable[[float], None]) -> None:
        """`observe(seconds)` is given each tick's lateness (a Prometheus histogram's `observe`)."""
        self._observe = observe
        self._beat = time.monotonic()
        self._stopped = threading.Event()
        self._loop_thread = 0

    async def run(self) -> None:
        """Forever, until cancelled: sleeps `TICK_SECONDS` and records how much later than due it woke."""
        self._loop_thread = threading.get_ident()
        self._beat = time.monotonic()
        watcher = threading.Thread(target=self._watch, name="loop-watch", daemon=True)
        watcher.start()
        try:
            while True:
                due = time.monotonic() + TICK_SECONDS
                await asyncio.sleep(TICK_SECONDS)
                self._beat = now = time.monotonic()
                self._observe(max(0.0, now - due))
        finally:
            self._stopped.set()

    def _watch(self) -> None:
        """Every tick: a loop not run for `STALL_SECONDS` has its stacks taken; once it runs again, the
        stall is logged with its whole length and those stacks (at most once in `LOG_EVERY_SECONDS`)."""
        held: tuple[float, float, str] | None = None  # the stalled beat, when seen, the stacks then
        quiet_until = 0.0
        while not self._stopped.wait(TICK_SECONDS / 2):
            beat, now = self._beat, time.monotonic()
            if held is not None and beat != held[0]:
                stalled_beat, seen, where = held
                held = None
                log.warning(
                    "the event loop did not run for %.0f ms (every request waited meanwhile); %.0f ms into "
                    "it, it was at: %s",
                    (beat - stalled_beat - TICK_SECONDS) * 1e3,
                    (seen - stalled_beat - TICK_SECONDS) * 1e3,
                    where,
                )
            elif held is None and now - beat >= STALL_SECONDS + TICK_SECONDS and now >= quiet_until:
                quiet_until = now + LOG_EVERY_SECONDS
                with contextlib.suppress(Exception):  # a diagnosis must never stop the watch
                    held = (beat, now, stacks(self._loop_thread))
