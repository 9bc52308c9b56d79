"""The database's health as last checked, answered from memory: /healthz and gRPC health must not wait.

A health check that pings the database from a thread queues behind every thread the server has lent to
other work (under a load of live computations, each may be waiting for a live process), so it answers
late exactly when an operator asks. `DatabaseHealth` keeps the last check's result and checks again in a
background thread when that result is older than `REFRESH_SECONDS` (at most one check at a time); a
request that has just found the database down (its `DatabaseGate` shut) is believed at once.

No read waits, not even for the first check (started by the first read): the transports read
health on their event loop, and a first read that waited for a slow first check (half a second at most)
held every request of the server meanwhile, at each poll of /readyz while the server started (the
loop's watcher logged it). Until the first check answers, the database is reported "not checked yet".
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from service.gate import DatabaseGate

log = logging.getLogger(__name__)

#: How old the last check may be before a read starts another (in the background).
REFRESH_SECONDS = 1.0

UNREACHABLE = {"database": "unreachable"}
NOT_CHECKED = {"database": "not checked yet"}


@dataclass(slots=True)
class Health:
    database: bool
    details: dict[str, object] = field(default_factory=dict)
    #: Whether the process is ready (GET /readyz, gRPC health): its kernels compiled, every live process
    #: started, and whatever else it waits for (service.readiness); the server answers from its first
    #: second, but a request would meanwhile wait for a compile or for a live process.
    ready: bool = True
    #: Why it is not ready (empty once it is).
    reasons: list[str] = field(default_factory=list)


class DatabaseHealth:
    """The last result of `check` (True: the database answered), refreshed in the background."""

    def __init__(
        self, check: Callable[[], bool], gate: DatabaseGate, refresh_seconds: float = REFRESH_SECONDS
    ) -> None:
        self._check = check
        self._gate = gate
        self._refresh_seconds = refresh_seconds
        self._lock = threading.Lock()
        self._result: bool | None = None
        self._checked = float("-inf")
        self._checking = False

    def read(self) -> Health:
        """The last known health, at once; a stale one starts a check for the next read."""
        self._start_check()
        if not self._gate.is_open:  # a request found it down since the last check
            return Health(database=False, details=dict(UNREACHABLE))
        result = self._result
        if result is None:
            return Health(database=False, details=dict(NOT_CHECKED))
        return Health(database=True) if result else Health(database=False, details=dict(UNREACHABLE))

    def _start_check(self) -> None:
        """A check in the background, unless the last is recent or one runs."""
        with self._lock:
            stale = time.monotonic() - self._checked >= self._refresh_seconds
            start = stale and not self._checking
            if start:
                self._checking = True
        if start:
            threading.Thread(target=self._refresh, name="nimbase-health", daemon=True).start()

    def _refresh(self) -> None:
        try:
            result = self._check()
        except Exception:  # a health check reports, it never raises
            log.exception("the database health check failed")
            result = False
        with self._lock:
            self._result = result
            self._checked = time.monotonic()
            self._checking = False
