"""When a request's work must stop: at its deadline, or as soon as its client has gone away.

A transport makes one `Deadline` per call and sets it `cancel()`led when the client cancels or
disconnects; the engine's long loops call `check` every few iterations. Nobody is left to read the
answer of a cancelled request, so stopping it frees the core for requests that still have a caller.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from engine.errors import Cancelled, DeadlineExceeded


class Cancellation:
    """Whether a request's client has gone: a flag one thread sets and others read.

    Nobody waits on it (the work polls it at each `check`), so a plain attribute does, which the GIL
    makes safe to set from one thread and read from another: a threading.Event (a lock and a
    condition) would cost the hot path 3 µs per call for nothing.
    """

    __slots__ = ("is_set",)

    def __init__(self) -> None:
        self.is_set = False


@dataclass(slots=True, unsafe_hash=True)
class Deadline:
    """A time.monotonic() instant `at`, and a flag the transport sets when the client goes away.

    Copies made by `capped` share the flag, so cancelling the transport's copy stops the work
    running under the service's (earlier) one. Never reassigned, though not frozen (hashed by `at` as
    before): every request makes one, and a frozen dataclass sets each field through
    `object.__setattr__`, which costs a lookup a good part of a microsecond.
    """

    at: float
    #: None for a deadline nobody can cancel (the service's own, the engine's). Transports make theirs
    #: with `cancellable`.
    cancelled: Cancellation | None = field(default=None, compare=False)

    @classmethod
    def cancellable(cls, at: float) -> Deadline:
        """A deadline its transport can `cancel` when the client goes away."""
        return cls(at, Cancellation())

    def cancel(self) -> None:
        """The client has gone: every `check` from now on raises `Cancelled`."""
        if self.cancelled is None:
            raise ValueError("this deadline was not made cancellable (Deadline.cancellable)")
        self.cancelled.is_set = True

    @property
    def is_cancelled(self) -> bool:
        return self.cancelled is not None and self.cancelled.is_set

    def capped(self, at: float) -> Deadline:
        """This deadline, no later than `at`, sharing the cancellation."""
        return self if self.at <= at else Deadline(at, self.cancelled)

    def remaining(self) -> float:
        """Seconds left (0 once past, or once cancelled): what a wait for a lock may take."""
        return 0.0 if self.is_cancelled else max(0.0, self.at - time.monotonic())

    @contextlib.contextmanager
    def holding(self, lock: threading.Lock, what: str) -> Iterator[None]:
        """`lock` held while doing `what` (e.g. "solving graph 'g'"), waited for until the deadline at
        most: a request holding it does the same work, which this one then finds done. Past the
        deadline, DeadlineExceeded saying so."""
        if not lock.acquire(timeout=self.remaining()):
            raise DeadlineExceeded(f"{what}: another request was at it until the deadline")
        try:
            yield
        finally:
            lock.release()

    def check(self, what: str | Callable[[], str]) -> None:
        """Raise if the work described by `what` (text, or a function making it) must stop now.

        Costs two cheap calls, so loops may call it every iteration whose body does any real work.
        """
        if self.is_cancelled:
            raise Cancelled(f"{_text(what)} was stopped: the client cancelled the request")
        if time.monotonic() > self.at:
            raise DeadlineExceeded(f"{_text(what)} ran past the request's deadline")


def within(deadline: float | Deadline | None, cap: float) -> Deadline:
    """The `Deadline` of a request given as a Deadline, a plain time.monotonic() value or None,
    no later than `cap`."""
    if deadline is None:
        return Deadline(cap)
    if isinstance(deadline, Deadline):
        return deadline.capped(cap)
    return Deadline(min(deadline, cap))


def _text(what: str | Callable[[], str]) -> str:
    return what if isinstance(what, str) else what()
