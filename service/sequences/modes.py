"""The modes a request's thread may answer in: from memory only, or from memory and storage without
computing.

The transports try a request in memory-only mode on their event loop first (no thread hop on the hot
path); the pooled service tries it reads-only in its own process before it sends it to a live process
that can be stopped. Code about to wait on storage calls `may_block`, code about to compute calls
`may_compute`: each raises WouldBlock where the thread's mode forbids it, and the caller of
`from_memory` or `without_computing` gets None, telling it to go where that is allowed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class WouldBlock(Exception):
    """Raised in memory-only mode where an answer would need the database or real computation."""


class Modes(threading.local):
    """Per thread: whether the thread's request must answer from memory only (`from_memory`), or from
    memory and storage without computing (`without_computing`)."""

    memory_only = False
    reads_only = False
    #: What a memory answer being made asked to run once it is given (`behind_answer`).
    behind: list[Callable[[], None]] | None = None

    def from_memory(self, call: Callable[[], T]) -> T | None:
        """`call()` answered from memory alone, or None where it would wait on I/O or compute
        (`may_block` raised WouldBlock in it).

        The transports try requests this way on their event loop first, which saves a thread hop
        on the hot path, and fall back to a worker thread when None says it is needed.
        """
        outer = self.behind  # a memory answer this one is part of, which runs what is left behind
        self.behind = [] if outer is None else outer
        self.memory_only = True
        answered = True  # an answer or an error of the request (found in memory, as cheaply)
        try:
            return call()
        except WouldBlock:
            answered = False
            return None
        finally:
            self.memory_only = outer is not None
            if outer is None:
                behind, self.behind = self.behind or [], None
                for action in behind if answered else ():
                    action()

    def behind_answer(self, action: Callable[[], None]) -> None:
        """Run `action` (a header read again in a thread of its own) once the memory answer being made
        is given, not before and not at all where memory does not answer: the call then goes to a thread
        that reads what it needs itself, and a thread started meanwhile only competes with it (for the
        GIL, a core, the connection pool) under its deadline. Outside `from_memory`, at once."""
        if self.behind is None:
            action()
        else:
            self.behind.append(action)

    def without_computing(self, call: Callable[[], T]) -> T | None:
        """`call()` answered from memory and storage, or None where it would compute (`may_compute`
        raised WouldBlock in it): reads are cheap for this process to make, computations are not."""
        self.reads_only = True
        try:
            return call()
        except WouldBlock:
            return None
        finally:
            self.reads_only = False

    def may_block(self) -> None:
        """Raise WouldBlock in memory-only mode (for callers about to wait on storage)."""
        if self.memory_only:
            raise WouldBlock

    def may_compute(self) -> None:
        """Raise WouldBlock in memory-only and reads-only modes (for callers about to search or compute)."""
        if self.memory_only or self.reads_only:
            raise WouldBlock
