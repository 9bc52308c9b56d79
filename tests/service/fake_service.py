"""A fake service with fixed answers, for testing the real gRPC and REST servers (and the client over them).

The fake decides its answers from the position text, so every test can provoke any result:
`"3 5"` is a heap position (Grundy value = nim-sum), `"err:CODE"` raises the error class of that
public code, and `"boom"` raises an unexpected exception whose text must never reach a caller.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from functools import reduce
from itertools import pairwise
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from engine.deadline import Deadline
from engine.errors import (
    DeadlineExceeded,
    InvalidArgument,
    InvalidPosition,
    LimitExceeded,
    NimbaseError,
    NotApplicable,
    UnknownGame,
)
from engine.graphs import GraphBuilder, UploadedGraph
from engine.mainline import Mainline
from engine.periods import Period
from engine.values import Value
from kinds.heaps.base import GameInfo, HeapMove
from service import calls
from service.answers import AnswerCache
from service.calls import (
    LIST_GAMES,
    BatchGetValues,
    BeginGraphUpload,
    BestMove,
    Calls,
    CancelJob,
    ColumnarValues,
    FinishGraphUpload,
    GetGraph,
    GetJob,
    GetSequence,
    GetStats,
    GetValue,
    IsPPosition,
    JobList,
    JobPage,
    ListGames,
    RetryJob,
    SubmitJob,
    UploadGraph,
)
from service.core import BestMoveResult, GraphSummary, Health, JobView, MoveValue, SequenceResult
from service.errors import NotFound, PermissionDenied, Unauthenticated, Unavailable
from service.jobs import SubmissionView

ADMIN_TOKEN = "s3cret-token"
CREATED = "2024-01-01T00:00:00+00:00"
#: Text of the unexpected exception; a test fails if it ever shows up in an answer.
SECRET = "internal detail 7f3a"


class NameTaken(NimbaseError):
    """Stands in for the graph-upload error of a later issue."""

    code = "ALREADY_EXISTS"


#: One error class per public code, and the HTTP status API.md gives it.
ERRORS: dict[str, tuple[type[NimbaseError], int]] = {
    "INVALID_ARGUMENT": (InvalidPosition, 400),
    "NOT_FOUND": (UnknownGame, 404),
    "ALREADY_EXISTS": (NameTaken, 409),
    "FAILED_PRECONDITION": (NotApplicable, 409),
    "RESOURCE_EXHAUSTED": (LimitExceeded, 422),
    "DEADLINE_EXCEEDED": (DeadlineExceeded, 504),
    "UNAUTHENTICATED": (Unauthenticated, 401),
    "PERMISSION_DENIED": (PermissionDenied, 403),
    "UNAVAILABLE": (Unavailable, 503),
}

GAMES = [
    GameInfo("nim", "Nim", "Take any number from one heap.", "heap sizes: 3 5 7", ("3 5 7", "1 2 3")),
    GameInfo("nim:misere", "Misère Nim", "Nim; taking the last loses.", "heap sizes", ("1 1",)),
]


T = TypeVar("T")


class FakeService(Calls):
    """Fixed answers chosen by the position text; records the deadlines and tokens it was given."""

    def __init__(self) -> None:
        self.deadlines: list[float | None] = []
        self.database = True
        self.ready = True
        self.from_memory = False
        self.memory_answers = 0
        self.jobs: dict[int, JobView] = {}
        self.graphs: dict[str, UploadedGraph] = {}
        self.answers = AnswerCache(1 << 20)
        self._lock = threading.Lock()

    def list_games(self, asked: ListGames = LIST_GAMES) -> list[GameInfo]:
        return list(GAMES)

    def _check_game(self, game: str) -> None:
        if game not in ("nim", "nim:misere"):
            raise UnknownGame(f"unknown game {game!r}")

    def in_memory(self, call: Callable[[], T]) -> T | None:
        """Answered from memory only while `from_memory` is set; otherwise the call needs a thread."""
        if not self.from_memory:
            return None
        self.memory_answers += 1
        return call()

    def get_value(self, asked: GetValue) -> Value:
        game, position, deadline = asked.game, asked.position, asked.deadline
        with self._lock:
            self.deadlines.append(deadline.at if isinstance(deadline, Deadline) else deadline)
        self._check_game(game)
        if position.startswith("err:"):
            code = position[4:]
            raise ERRORS[code][0](f"fake {code} for position {position!r}")
        if position == "boom":
            raise RuntimeError(SECRET)
        try:
            heaps = sorted(int(h) for h in position.split() if int(h) != 0)
        except ValueError:
            raise InvalidPosition(f"position {position!r} is not heap sizes") from None
        grundy = reduce(lambda a, b: a ^ b, heaps, 0)
        misere = game.endswith(":misere")
        return Value(
            game=game,
            position=" ".join(map(str, heaps)),
            outcome="P" if grundy == 0 else "N",
            grundy=None if misere else grundy,
            remoteness=None if misere else sum(heaps),
            source="formula",
        )

    def best_move(self, asked: BestMove) -> BestMoveResult:
        game, limit = asked.game, asked.limit
        if limit is not None and limit < 1:
            raise InvalidArgument(f"limit must be at least 1; got {limit}")
        value = self.get_value(GetValue(game, asked.position, deadline=asked.deadline))
        heaps = [int(h) for h in value.position.split()]
        moves = [
            MoveValue(
                f"{h} -> {a}",
                self.get_value(GetValue(game, " ".join(map(str, [*heaps[:i], a, *heaps[i + 1 :]])))),
                HeapMove(h, (a,) if a else ()),
            )
            for i, h in enumerate(heaps)
            for a in range(h)
        ]
        moves.sort(key=lambda m: (m.value.outcome != "P", m.move))
        return BestMoveResult(value, moves if limit is None else moves[:limit])

    def mainline(self, asked: calls.Mainline) -> Mainline:
        """The first listed move each time (a winning one where there is one), until no heap is left."""
        game, deadline = asked.game, asked.deadline
        if asked.metric is not None:
            raise InvalidArgument(f"fake: no metric {asked.metric!r}")
        ranked = self.best_move(BestMove(game, asked.position, deadline=deadline))
        moves: list[MoveValue] = []
        while ranked.moves and len(moves) < (asked.max_plies or 100):
            moves.append(replace(ranked.moves[0], best=True))
            ranked = self.best_move(BestMove(game, moves[-1].value.position, deadline=deadline))
        value = self.get_value(GetValue(game, asked.position))
        return Mainline(value, moves, "max_plies" if ranked.moves else "terminal")

    def is_p_position(self, asked: IsPPosition) -> Value:
        if asked.game == "nim:misere" and asked.position == "1":
            raise NotApplicable("fake: not applicable")
        return self.get_value(GetValue(asked.game, asked.position, deadline=asked.deadline))

    def batch_get_values(self, asked: BatchGetValues) -> list[Value | NimbaseError]:
        self._check_game(asked.game)
        out: list[Value | NimbaseError] = []
        for position in asked.positions:
            try:
                out.append(self.get_value(GetValue(asked.game, position, deadline=asked.deadline)))
            except NimbaseError as exc:
                out.append(exc)
        return out

    def columnar_values(self, asked: ColumnarValues) -> NDArray[np.uint32]:
        """Nim's values (a heap's value is its size): single heaps, or nim-sums of the offsets' sums."""
        game, heaps, offsets = asked.game, asked.heaps, asked.offsets
        self._check_game(game)
        if game.endswith(":misere"):
            raise NotApplicable(f"fake: {game!r} is misère")
        values = heaps.astype(np.uint64)
        if offsets is not None:
            bounds = offsets.astype(np.intp).tolist()
            sums = [reduce(lambda a, b: a ^ b, heaps[lo:hi].tolist(), 0) for lo, hi in pairwise(bounds)]
            values = np.array(sums, dtype=np.uint64)
        return (values & 0xFFFFFFFF).astype(np.uint32)

    def get_sequence(self, asked: GetSequence) -> SequenceResult:
        game, family, start, stop = asked.game, asked.family, asked.start, asked.stop
        self._check_game(game)
        if start > stop:
            raise InvalidArgument(f"start {start} > stop {stop}")
        period = None if family == "aperiodic" else Period(preperiod=0, period=3, saltus=0, certified=True)
        values = [n % 3 for n in range(start, stop)]
        return SequenceResult(game, family or "heap", start, stop, values, period, "table")

    def get_stats(self, asked: GetStats) -> dict[str, object]:
        self._check_game(asked.game)
        return {
            "computed_upto": 1000,
            "max_value": 3,
            "max_value_at": 2,
            "rare_mask": None,
            "p_positions": [0, 4, 8],
            "big": 2**40,
            "nested": {"ok": True, "name": "x"},
        }

    def authorize(self, token: str | None, action: str = "job submission") -> None:
        if token is None:
            raise Unauthenticated("an admin token is required")
        if token != ADMIN_TOKEN:
            raise PermissionDenied("wrong admin token")

    def submit_job(self, asked: SubmitJob) -> SubmissionView:
        self.authorize(asked.token)
        game, fill, family = asked.game, asked.fill, asked.family
        self._check_game(game)
        upto = 0 if asked.upto is None else asked.upto
        with self._lock:
            job_id = len(self.jobs) + 1
            job = JobView(
                job_id, game, family or "heap", upto, fill, "queued", 0, upto, None, CREATED, None, None
            )
            self.jobs[job_id] = job
        return SubmissionView(job, (job,))

    def retry_job(self, asked: RetryJob) -> SubmissionView:
        self.authorize(asked.token)
        job = self.get_job(GetJob(asked.job_id))
        if job.status != "failed":
            raise NotApplicable(f"job {job.id} is {job.status}, not failed: only a failed job can be retried")
        return SubmissionView(job, (job,))

    def get_job(self, asked: GetJob) -> JobView:
        if asked.job_id not in self.jobs:
            raise NotFound(f"no job {asked.job_id}")
        return self.jobs[asked.job_id]

    def job_page(self, asked: JobPage) -> JobList:
        limit, cursor = asked.limit, asked.cursor
        listed = sorted(self.jobs.values(), key=lambda j: -j.id)
        if cursor is not None:
            listed = [j for j in listed if j.id < int(cursor)]
        following = str(listed[limit - 1].id) if len(listed) > limit else None
        return listed[:limit], following

    def cancel_job(self, asked: CancelJob) -> JobView:
        self.authorize(asked.token)
        job = self.get_job(GetJob(asked.job_id))
        done = JobView(
            job.id,
            job.game,
            job.family,
            job.upto,
            job.fill,
            "cancelled",
            job.done,
            job.total,
            "cancelled by request",
            job.created_at,
            CREATED,
            CREATED,
        )
        self.jobs[job.id] = done
        return done

    def upload_graph(self, asked: UploadGraph) -> GraphSummary:
        upload = self.begin_graph_upload(BeginGraphUpload(asked.name, token=asked.token))
        if asked.terminals:
            upload.add_terminals(asked.terminals)
        upload.add_vertices(asked.vertices)
        upload.add_edge_pairs(asked.edges)
        return self.finish_graph_upload(FinishGraphUpload(upload))

    def begin_graph_upload(self, asked: BeginGraphUpload) -> GraphBuilder:
        self.authorize(asked.token)
        upload = GraphBuilder(asked.name)
        if upload.name in self.graphs:
            raise NameTaken(f"fake: graph {upload.name!r} exists")
        return upload

    def finish_graph_upload(self, asked: FinishGraphUpload) -> GraphSummary:
        graph = asked.upload.finish()
        with self._lock:
            if graph.name in self.graphs:
                raise NameTaken(f"fake: graph {graph.name!r} exists")
            self.graphs[graph.name] = graph
        return GraphSummary(graph.name, graph.vertex_count, graph.edge_count, graph.terminal_count, CREATED)

    def get_graph(self, asked: GetGraph) -> UploadedGraph:
        name = asked.name
        if name not in self.graphs:
            raise NotFound(f"no graph {name!r}")
        return self.graphs[name]

    def health(self) -> Health:
        return Health(database=self.database, ready=self.ready)
