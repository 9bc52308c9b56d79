"""The event loop's lateness on `/metrics`, and a held loop logged with where it was (service.loop_lag)."""

from __future__ import annotations

import asyncio
import gc
import logging
import re
import sys
import threading
import time
from types import FrameType

import httpx
import pytest

from bench.bench_isolation import loop_lag_figures
from nimbase.settings import Settings
from service import loop_lag
from service.core import Nimbase
from service.loop_lag import LoopWatch
from tests.servers import running_server


def hold_the_loop_for(seconds: float) -> None:
    time.sleep(seconds)  # what a long callback, or a thread holding the GIL, does to the loop


def test_a_held_loop_is_measured_and_logged_with_its_stack(caplog: pytest.LogCaptureFixture) -> None:
    late: list[float] = []

    async def main() -> None:
        watch = asyncio.create_task(LoopWatch(late.append).run())
        await asyncio.sleep(0.2)  # a few ticks on time
        hold_the_loop_for(0.5)
        await asyncio.sleep(0.1)
        watch.cancel()

    with caplog.at_level(logging.WARNING, logger=loop_lag.__name__):
        asyncio.run(main())
    assert len(late) >= 5
    assert max(late) >= 0.4
    assert sorted(late)[len(late) // 2] < 0.1  # the other ticks on time
    stalls = [record.getMessage() for record in caplog.records]
    assert len(stalls) == 1, stalls  # one stall, logged once
    held = re.match(r"the event loop did not run for (\d+) ms .*; (\d+) ms into it", stalls[0])
    assert held, stalls[0]
    assert 400 <= int(held[1]) <= 700 and 100 <= int(held[2]) < 400
    assert "hold_the_loop_for (test_loop_lag.py:" in stalls[0]
    assert "; other threads: " in stalls[0] and "_watch (loop_lag.py" not in stalls[0]  # the watcher left out


def test_an_idle_loop_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    late: list[float] = []

    async def main() -> None:
        watch = asyncio.create_task(LoopWatch(late.append).run())
        await asyncio.sleep(0.3)
        watch.cancel()

    with caplog.at_level(logging.WARNING, logger=loop_lag.__name__):
        asyncio.run(main())
    assert late and not caplog.records


def test_a_server_shows_its_loop_lag_on_metrics_and_the_bench_reads_it() -> None:
    with running_server(Nimbase(Settings(), None)) as ports:
        base = f"http://127.0.0.1:{ports.http}"
        time.sleep(0.3)
        text = httpx.get(f"{base}/metrics").text
        assert "# TYPE nimbase_event_loop_lag_seconds histogram" in text
        figures = loop_lag_figures(base)
    assert figures["event loop ticks"] >= 5
    assert (
        figures["event loop ticks more than 250 ms late"] <= figures["event loop ticks more than 100 ms late"]
    )


def test_the_stacks_are_taken_with_the_collector_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """No collection runs inside `sys._current_frames()`, even one due at its first allocation: on Python
    3.11 one there can deadlock the process (loop_lag.current_frames says how)."""
    inside = False
    collected_inside: list[bool] = []
    real = sys._current_frames

    def watched() -> dict[int, FrameType]:
        nonlocal inside
        inside = True
        try:
            return real()
        finally:
            inside = False

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collected_inside.append(inside)

    stop = threading.Event()
    others = [threading.Thread(target=stop.wait) for _ in range(8)]
    for thread in others:
        thread.start()
    threshold = gc.get_threshold()
    monkeypatch.setattr(sys, "_current_frames", watched)
    gc.callbacks.append(callback)
    gc.set_threshold(1)  # a collection at (almost) every allocation
    try:
        for _ in range(20):
            assert "other threads:" in loop_lag.stacks(threading.get_ident())
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(callback)
        stop.set()
        for thread in others:
            thread.join()
    assert collected_inside and not any(collected_inside)  # collections ran, none inside the call
    assert gc.isenabled()
