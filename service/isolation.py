"""Live computations in worker processes that can be stopped: killed past their deadline, capped in memory.

A thread cannot be stopped: a runaway computation in one holds the GIL (so cheap lookups wait), its memory
and its answer until its next cooperative deadline check. A `ProcessPool` runs each computation in one of
a few processes, each with its own `Nimbase` built once from the `Settings` and the database URL. They
are not forked from the server (it runs gRPC and threads) but from a fork server started with it, which
has imported the service and loaded its kernels once (service.live_template), so a process, also the one
replacing a process killed under a hostile load, pays only its own warm-up questions before it is ready
(spawned where the platform has no fork server). The parent only waits: at the request's
deadline it answers DEADLINE_EXCEEDED, and a process that has not come back by itself shortly after is
killed (SIGKILL) and replaced. Each process caps its address space (RLIMIT_AS) at what it maps once
started plus `Limits.live_memory_bytes`, so a computation past the cap fails with MemoryError there, which
becomes RESOURCE_EXHAUSTED naming the cap, and the process is replaced. What runs in a process is
service.live_child, which lowers the process's priority first.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar, cast

from engine.deadline import Deadline, within
from engine.errors import Cancelled, DeadlineExceeded, LimitExceeded
from engine.positions import quote_position
from nimbase import fork_server
from nimbase.settings import Settings
from service import live_child
from service.calls import (
    BatchGetValues,
    BestMove,
    Call,
    ColumnarValues,
    GetSequence,
    GetStats,
    GetValue,
    IsPPosition,
    Mainline,
    Timed,
)
from service.clients import ARRIVED, current_client
from service.live_child import address_space, pack_error, unpack_answer, unpack_error

log = logging.getLogger(__name__)
T = TypeVar("T")

#: How long a starting process may go without a sign of life (its imports and database pool, then each
#: question of its warm-up: service.warm_up compiles every kernel on a fresh machine, for minutes in all,
#: at the live processes' low priority) before it counts as failed.
START_SECONDS = 600.0
#: A process that fails to start is started again after this long, so a broken set-up does not spin.
RESTART_SECONDS = 2.0
#: How often a waiting call looks at its client's cancellation and its process's memory.
POLL_SECONDS = 0.02
#: How often a call waiting for a free process looks at its client's cancellation (many may wait).
QUEUE_POLL_SECONDS = 0.5
#: How long before the request's deadline a process stops its work: its own refusal (which names the step
#: that ran out of time) then reaches the parent by the deadline, at which the parent answers by itself.
ANSWER_MARGIN_SECONDS = 0.03
#: How long a process whose call was given up (deadline, cancellation) may take to come back by itself
#: before it is killed: the engine checks its deadline often, and a process restart costs seconds of CPU.
KILL_GRACE_SECONDS = 0.25
#: A process that dies with its address space within this fraction of its cap died of its memory.
NEAR_CAP = 0.9

CAP_SETTING = "NIMBASE_LIMITS_LIVE_MEMORY_BYTES"
PROCESSES_SETTING = "NIMBASE_LIMITS_LIVE_PROCESSES"
#: A refusal for time of a call that first waited for a live process at least this share of its time says
#: so (naming PROCESSES_SETTING): the server's capacity took that time, not the client's short deadline.
NOTED_WAIT_SHARE = 0.1


class ProcessDied(Exception):
    """A live process died for a reason other than its memory (INTERNAL: nothing of it is shown)."""


class PoolClosed(Exception):
    """A call reached a pool that is stopping (INTERNAL)."""


# ---- the parent ---------------------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class _Child:
    process: BaseProcess
    conn: Connection
    #: Address space once started; the cap is this plus the pool's memory bytes.
    base: int = 0
    #: The largest address space seen while it computed for a call.
    seen: int = 0
    pid: int = field(init=False)

    def __post_init__(self) -> None:
        self.pid = self.process.pid or 0


def bytes_text(count: int) -> str:
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count >> shift} {unit}"
    return f"{count} bytes"


#: What each call about one position computes, for its error messages.
NOUNS = {
    "get_value": "the value",
    "is_p_position": "whether it is a P-position",
    "best_move": "the best moves",
    "mainline": "the main line",
}


def describe(asked: Call[Any]) -> str:
    """What a call computes, for its error messages (positions and game ids shortened)."""
    game = quote_position(str(getattr(asked, "game", "?")))
    if isinstance(asked, GetValue | IsPPosition | BestMove | Mainline):
        return f"{NOUNS[asked.method]} of position {quote_position(asked.position)} of game {game}"
    if isinstance(asked, BatchGetValues):
        return f"the values of {len(asked.positions)} positions of game {game}"
    if isinstance(asked, ColumnarValues):
        return f"the values of {len(asked.heaps)} heaps of game {game}"
    if isinstance(asked, GetSequence):
        return f"values {asked.start}..{asked.stop} of game {game}"
    if isinstance(asked, GetStats):
        return f"the stats of game {game}"
    return f"{asked.method} of game {game}"


#: What the fork server of the live processes imports once (service.live_template loads the kernels).
PRELOAD = ["service.live_child", "service.live_template"]


class ProcessPool:
    """Processes that run `Nimbase` methods for many threads at once (see the module's docstring)."""

    def __init__(
        self, settings: Settings, database_url: str | None, adopt: Callable[[bytes], None] | None = None
    ) -> None:
        """`adopt` is given what a process computed for a call besides its answer (service.learned), to
        keep in the server's memory."""
        limits = settings.limits
        self._adopt = adopt
        self._settings = settings
        self._database_url = database_url
        self._size = max(1, limits.live_processes)
        self._memory_bytes = limits.live_memory_bytes
        self._request_seconds = limits.request_seconds
        self._processes = fork_server.context(PRELOAD)
        self._changed = threading.Condition()
        self._idle: list[_Child] = []
        self._children: set[_Child] = set()
        self._closed = False

    @property
    def size(self) -> int:
        return self._size

    @property
    def memory_bytes(self) -> int:
        return self._memory_bytes

    def start(self, timeout: float = START_SECONDS, *, wait: bool = True) -> None:
        """Start the processes. With `wait`, return once they all answer (raises if none does within
        `timeout`); without, return at once and log when they are up: calls meanwhile wait for a process
        within their deadline, and what the server answers by itself is served from the first second."""
        for _ in range(self._size):
            self._launch()
        if wait:
            self._await_started(timeout)
        else:
            threading.Thread(
                target=self._await_started, args=(timeout, False), name="nimbase-live-ready", daemon=True
            ).start()

    def _await_started(self, timeout: float, strict: bool = True) -> None:
        until = time.monotonic() + timeout
        with self._changed:
            while len(self._idle) < self._size and not self._closed:
                left = until - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(left)
            started, closed = len(self._idle), self._closed
        if closed:
            return
        if started == 0:
            if strict:
                raise RuntimeError(f"no live process started within {timeout:.0f} s")
            log.warning(
                "no live process ready within %.0f s: still starting (each compiles the kernels of its "
                "computations first, for minutes on a fresh machine)",
                timeout,
            )
            return
        log.info("%d live processes started, each capped at %s more", started, bytes_text(self._memory_bytes))

    def close(self) -> None:
        """Stop every process (idle ones by closing their pipe, busy ones by killing them)."""
        with self._changed:
            self._closed = True
            children = list(self._children)
            self._children.clear()
            self._idle.clear()
            self._changed.notify_all()
        for child in children:
            child.process.kill()
        for child in children:
            child.process.join(5)
            child.conn.close()

    def started(self) -> int:
        """Processes running, busy or idle (fewer than `size` while some start)."""
        with self._changed:
            return len(self._children)

    def idle(self) -> int:
        """Processes ready for a call now."""
        with self._changed:
            return len(self._idle)

    def pids(self) -> dict[int, bool]:
        """The running processes' ids, each with whether it is computing for a call now."""
        with self._changed:
            return {child.pid: child not in self._idle for child in self._children}

    # -- a call ----------------------------------------------------------------------------------

    def call(self, asked: Timed[T]) -> T:
        """The service's answer to `asked` in an idle process, under the same deadline (which the process
        keeps, so its own refusal for time comes first): its result, or its NimbaseError raised
        unchanged. The request goes whole, its deadline as a time (a `Deadline` stays in this process)."""
        sent = time.monotonic()
        stop = within(asked.deadline, sent + self._request_seconds)
        # The wait counts from the request's arrival where its transport said (ARRIVED): the lanes' queues
        # before this call are time the server took too, not a short deadline of the client's.
        arrived = ARRIVED.get()
        since = sent if arrived is None else min(arrived, sent)
        child = self._take(stop, asked)
        try:
            request = asked.until(None)
            child.conn.send((request, stop.at - ANSWER_MARGIN_SECONDS, current_client(), since))
        except (OSError, ValueError) as exc:
            self._replace(child)
            raise ProcessDied(f"a live process could not be sent {asked.method}") from exc
        waited = time.monotonic() - since
        try:
            return cast(T, self._wait(child, stop, asked))
        except DeadlineExceeded as error:
            raise self._waited(error, waited, stop.at - since) from None

    def _waited(self, error: DeadlineExceeded, waited: float, given: float) -> DeadlineExceeded:
        """`error`, saying first how long its call waited for a process (from the request's arrival, where
        its transport said: in the lanes' queues too), where that took a fair share of the call's time
        (`NOTED_WAIT_SHARE`)."""
        if (
            isinstance(error, Cancelled)
            or waited < NOTED_WAIT_SHARE * given
            or PROCESSES_SETTING in str(error)
        ):
            return error
        noted = unpack_error(pack_error(error))
        assert isinstance(noted, DeadlineExceeded)
        noted.args = (
            f"the request waited {waited:.2g} s in this server for one of the {self._size} live processes "
            f"({PROCESSES_SETTING}), which other requests held; {error}",
            *error.args[1:],
        )
        return noted

    def _take(self, stop: Deadline, asked: Call[Any]) -> _Child:
        with self._changed:
            while not self._idle:
                if self._closed:
                    raise PoolClosed("the server is stopping")
                if stop.is_cancelled:
                    raise Cancelled(f"{describe(asked)} was stopped: the client cancelled the request")
                left = stop.at - time.monotonic()
                if left <= 0:
                    raise DeadlineExceeded(
                        f"{describe(asked)} ran past the request's deadline waiting for one of the "
                        f"{self._size} live processes ({PROCESSES_SETTING}) to be free"
                    )
                self._changed.wait(min(left, QUEUE_POLL_SECONDS))  # woken at once when one is free
            child = self._idle.pop()
        if not child.process.is_alive():  # died while idle: replaced, and the call takes another
            self._replace(child)
            return self._take(stop, asked)
        return child

    def _wait(self, child: _Child, stop: Deadline, asked: Call[Any]) -> object:
        child.seen = 0
        cancelled_at: float | None = None
        while True:
            now = time.monotonic()
            if cancelled_at is None and stop.is_cancelled:
                cancelled_at = now
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.pid, signal.SIGUSR1)  # the child's deadline check stops the work
            if cancelled_at is not None and now > cancelled_at + KILL_GRACE_SECONDS:
                self._abandon(child)
                raise Cancelled(f"{describe(asked)} was stopped: the client cancelled the request")
            left = stop.at - now
            if left <= 0:
                self._abandon(child)
                raise DeadlineExceeded(f"{describe(asked)} ran past the request's deadline")
            try:
                ready = child.conn.poll(min(left, POLL_SECONDS))
            except (OSError, EOFError):
                ready = True  # recv says what happened
            if not ready:
                child.seen = max(child.seen, address_space(child.pid))
                continue
            try:
                kind, payload = child.conn.recv()
            except (EOFError, OSError):
                raise self._died(child, asked) from None
            except Exception as exc:  # a whole answer that does not unpickle: the process is still sound
                self._release(child)
                raise ProcessDied(
                    f"the answer of a live process to {asked.method} could not be read"
                ) from exc
            if kind == "ok":
                self._release(child)
                answer, learned = payload
                self._learn(learned)
                return unpack_answer(answer)
            if kind == "error":
                self._release(child)
                raise unpack_error(payload)
            if kind == "memory":
                self._replace(child)
                raise self._over_cap(asked)
            self._replace(child)
            raise ProcessDied(f"a live process failed computing {asked.method}")

    def _learn(self, learned: bytes | None) -> None:
        """Hand `adopt` what a process learned (a failure there costs only the keeping)."""
        if learned is None or self._adopt is None:
            return
        try:
            self._adopt(learned)
        except Exception:
            log.exception("what a live process computed could not be kept")

    def _died(self, child: _Child, asked: Call[Any]) -> Exception:
        child.process.join(1)
        code = child.process.exitcode
        self._replace(child)
        if child.seen >= child.base + NEAR_CAP * self._memory_bytes:
            return self._over_cap(asked)
        return ProcessDied(f"a live process died computing {asked.method} (exit code {code})")

    def _over_cap(self, asked: Call[Any]) -> LimitExceeded:
        return LimitExceeded(
            f"{describe(asked)} needed more than the {bytes_text(self._memory_bytes)} of memory a "
            f"live computation may use ({CAP_SETTING})"
        )

    # -- the processes ---------------------------------------------------------------------------

    def _release(self, child: _Child) -> None:
        with self._changed:
            if self._closed or child not in self._children:
                return
            self._idle.append(child)
            self._changed.notify()

    def _abandon(self, child: _Child) -> None:
        """The call's answer is given up: the child may come back within the grace, else is killed."""

        def reap() -> None:
            try:
                back = child.conn.poll(KILL_GRACE_SECONDS)
                if back:
                    kind, payload = child.conn.recv()
                    if kind in ("ok", "error"):
                        self._release(child)
                        if kind == "ok":  # too late for its caller, in time for the next one
                            self._learn(payload[1])
                        return
            except (EOFError, OSError):
                pass
            self._replace(child)

        threading.Thread(target=reap, name="nimbase-live-reap", daemon=True).start()

    def _replace(self, child: _Child) -> None:
        """Kill `child` (if it still runs) and start another in its place."""
        with self._changed:
            if child in self._idle:
                self._idle.remove(child)
            known = child in self._children
            self._children.discard(child)
            closed = self._closed
        child.process.kill()
        child.process.join(5)
        child.conn.close()
        if known and not closed:
            self._launch()

    def _launch(self) -> None:
        threading.Thread(target=self._bring_up, name="nimbase-live-start", daemon=True).start()

    def _bring_up(self) -> None:
        """Start one process and add it to the idle ones once it answers; retried until it does."""
        while True:
            with self._changed:
                if self._closed:
                    return
            ours, theirs = self._processes.Pipe()
            process = self._processes.Process(
                target=live_child.main,
                args=(pickle.dumps(self._settings), self._database_url, theirs, self._memory_bytes),
                name="nimbase-live",
                daemon=True,
            )
            process.start()
            theirs.close()
            child = _Child(process, ours)
            try:
                while ours.poll(START_SECONDS):
                    kind, base = ours.recv()
                    if kind == "warming":  # a question of its warm-up done: alive, and compiling
                        continue
                    if kind == "ready":
                        child.base = int(base)
                        with self._changed:
                            if not self._closed:
                                self._children.add(child)
                                self._idle.append(child)
                                self._changed.notify_all()
                                return
                    break
            except (EOFError, OSError):
                pass
            process.kill()
            process.join(5)
            ours.close()
            with self._changed:
                if self._closed:
                    return
            log.warning("a live process did not start (exit code %s): starting another", process.exitcode)
            time.sleep(RESTART_SECONDS)
