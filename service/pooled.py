"""The service with its computations in a `ProcessPool`, behind the same `NimbaseService` protocol.

The transports keep calling the service from their threads; for the methods that may compute, the thread
now only waits for a live process (service.isolation), which is killed past the deadline or its memory
cap. What memory answers (`in_memory`: formulas, cached tables, certified periods) stays on the event
loop of this process; what storage answers (`without_computing`: a stored table's values) is read by this
process's threads; and so is everything that does not compute: jobs, graphs, health, the games list and
downloads (which read stored blocks a request at a time).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TypeVar, cast

import numpy as np
from numpy.typing import NDArray

from engine.deadline import Deadline
from engine.errors import NimbaseError
from engine.graphs import GraphBuilder, UploadedGraph
from engine.values import BestMoveResult, GameInfo, SequenceResult, Value
from service.core import Health, Nimbase
from service.graphs import GraphSummary
from service.isolation import ProcessPool
from service.jobs import JobView

T = TypeVar("T")


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
        read = self.local.without_computing(lambda: call(*args, deadline=deadline))
        if read is not None:
            return read
        return self.pool.call(method, args, deadline)

    # -- computing: in the pool ---------------------------------------------------------------------

    def get_value(self, game: str, position: str, deadline: float | Deadline | None = None) -> Value:
        return cast(Value, self._compute("get_value", (game, position), deadline))

    def is_p_position(self, game: str, position: str, deadline: float | Deadline | None = None) -> Value:
        return cast(Value, self._compute("is_p_position", (game, position), deadline))

    def best_move(
        self, game: str, position: str, limit: int | None = None, deadline: float | Deadline | None = None
    ) -> BestMoveResult:
        return cast(BestMoveResult, self._compute("best_move", (game, position, limit), deadline))

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
        if self._mode.memory_only:
            return self.local.get_stats(game)
        return cast(dict[str, object], self.pool.call("get_stats", (game,), None, timed=False))

    # -- everything else: here ----------------------------------------------------------------------

    def list_games(self) -> list[GameInfo]:
        return self.local.list_games()

    def sequence_blocks(
        self, game: str, family: str | None, start: int, stop: int
    ) -> Iterator[NDArray[np.uint32]]:
        return self.local.sequence_blocks(game, family, start, stop)

    def submit_job(
        self, token: str | None, game: str, upto: int, fill: bool = False, family: str | None = None
    ) -> JobView:
        return self.local.submit_job(token, game, upto, fill, family)

    def get_job(self, job_id: int) -> JobView:
        return self.local.get_job(job_id)

    def list_jobs(self, limit: int = 100) -> list[JobView]:
        return self.local.list_jobs(limit)

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
        return self.local.health()
