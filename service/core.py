"""The transport-free service layer: every RPC and route is one method here.

gRPC and REST only translate requests into these calls and results into messages. A game id resolves
once to its `GameKind` (engine.kind); after that this layer only applies limits and deadlines, lends
the kind narrow views of storage (`SequenceTables`) and a shared memo, and handles jobs and auth.
It never asks which game it is serving.
"""

from __future__ import annotations

import hmac
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, TypeVar

from cachetools import LRUCache
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError

from engine.errors import InvalidArgument, NimbaseError
from engine.games.registry import list_games, parse_game_id
from engine.kind import Context, GameKind
from engine.moves import check_limit
from engine.values import BestMoveResult, GameInfo, MoveValue, SequenceResult, Value
from service.errors import NotFound, PermissionDenied, Unauthenticated, Unavailable
from service.gate import DatabaseGate
from service.memo import Memo
from service.sequences import SequenceTables, WouldBlock
from service.settings import Settings
from storage.errors import StorageUnavailable
from storage.jobs import Job, JobQueue
from storage.sequences import SequenceStore

__all__ = ["BestMoveResult", "Health", "JobView", "MoveValue", "Nimbase", "NimbaseService", "SequenceResult"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class JobView:
    id: int
    game: str
    family: str
    upto: int
    fill: bool
    status: str
    done: int
    total: int
    error: str | None
    created_at: str
    started_at: str | None
    finished_at: str | None

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "game": self.game,
            "family": self.family,
            "upto": self.upto,
            "fill": self.fill,
            "status": self.status,
            "progress": {"done": self.done, "total": self.total},
            "error": self.error,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
        }


@dataclass(slots=True)
class Health:
    database: bool
    details: dict[str, object] = field(default_factory=dict)


class NimbaseService(Protocol):
    """What the transports call; `Nimbase` below is the implementation."""

    def list_games(self) -> list[GameInfo]: ...
    def get_value(self, game: str, position: str, deadline: float | None = None) -> Value: ...
    def in_memory(self, call: Callable[[], T]) -> T | None: ...
    def best_move(
        self, game: str, position: str, limit: int | None = None, deadline: float | None = None
    ) -> BestMoveResult: ...
    def is_p_position(self, game: str, position: str, deadline: float | None = None) -> Value: ...
    def batch_get_values(
        self, game: str, positions: Sequence[str], deadline: float | None = None
    ) -> list[Value | NimbaseError]: ...
    def get_sequence(
        self, game: str, family: str | None, start: int, stop: int, deadline: float | None = None
    ) -> SequenceResult: ...
    def get_stats(self, game: str) -> dict[str, object]: ...
    def submit_job(self, token: str | None, game: str, upto: int, fill: bool = False) -> JobView: ...
    def get_job(self, job_id: int) -> JobView: ...
    def list_jobs(self, limit: int = 100) -> list[JobView]: ...
    def cancel_job(self, token: str | None, job_id: int) -> JobView: ...
    def health(self) -> Health: ...


#: Games resolved from ids are kept this many at a time (ids are user text, so the cache is bounded).
GAME_CACHE_SIZE = 1024
#: Size of the shared memo (solved searches, stats of stored tables, live tables), in units of
#: one small entry or 4 KiB of array.
MEMO_UNITS = 1 << 17


def _as_iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _job_view(job: Job) -> JobView:
    return JobView(
        id=job.id,
        game=job.game_id,
        family=job.family,
        upto=job.upto,
        fill=job.fill,
        status=job.status,
        done=job.done,
        total=job.total,
        error=job.error,
        created_at=_as_iso(job.created_at) or "",
        started_at=_as_iso(job.started_at),
        finished_at=_as_iso(job.finished_at),
    )


