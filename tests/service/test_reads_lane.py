"""A server sets up the REST transport's reads lane (starlette's threads, anyio's worker pool) as it
starts, before it says it serves: anyio sets its pool up at an event loop's first call, which the first
request going to a thread paid (issue 33: tens of ms of the first GetValue of a stored table's block)."""

from __future__ import annotations

import threading

from tests.servers import running_server
from tests.service.fake_service import FakeService


def workers() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name == "AnyIO worker thread"}


def test_the_reads_lane_has_a_thread_before_the_first_request() -> None:
    before = workers()
    with running_server(FakeService()):
        assert workers() - before, "no worker thread of the reads lane before any request"
