"""What a server process waits for before it says it is ready (GET /readyz 200, gRPC health SERVING).

Up is not ready: a process answers /healthz from its first second, but a request that meets a kernel
numba has not compiled (or loaded from its cache) in that process waits seconds for it, on the event loop
or under its own deadline. So each process compiles before it is ready (service.warm_up), and says why
it is not ready meanwhile. `Readiness` holds the conditions a process waits for, each a check returning
None once met, else the reason, named in /readyz's answer; `SharedNote` carries one such reason from the
process that supervises the worker (`nimbase run`) to the server processes it spawned.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

#: Longest reason a `SharedNote` carries (longer ones are cut).
NOTE_BYTES = 512


class Readiness:
    """Named conditions a process waits for before it is ready; `reasons` lists those not met."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._checks: dict[str, Callable[[], str | None]] = {}

    def require(self, name: str, check: Callable[[], str | None]) -> None:
        """Wait for `check()` to return None (until then, it returns why not); replaces one of that name."""
        with self._lock:
            self._checks[name] = check

    def reasons(self) -> list[str]:
        """Why the process is not ready (empty: it is); read from memory, at once."""
        with self._lock:
            checks = list(self._checks.values())
        return [reason for check in checks if (reason := check()) is not None]


class SharedNote:
    """A line of text one process writes and the processes it spawns read (shared memory, given to them
    as they are spawned): None, or a reason to wait for."""

    def __init__(self, context: Any, text: str | None = None) -> None:
        self._array = context.Array("c", NOTE_BYTES)
        self.write(text)

    def write(self, text: str | None) -> None:
        data = b"" if text is None else text.encode()[: NOTE_BYTES - 1] or b" "
        with self._array.get_lock():
            self._array.value = data

    def read(self) -> str | None:
        with self._array.get_lock():
            data = bytes(self._array.value)
        return data.decode(errors="replace") or None