class Nimbase:
    """The service: resolves game ids to kinds and answers through them, within `Limits`."""

    def __init__(self, settings: Settings, engine: Engine | None) -> None:
        self._settings = settings
        self._limits = settings.limits
        self._engine = engine
        self._gate = DatabaseGate()
        self._store = SequenceStore(engine) if engine is not None else None
        self._jobs = JobQueue(engine) if engine is not None else None
        self.tables = SequenceTables(self._store, self._gate, self._limits)
        self.memo = Memo(MEMO_UNITS, self.tables.may_block)
        self._games: LRUCache[str, GameKind[Any]] = LRUCache(maxsize=GAME_CACHE_SIZE)
        self._games_lock = threading.Lock()

    # -- games and requests ---------------------------------------------------------------------

    def game(self, game_id: str) -> GameKind[Any]:
        """The kind an id names (resolved once, then cached)."""
        with self._games_lock:
            kind = self._games.get(game_id)
        if kind is None:
            kind = parse_game_id(game_id)
            with self._games_lock:
                self._games[game_id] = kind
        return kind

    def list_games(self) -> list[GameInfo]:
        return list_games()

    def _context(self, deadline: float | None) -> Context:
        """What one request lends its kind: tables, limits, its deadline (capped) and the memo."""
        cap = time.monotonic() + self._limits.request_seconds
        until = cap if deadline is None else min(deadline, cap)
        return Context(self.tables, self._limits, until, self.memo)

    def in_memory(self, call: Callable[[], T]) -> T | None:
        """`call()` if memory alone answers it (no database, no computation), else None.

        Errors in the request are raised as usual: they cost nothing to find.
        """
        try:
            with self.tables.memory_only():
                return call()
        except WouldBlock:
            return None

    # -- positions ------------------------------------------------------------------------------

    def get_value(self, game: str, position: str, deadline: float | None = None) -> Value:
        kind = self.game(game)
        return kind.value(kind.parse(position), self._context(deadline))

    def is_p_position(self, game: str, position: str, deadline: float | None = None) -> Value:
        kind = self.game(game)
        return kind.p_position(kind.parse(position), self._context(deadline))

    def batch_get_values(
        self, game: str, positions: Sequence[str], deadline: float | None = None
    ) -> list[Value | NimbaseError]:
        if len(positions) > self._limits.batch_positions:
            raise InvalidArgument(
                f"{len(positions)} positions in one batch; at most {self._limits.batch_positions} are allowed"
            )
        return self.game(game).values(positions, self._context(deadline))

    def best_move(
        self, game: str, position: str, limit: int | None = None, deadline: float | None = None
    ) -> BestMoveResult:
        check_limit(limit, self._limits)
        kind = self.game(game)
        return kind.best_moves(kind.parse(position), limit, self._context(deadline))

    # -- sequences and stats --------------------------------------------------------------------

    def get_sequence(
        self, game: str, family: str | None, start: int, stop: int, deadline: float | None = None
    ) -> SequenceResult:
        kind = self.game(game)
        self._check_range(start, stop)
        return kind.sequence(family, start, stop, self._context(deadline))

    def _check_range(self, start: int, stop: int) -> None:
        if start < 0:
            raise InvalidArgument(f"start {start} is negative")
        if start > stop:
            raise InvalidArgument(f"start {start} is greater than stop {stop}")
        if stop - start > self._limits.sequence_values:
            raise InvalidArgument(
                f"range {start}..{stop} holds {stop - start} values; at most "
                f"{self._limits.sequence_values} are allowed in one call"
            )

    def get_stats(self, game: str) -> dict[str, object]:
        return self.game(game).stats(self._context(None))

    # -- jobs -----------------------------------------------------------------------------------

    def _authorize(self, token: str | None) -> None:
        expected = self._settings.admin_token
        if expected is None:
            raise PermissionDenied("job submission is disabled: the server has no NIMBASE_ADMIN_TOKEN")
        if not token:
            raise Unauthenticated("an admin token is required: send 'authorization: Bearer <token>'")
        if not hmac.compare_digest(token.encode(), expected.encode()):
            raise PermissionDenied("the admin token is wrong")

    def _queue(self) -> JobQueue:
        if self._jobs is None:
            raise Unavailable("this server runs without a database; jobs are unavailable")
        return self._jobs

    def submit_job(self, token: str | None, game: str, upto: int, fill: bool = False) -> JobView:
        self._authorize(token)
        plan = self.game(game).plan_job(upto, fill)
        queue = self._queue()
        job = self._gate.call(lambda: queue.submit(plan.game_id, plan.family, plan.values, fill=plan.fill))
        return _job_view(job)

    def get_job(self, job_id: int) -> JobView:
        queue = self._queue()
        job = self._gate.call(lambda: queue.get(job_id))
        if job is None:
            raise NotFound(f"no job {job_id}")
        return _job_view(job)

    def list_jobs(self, limit: int = 100) -> list[JobView]:
        if limit < 1:
            raise InvalidArgument(f"limit {limit} is below 1")
        queue = self._queue()
        return [_job_view(job) for job in self._gate.call(lambda: queue.list(limit=min(limit, 1000)))]

    def cancel_job(self, token: str | None, job_id: int) -> JobView:
        self._authorize(token)
        queue = self._queue()
        job = self._gate.call(lambda: queue.cancel(job_id))
        if job is None:
            raise NotFound(f"no job {job_id}")
        return _job_view(job)

    def health(self) -> Health:
        engine = self._engine
        if engine is None:
            return Health(database=False, details={"database": "not configured"})

        def ping() -> bool:
            try:
                with engine.connect() as connection:
                    connection.execute(text("select 1"))
            except OperationalError as error:
                raise StorageUnavailable(str(error)) from error
            return True

        try:
            return Health(database=self._gate.call(ping))
        except StorageUnavailable:
            return Health(database=False, details={"database": "unreachable"})
