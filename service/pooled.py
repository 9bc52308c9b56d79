"""The service with its computations in a `ProcessPool`, behind the same `NimbaseService` protocol.

The transports keep calling the service from their threads; for the methods that may compute, the thread
now only waits for a live process (service.isolation), which is killed past the deadline or its memory
cap. What memory answers (`in_memory`: formulas, cached tables, certified periods) stays on the event
loop of this process; what storage answers (`without_computing`: a stored table's values) is read by this
process's threads; and so is everything that does not compute: jobs, graphs, health, the games list and
downloads (which read stored blocks a request at a time).

A transport that lends threads to calls gives the ones that go to the pool a lane of their own
(`compute_lane_threads` of them), so threads waiting for a live process never hold the ones that reads
need: it runs each call first in its reads lane inside `reads_only`, which answers what this process
answers and otherwise says the call must move to the compute lane (`TO_COMPUTE_LANE`). Only this module
knows which calls compute; any other service answers everything in the reads lane, as before.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from engine.deadline import Deadline
from engine.errors import NimbaseError
from engine.graphs import GraphBuilder, UploadedGraph
from engine.lru import Usage
from engine.mainline import Mainline
from engine.values import BestMoveResult, GameInfo, SequenceResult, Value
from service.core import Health, Nimbase
from service.graphs import GraphSummary
from service.isolation import ProcessPool
from service.jobs import JobView, SubmissionView
from service.move_choice import parse_choice

T = TypeVar("T")

#: Threads of a transport's compute lane per live process: the calls running in a process, and the ones
#: queued for one (which wait, up to their deadline, in `ProcessPool.call`).
LANE_THREADS_PER_PROCESS = 8
#: The fewest threads of a compute lane.
LANE_THREADS_MIN = 16


class _ToComputeLane(BaseException):
    """Raised out of a reads-lane call that would go to the pool (a BaseException: the transports' own
    `except Exception` of a call that failed must not take it for one)."""


class _Lane(threading.local):
    """Per thread: whether the thread is running a call in a transport's reads lane (inside `reads_only`),
    or in its compute lane after the reads lane found it must compute (inside `computing_only`)."""

    reads = False
    computing = False


_lane = _Lane()


class Moved:
    """What `reads_only` returns for a call to run again in the compute lane."""


TO_COMPUTE_LANE = Moved()


def reads_only(call: Callable[[], T]) -> T | Moved:
    """`call()` in a transport's reads lane: its answer, or `TO_COMPUTE_LANE` where a `PooledService`
    would have waited for a live process (the call is then to run again in the compute lane)."""
    _lane.reads = True
    try:
        return call()
    except _ToComputeLane:
        return TO_COMPUTE_LANE
    finally:
        _lane.reads = False


def computing_only(call: Callable[[], T]) -> T:
    """`call()` in a transport's compute lane, after `reads_only` moved it there: it goes straight to the
    pool (what this process could read was tried in the reads lane already)."""
    _lane.computing = True
    try:
        return call()
    finally:
        _lane.computing = False


def compute_lane_threads(service: object) -> int:
    """Threads of the compute lane for `service`: sized from its pool, 0 when nothing moves there."""
    if not isinstance(service, PooledService):
        return 0
    return max(LANE_THREADS_MIN, LANE_THREADS_PER_PROCESS * service.pool.size)


class _Mode(threading.local):
    """Per thread: whether the thread is answering from memory only (inside `in_memory`)."""

    memory_only = False


class PooledService:
    """`local` answers from memory and for everything but computing; `pool` computes."""

    def __init__(self, local: Nimbase, pool: ProcessPool) -> None:
        self.local = local
        self.pool = pool
        self.answers = local.answers
        self._mode = _Mode()

    def close(self) -> None:
        self.pool.close()

    def cache_usage(self) -> dict[str, Usage]:
        """This process's caches (the live processes' caches are in their own memory, not this one's)."""
        return self.local.cache_usage()

    def in_memory(self, call: Callable[[], T]) -> T | None:
        """`call()` answered from this process's memory alone (the calls it makes stay here), else None."""
        mode = self._mode
        mode.memory_only = True
        try:
            return self.local.in_memory(call)
        finally:
            mode.memory_only = False

    def _compute(self, method: str, args: tuple[object, ...], deadline: float | Deadline | None) -> object:
        """In this process what memory or storage answers (a stored table's first lookup reads it here,
        so this process's caches warm and cheap lookups never queue behind computations), else in the
        pool."""
        call = getattr(self.local, method)
        if self._mode.memory_only:
            return call(*args, deadline=deadline)
        if _lane.computing:
            return self.pool.call(method, args, deadline)
        read = self.local.without_computing(lambda: call(*args, deadline=deadline))
        if read is not None:
            return read
        if _lane.reads:
            raise _ToComputeLane
        return self.pool.call(method, args, deadline)

    # -- computing: in the pool ---------------------------------------------------------------------

    def get_value(self, game: str, position: str, deadline: float | Deadline | None = None) -> Value:
        return cast(Value, self._compute("get_value", (game, position), deadline))

    def is_p_position(self, game: str, position: str, deadline: float | Deadline | None = None) -> Value:
        return cast(Value, self._compute("is_p_position", (game, position), deadline))

    def best_move(
        self,
        game: str,
        position: str,
        limit: int | None = None,
        deadline: float | Deadline | None = None,
        choose: str | None = None,
        seed: int | None = None,
    ) -> BestMoveResult:
        """Ranked (its best moves marked) where `_compute` says; the draw, if any, here."""
        choice = parse_choice(choose, seed)
        ranked = self._compute("best_move", (game, position, choice.ranked(limit)), deadline)
        return choice.apply(cast(BestMoveResult, ranked), limit)

    def mainline(
        self,
        game: str,
        position: str,
        max_plies: int | None = None,
        metric: str | None = None,
        deadline: float | Deadline | None = None,
    ) -> Mainline:
        return cast(Mainline, self._compute("mainline", (game, position, max_plies, metric), deadline))

    def batch_get_values(
        self, game: str, positions: Sequence[str], deadline: float | Deadline | None = None
    ) -> list[Value | NimbaseError]:
        return cast(
            list[Value | NimbaseError], self._compute("batch_get_values", (game, positions), deadline)
        )

    def columnar_values(
        self,
        game: str,
        heaps: NDArray[np.uint64],
        offsets: NDArray[np.uint64] | None = None,
        deadline: float | Deadline | None = None,
    ) -> NDArray[np.uint32]:
        return cast(NDArray[np.uint32], self._compute("columnar_values", (game, heaps, offsets), deadline))

    def get_sequence(
        self, game: str, family: str | None, start: int, stop: int, deadline: float | Deadline | None = None
    ) -> SequenceResult:
        return cast(SequenceResult, self._compute("get_sequence", (game, family, start, stop), deadline))

    def get_stats(self, game: str) -> dict[str, object]:
        """In this process where storage answers (a stored table's statistics, read once and kept here:
        no hop to a live process for a few numbers), else in the pool (what is known live, as before)."""
        if self._mode.memory_only:
            return self.local.get_stats(game)
        if not _lane.computing:
            read = self.local.without_computing(lambda: self.local.get_stats(game))
            if read is not None and read.get("source") != "live":
                return read
        if _lane.reads:
            raise _ToComputeLane
        return cast(dict[str, object], self.pool.call("get_stats", (game,), None))

    # -- everything else: here ----------------------------------------------------------------------

    def list_games(self) -> list[GameInfo]:
        return self.local.list_games()

    def sequence_blocks(
        self, game: str, family: str | None, start: int, stop: int
    ) -> Iterator[NDArray[np.uint32]]:
        return self.local.sequence_blocks(game, family, start, stop)

    def submit_job(
        self,
        token: str | None,
        game: str,
        upto: int | None = None,
        fill: bool = False,
        family: str | None = None,
        men: int | None = None,
    ) -> SubmissionView:
        return self.local.submit_job(token, game, upto, fill, family, men)

    def retry_job(self, token: str | None, job_id: int) -> SubmissionView:
        return self.local.retry_job(token, job_id)

    def get_job(self, job_id: int) -> JobView:
        return self.local.get_job(job_id)

    def list_jobs(self, limit: int = 100) -> list[JobView]:
        return self.local.list_jobs(limit)

    def job_page(self, limit: int = 100, cursor: str | None = None) -> tuple[list[JobView], str | None]:
        return self.local.job_page(limit, cursor)

    def cancel_job(self, token: str | None, job_id: int) -> JobView:
        return self.local.cancel_job(token, job_id)

    def upload_graph(
        self,
        token: str | None,
        name: object,
        vertices: Sequence[object],
        edges: Sequence[Sequence[object]],
        terminals: Mapping[str, object] | None = None,
    ) -> GraphSummary:
        return self.local.upload_graph(token, name, vertices, edges, terminals)

    def begin_graph_upload(self, token: str | None, name: object) -> GraphBuilder:
        return self.local.begin_graph_upload(token, name)

    def finish_graph_upload(self, upload: GraphBuilder) -> GraphSummary:
        return self.local.finish_graph_upload(upload)

    def get_graph(self, name: str) -> UploadedGraph:
        return self.local.get_graph(name)

    def authorize(self, token: str | None, action: str = "job submission") -> None:
        self.local.authorize(token, action)

    def health(self) -> Health:
        """The service's health, ready once this process is and every live process has started, its
        kernels compiled (GET /readyz)."""
        health, started = self.local.health(), self.pool.started()
        details = {**health.details, "live_processes": {"started": started, "of": self.pool.size}}
        reasons = list(health.reasons)
        if started < self.pool.size:
            reasons.append(
                f"starting its live processes, each compiling the kernels of its computations: {started} "
                f"of {self.pool.size} ready"
            )
        return dataclasses.replace(health, details=details, ready=not reasons, reasons=reasons)
