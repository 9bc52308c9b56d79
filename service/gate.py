"""A circuit breaker in front of the database.

When PostgreSQL is down every query would wait for a connect timeout; after one failure the gate
stays shut for a moment so requests that need no table are answered at once, and it reopens by
itself so the service recovers without a restart when the database is back.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

from storage.errors import StorageUnavailable

T = TypeVar("T")


class DatabaseGate:
    """Runs database calls, remembering the last connection failure for `retry_seconds`."""

    def __init__(self, retry_seconds: float = 1.0) -> None:
        self._retry_seconds = retry_seconds
        self._down_until = 0.0
        self._lock = threading.Lock()

    @property
    def is_open(self) -> bool:
        """Whether a call may try the database now."""
        return time.monotonic() >= self._down_until

    def call(self, action: Callable[[], T]) -> T:
        """Run `action`; raise StorageUnavailable at once while the database is known to be down."""
        if not self.is_open:
            raise StorageUnavailable("the database is unreachable (retrying shortly)")
        try:
            return action()
        except StorageUnavailable:
            with self._lock:
                self._down_until = time.monotonic() + self._retry_seconds
            raise
