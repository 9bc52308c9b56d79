"""`Deadline.holding`: the wait for the lock of a solve another request is doing ends at the deadline."""

from __future__ import annotations

import threading
import time

import pytest

from engine.deadline import Deadline
from engine.errors import DeadlineExceeded


def test_a_free_lock_is_held_for_the_work_and_released_after_it_even_on_error() -> None:
    lock = threading.Lock()
    with Deadline(time.monotonic() + 5).holding(lock, "solving graph 'g'"):
        assert lock.locked()
    assert not lock.locked()
    with pytest.raises(RuntimeError), Deadline(time.monotonic() + 5).holding(lock, "solving graph 'g'"):
        raise RuntimeError("the solve broke")
    assert not lock.locked()


def test_a_lock_held_past_the_deadline_is_refused_naming_the_work() -> None:
    lock = threading.Lock()
    lock.acquire()
    try:
        started = time.monotonic()
        with (
            pytest.raises(DeadlineExceeded, match=r"^solving graph 'g': another request was at it until"),
            Deadline(started + 0.2).holding(lock, "solving graph 'g'"),
        ):
            pytest.fail("the work ran without the lock")
        assert 0.15 < time.monotonic() - started < 5
    finally:
        lock.release()


def test_a_cancelled_request_does_not_wait() -> None:
    lock = threading.Lock()
    lock.acquire()
    deadline = Deadline.cancellable(time.monotonic() + 60)
    deadline.cancel()
    started = time.monotonic()
    with pytest.raises(DeadlineExceeded), deadline.holding(lock, "solving the table of KRvK"):
        pytest.fail("the work ran without the lock")
    assert time.monotonic() - started < 5
    lock.release()
