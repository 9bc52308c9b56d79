"""The transport-free service layer: every RPC and route is one method here.

gRPC and REST only translate requests into these calls and results into messages. A game id resolves
once to its `GameKind` (engine.kind); after that this layer only applies limits and deadlines, lends
the kind narrow views of storage (`SequenceTables`) and a shared memo, and handles jobs and auth.
It never asks which game it is serving.
"""

from __future__ import annotations

import dataclasses
import hmac
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any, TypeVar

import numpy as np
from cachetools import TTLCache
from numpy.typing import NDArray
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError

from engine.deadline import Deadline, within
from engine.errors import InvalidArgument, NimbaseError
from engine.graphs import GraphBuilder, UploadedGraph
from engine.keep import Keepers, keeper_names
from engine.kind import Allowance, Context, GameKind
from engine.lru import LRU, Usage
from engine.mainline import Mainline, mainline
from engine.moves import check_limit, mark_best
from engine.positions import MAX_HEAP, quote_int, quote_token
from engine.precompute import BeyondWorker, JobPlan, plan_job
from engine.registry import declared_settings, kind_settings, list_games, parse_game_id, plan_stored
from engine.values import BestMoveResult, GameInfo, MoveValue, SequenceResult, Value
from service import calls, columnar
from service.answers import AnswerCache
from service.calls import (
    BatchGetValues,
    BeginGraphUpload,
    BestMove,
    Call,
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
    SequenceBlocks,
    SubmitJob,
    UploadGraph,
)
from service.errors import NotFound, PermissionDenied, Unauthenticated, Unavailable
from service.gate import DatabaseGate
from service.graphs import Graphs, GraphSummary
from service.health import DatabaseHealth, Health
from service.jobs import (
    CURSOR_PATTERN,
    MAX_LIST_JOBS,
    AutomaticJobs,
    JobView,
    QueuedWork,
    SubmissionView,
    Wanted,
    job_view,
    queue_set,
    stored_view,
    worker_admission,
)
from service.kind_plugins import open_resources
from service.learned import LIVE, MEMO, Journal, unpack
from service.limits import check_batch_size
from service.mainline import check_plies
from service.memo import Memo
from service.move_choice import parse_choice
from service.readiness import Readiness
from service.sequences.live import Live
from service.sequences.tables import SequenceTables
from service.settings import Settings
from storage.errors import StorageUnavailable
from storage.graphs import GraphStore
from storage.job_needs import Admit
from storage.jobs import JobQueue, Submission
from storage.sequences import SequenceInfo, SequenceStore

__all__ = [
    "BestMoveResult",
    "GraphSummary",
    "Health",
    "JobView",
    "Mainline",
    "MoveValue",
    "Nimbase",
    "NimbaseService",
    "SequenceResult",
]

T = TypeVar("T")


#: What the transports call (service.calls): every implementation derives from it.
NimbaseService = Calls


#: The largest value a download's `.npy` of little-endian uint32 holds.
MAX_DOWNLOAD_VALUE = (1 << 32) - 1
#: Games resolved from ids are kept this many at a time (ids are user text, so the cache is bounded).
GAME_CACHE_SIZE = 1024
#: Stored tables ListGames looks at (most recently updated first), and how long its answer is reused.
LISTED_TABLES = 1000
LISTING_SECONDS = 5.0


def check_range(start: int, stop: int, most: int) -> None:
    """Refuse a range that runs backwards, holds more than `most` values, or leaves what a signed 64-bit
    integer holds: `start` and `stop` are int64 in the gRPC message and REST takes the same bounds, so
    `stop` is at most 2^63-1 and the last index n < stop at most 2^63-2 (GetValue answers every heap up
    to 2^63-1)."""
    for name, bound in (("start", start), ("stop", stop)):
        if bound < 0:
            raise InvalidArgument(f"{name} {quote_int(bound)} is negative")
        if bound > MAX_HEAP:
            raise InvalidArgument(
                f"{name} {quote_int(bound)} is above the limit of {MAX_HEAP} (2^63-1, a signed 64-bit "
                "integer)"
            )
    if start > stop:
        raise InvalidArgument(f"start {start} is greater than stop {stop}")
    if stop - start > most:
        raise InvalidArgument(
            f"range {start}..{stop} holds {stop - start} values; at most {most} are allowed in one call"
        )


class Nimbase(Calls):
    """The service: resolves game ids to kinds and answers through them, within `Limits`."""

    def __init__(self, settings: Settings, engine: Engine | None) -> None:
        self._settings = settings
        self._limits = settings.limits
        self._engine = engine
        self._gate = DatabaseGate()
        self._store = SequenceStore(engine) if engine is not None else None
        self._jobs = JobQueue(engine) if engine is not None else None
        self.automatic = AutomaticJobs(self._jobs, self._gate, settings.auto, settings.worker.memory_bytes)
        cache = settings.cache
        #: What this service's memo and live sequences gain, recorded while a live process answers a call
        #: (service.learned), for the server to keep too.
        self.journal = Journal()
        self.tables = SequenceTables(
            self._store,
            self._gate,
            self._limits,
            live_bytes=cache.live_bytes,
            chunk_bytes=cache.chunk_bytes,
            queue_work=self._queue_work,
            queue_solve=self._queue_solve,
            journal=self.journal,
        )
        self.memo = Memo(cache.memo_bytes, self.tables.may_compute, self.journal)
        self.answers = AnswerCache(cache.answer_bytes)
        #: Each kind's own settings, read from their variables (InvalidSetting naming a bad one), lent to
        #: every request (`Context.settings_for`).
        self.kind_settings = kind_settings(settings.kind_variables)
        #: Objects stored whole that kinds keep (engine.keep), lent to every request as `Context.kept`.
        self.kept = Keepers(self.kind_settings)
        #: The files kinds' settings name, opened now (InvalidSetting naming those that do not open), lent
        #: to every request as `Context.resources` (engine.kind_resources).
        self.resources = open_resources(self.kind_settings)
        self._games: LRU[str, GameKind[Any]] = LRU(maxsize=GAME_CACHE_SIZE)
        # Kinds bound to an uploaded graph may hold arrays as large as their graph: kept by bytes.
        self._graph_games: LRU[str, GameKind[Any]] = LRU(
            maxsize=cache.graph_game_bytes, getsizeof=lambda kind: kind.memory_bytes()
        )
        graph_store = GraphStore(engine) if engine is not None else None
        self.graphs = Graphs(graph_store, self._gate, cache.graph_bytes)
        self._games_lock = threading.Lock()
        self._listed: TTLCache[str, list[GameInfo]] = TTLCache(maxsize=1, ttl=LISTING_SECONDS)
        self._health = DatabaseHealth(self._ping, self._gate) if engine is not None else None
        #: What this process waits for before it is ready (its kernels compiled, `nimbase run`'s worker).
        self.readiness = Readiness()

    # -- games and requests ---------------------------------------------------------------------

    def game(self, game_id: str) -> GameKind[Any]:
        """The kind an id names (resolved once, then cached). A kind that plays on an uploaded graph
        (`graph_name`) is bound to it here, the graph loaded through storage (NOT_FOUND naming it when
        there is none; nothing is cached then, so the graph may still be uploaded)."""
        kind = self._games.read(game_id)  # the hot path: a game asked before, read without the lock
        if kind is not None:
            return kind
        with self._games_lock:
            kind = self._games.get(game_id) or self._graph_games.get(game_id)
        if kind is None:
            kind = parse_game_id(game_id)
            cache = self._games
            if kind.graph_name is not None:
                self.tables.may_block()  # the graph may have to be read from the database
                kind = kind.bind_graph(self.graphs.load(kind.graph_name))
                cache = self._graph_games
            # A bound kind larger than its whole budget serves its request and is not kept.
            with self._games_lock:
                cache.keep(game_id, kind)
        return kind

    def list_games(self, asked: ListGames = calls.LIST_GAMES) -> list[GameInfo]:
        """The families (classics by name), and every game with a stored table, with its certified period."""
        with self._games_lock:
            known = self._listed.get("games")
        if known is not None:
            return known
        games = {info.id: info for info in list_games()}
        for stored in self._stored_sequences():
            try:
                kind = self.game(stored.game_id)
            except NimbaseError:
                continue  # a table of a game id this version no longer accepts
            info = games.get(kind.game_id) or kind.info()
            period = stored.period if stored.period is not None and stored.period.certified else None
            games[kind.game_id] = replace(info, period=period or info.period)
        listed = list(games.values())
        with self._games_lock:
            self._listed["games"] = listed
        return listed

    def _stored_sequences(self) -> list[SequenceInfo]:
        store = self._store
        if store is None:
            return []
        try:
            return self._gate.call(lambda: store.list_sequences_all(limit=LISTED_TABLES))
        except StorageUnavailable:
            return []

    def _context(self, deadline: float | Deadline | None) -> Context:
        """What one request lends its kind: tables, limits, its deadline (capped), the memo, the keepers and
        the kinds' own settings.

        The deadline is a time.monotonic() value, or a transport's `Deadline`, which it cancels when
        the client goes away: the capped copy shares that cancellation, so the work stops then too.
        """
        limits = self._limits
        cap = time.monotonic() + limits.request_seconds
        return Context(
            self.tables,
            limits,
            Deadline(cap) if deadline is None else within(deadline, cap),
            self.memo,
            Allowance(limits.remoteness_steps),
            self.kept,
            self.kind_settings,
            self.resources,
        )

    def answer(self, asked: Call[T]) -> T:
        """Any call, by the method its type names (how a live process answers the requests it is sent)."""
        method: Callable[[Call[T]], T] = getattr(self, asked.method)
        return method(asked)

    def in_memory(self, call: Callable[[], T]) -> T | None:
        """`call()` if memory alone answers it (no database, no computation), else None.

        Errors in the request are raised as usual: they cost nothing to find.
        """
        return self.tables.from_memory(call)

    def without_computing(self, call: Callable[[], T]) -> T | None:
        """`call()` if memory and storage answer it (reads, no computation), else None: what a service
        whose computations run elsewhere (service.pooled) still answers itself."""
        return self.tables.without_computing(call)

    def adopt(self, learned: bytes) -> None:
        """Keep what a live process computed for a call (service.learned): the next request needing it is
        then answered from this process's memory."""
        for cache, key, value in unpack(learned):
            if cache == MEMO:
                self.memo.adopt(key, value)
            elif cache == LIVE and isinstance(value, Live) and isinstance(key, tuple):
                self.tables.adopt_live(key, value)

    def _queue_work(self, game_id: str, family: str, wanted: Wanted) -> QueuedWork | None:
        """Queue (or find) the job that extends a sequence a request could not reach."""
        return self.automatic.request(game_id, family, self.tables.stored_size(game_id, family), wanted)

    def _queue_solve(self, game_id: str, family: str) -> QueuedWork | None:
        """Queue (or find) the job that stores an object a request needs whole (a solved graph, an endgame
        table), as the kind plans it."""
        plan = plan_job(self.game(game_id), 0, False, family)
        return self.automatic.request_solve(plan)

    # -- positions ------------------------------------------------------------------------------

    def get_value(self, asked: GetValue) -> Value:
        kind = self.game(asked.game)
        return kind.value(kind.parse(asked.position), self._context(asked.deadline))

    def value_in_memory(self, game: str, position: str) -> Value | None:
        """GetValue without a deadline from memory alone, else None (`Calls.value_in_memory`)."""
        return self.tables.from_memory(lambda: self._value_now(game, position))

    def _value_now(self, game: str, position: str) -> Value:
        kind = self.game(game)
        return kind.value(kind.parse(position), self._context(None))

    def is_p_position(self, asked: IsPPosition) -> Value:
        kind = self.game(asked.game)
        return kind.p_position(kind.parse(asked.position), self._context(asked.deadline))

    def batch_get_values(self, asked: BatchGetValues) -> list[Value | NimbaseError]:
        check_batch_size(len(asked.positions), self._limits)
        return self.game(asked.game).values(asked.positions, self._context(asked.deadline))

    def columnar_values(self, asked: ColumnarValues) -> NDArray[np.uint32]:
        """Normal-play Grundy values of single heaps (or of the sums `offsets` delimit), in order, all or
        nothing: see service.columnar."""
        heaps, offsets = asked.heaps, asked.offsets
        columnar.check_size(len(heaps), None if offsets is None else len(offsets), self._limits)
        return columnar.grundy_values(self.game(asked.game), heaps, offsets, self._context(asked.deadline))

    def best_move(self, asked: BestMove) -> BestMoveResult:
        """The moves best first, those tying with the first marked best, one of them drawn first with
        `choose=random` (service.move_choice). A draw is among every best move, not only those `limit`
        keeps (`Choice.ranked`)."""
        limit = asked.limit
        check_limit(limit, self._limits)
        choice = parse_choice(asked.choose, asked.seed)
        kind = self.game(asked.game)
        ranked = kind.best_moves(
            kind.parse(asked.position), choice.ranked(limit), self._context(asked.deadline)
        )
        return choice.apply(BestMoveResult(ranked.value, mark_best(ranked.moves)), limit)

    def mainline(self, asked: calls.Mainline) -> Mainline:
        """Best play from the position (engine.mainline), at most `max_plies` moves."""
        plies = check_plies(asked.max_plies, self._limits)
        kind = self.game(asked.game)
        context = self._context(asked.deadline)
        return mainline(kind, kind.parse(asked.position), plies, asked.metric, context, self.game)

    # -- sequences and stats --------------------------------------------------------------------

    def get_sequence(self, asked: GetSequence) -> SequenceResult:
        kind = self.game(asked.game)
        self._check_range(asked.start, asked.stop)
        return kind.sequence(asked.family, asked.start, asked.stop, self._context(asked.deadline))

    def sequence_blocks(self, asked: SequenceBlocks) -> Iterator[NDArray[np.uint32]]:
        """Values start..stop-1 of a family as arrays of at most `Limits.sequence_values`, each read as
        GetSequence reads it (with its own deadline), for downloads of whole ranges.

        The range and the first block are checked before this returns, so a bad request is refused
        with its error, not with a file cut short.
        """
        game, family, start, stop = asked.game, asked.family, asked.start, asked.stop
        self._check_range(start, stop, self._limits.download_values)
        step = self._limits.sequence_values
        first = self._block(game, family, start, min(stop, start + step))
        # The range's end too: a stored table, a certified period and a table grown live each hold every
        # value below one they hold, so a range whose both ends answer is not cut short in the middle.
        last_start = start + (max(0, stop - start - 1) // step) * step
        last = self._block(game, family, last_start, stop) if last_start > start else None

        def blocks() -> Iterator[NDArray[np.uint32]]:
            yield first
            for lo in range(start + step, last_start, step):
                yield self._block(game, family, lo, min(stop, lo + step))
            if last is not None:
                yield last

        return blocks()

    def _block(self, game: str, family: str | None, start: int, stop: int) -> NDArray[np.uint32]:
        values = self.get_sequence(GetSequence(game, family, start, stop)).values
        for n, value in enumerate(values, start):
            if value > MAX_DOWNLOAD_VALUE:
                raise InvalidArgument(
                    f"the value at n = {n} of {game!r} is {value}, beyond the download's uint32 (at most "
                    f"{MAX_DOWNLOAD_VALUE}); ask GET /v1/sequence for it"
                )
        return np.array(values, dtype=np.uint32)

    def _check_range(self, start: int, stop: int, most: int | None = None) -> None:
        check_range(start, stop, self._limits.sequence_values if most is None else most)

    def get_stats(self, asked: GetStats) -> dict[str, object]:
        """What the kind knows of the game, and the precompute jobs still open for it (`pending`). A
        live process is given its caller's deadline: a period still uncertified is sought live until
        then, and must stop by the time the caller answers."""
        kind = self.game(asked.game)
        stats = kind.stats(self._context(asked.deadline))
        queue = self._jobs
        if queue is not None:
            try:
                pending = self._gate.call(lambda: queue.open_jobs(kind.game_id))
            except StorageUnavailable:
                return stats
            stats["pending"] = [job_view(job).as_dict() for job in pending]
        return stats

    # -- jobs -----------------------------------------------------------------------------------

    def authorize(self, token: str | None, action: str = "job submission") -> None:
        """Refuse a call that needs the admin token without it (the transports may ask first, before
        reading a large body that a caller without the token has no right to make the server parse)."""
        expected = self._settings.admin_token
        if expected is None:
            raise PermissionDenied(f"{action} is disabled: the server has no NIMBASE_ADMIN_TOKEN")
        if not token:
            raise Unauthenticated("an admin token is required: send 'authorization: Bearer <token>'")
        if not hmac.compare_digest(token.encode(), expected.encode()):
            raise PermissionDenied("the admin token is wrong")

    def _queue(self) -> JobQueue:
        if self._jobs is None:
            raise Unavailable("this server runs without a database; jobs are unavailable")
        return self._jobs

    def submit_job(self, asked: SubmitJob) -> SubmissionView:
        """SubmitJob: the job computing what was asked, queued after what it reads unless it is stored
        or an open job computes it; `upto` may be left out where the job makes its object whole; with
        `men`, every member of the family `game` up to that size (`bulk_ids`). Nothing is queued that no
        worker could finish (BeyondWorker, naming the cap; a set's members are refused one by one)."""
        self.authorize(asked.token)
        queue = self._queue()
        admit = worker_admission(self._settings.worker.memory_bytes)
        game, upto, fill, family, men = asked.game, asked.upto, asked.fill, asked.family, asked.men
        if men is not None:
            if upto is not None or family is not None:
                raise InvalidArgument("a family's set (men) takes no upto or family")
            return self._submit_set(queue, game, men, fill, admit)
        kind = self.game(game)
        plan = plan_job(kind, 1 if upto is None else upto, fill, family)
        if upto is None and not plan.whole:
            raise InvalidArgument(
                f"{kind.game_id} needs upto: its values go on without end (only a job that makes its "
                "object whole may leave it out)"
            )
        return self._submitted(queue, plan, self._queue_plan(queue, plan, admit))

    def _submit_set(self, queue: JobQueue, game: str, men: int, fill: bool, admit: Admit) -> SubmissionView:
        """A family's whole set (`queue_set`); the answer's job is its last member's, `queued` every job
        the set queued, `refused` the members no worker could finish (BeyondWorker when all were)."""
        done = queue_set(queue, game, men, fill, admit, self._gate.call)
        if not done.asked:
            raise BeyondWorker(f"no member of {game} up to {men} fits a worker: {'; '.join(done.refused)}")
        views = [self._submitted(queue, plan, submitted) for plan, submitted in done.asked]
        queued = tuple(job for view in views for job in view.queued)
        return SubmissionView(views[-1].job, queued, views[-1].stored, done.refused)

    def _queue_plan(self, queue: JobQueue, plan: JobPlan, admit: Admit) -> Submission:
        return self._gate.call(lambda: queue.queue(plan, plan_stored, admit))

    def _submitted(self, queue: JobQueue, plan: JobPlan, done: Submission) -> SubmissionView:
        if done.job is not None:
            return SubmissionView(job_view(done.job), tuple(job_view(j) for j in done.queued))
        assert done.stored is not None
        last = self._gate.call(lambda: queue.last_done(plan.game_id, plan.family))
        job = stored_view(plan.game_id, plan.family, done.stored, last)
        return SubmissionView(job, stored=(plan.game_id, plan.family, done.stored))

    def retry_job(self, asked: RetryJob) -> SubmissionView:
        """Queue a failed job again with what it failed for and the jobs that failed waiting for it
        (FAILED_PRECONDITION, naming its status, for a job that did not fail)."""
        self.authorize(asked.token)
        job_id = asked.job_id
        if not 0 < job_id <= MAX_HEAP:  # as in get_job: no job has it
            raise NotFound(f"no job {quote_int(job_id)}: job ids are 1..{MAX_HEAP}")
        queue = self._queue()
        retried = self._gate.call(lambda: queue.retry(job_id))
        if retried is None:
            raise NotFound(f"no job {job_id}")
        job = (
            retried[0] if retried and retried[0].id == job_id else self._gate.call(lambda: queue.get(job_id))
        )
        assert job is not None
        return SubmissionView(job_view(job), tuple(job_view(j) for j in retried))

    def get_job(self, asked: GetJob) -> JobView:
        """A job by id; an id no job can have (jobs.id is a bigint from 1) is simply not found, before
        the database is asked (it would refuse to compare an id beyond 2^63-1)."""
        job_id = asked.job_id
        if not 0 < job_id <= MAX_HEAP:
            raise NotFound(f"no job {quote_int(job_id)}: job ids are 1..{MAX_HEAP}")
        queue = self._queue()
        job = self._gate.call(lambda: queue.get(job_id))
        if job is None:
            raise NotFound(f"no job {job_id}")
        return job_view(job)

    def job_page(self, asked: JobPage) -> JobList:
        """ListJobs: at most `limit` jobs (1..MAX_LIST_JOBS), newest first, from `cursor` (the last page's
        `next_cursor`) on; with the cursor of the next page (None after the last)."""
        limit, cursor = asked.limit, asked.cursor
        if not 1 <= limit <= MAX_LIST_JOBS:
            raise InvalidArgument(f"limit {limit} is outside 1..{MAX_LIST_JOBS}")
        before = None
        if cursor is not None:
            if re.fullmatch(CURSOR_PATTERN, cursor) is None:
                raise InvalidArgument(f"cursor {quote_token(cursor)} is not one a page of jobs gave")
            before = min(int(cursor), MAX_HEAP)  # no job id is larger
        queue = self._queue()
        jobs = self._gate.call(lambda: queue.list(limit=limit + 1, before=before))
        following = str(jobs[limit - 1].id) if len(jobs) > limit else None
        return [job_view(job) for job in jobs[:limit]], following

    def cancel_job(self, asked: CancelJob) -> JobView:
        self.authorize(asked.token)
        job_id = asked.job_id
        if not 0 < job_id <= MAX_HEAP:  # as in get_job: no job has it
            raise NotFound(f"no job {quote_int(job_id)}: job ids are 1..{MAX_HEAP}")
        queue = self._queue()
        job = self._gate.call(lambda: queue.cancel(job_id))
        if job is None:
            raise NotFound(f"no job {job_id}")
        return job_view(job)

    # -- graphs ---------------------------------------------------------------------------------

    def upload_graph(self, asked: UploadGraph) -> GraphSummary:
        """UploadGraph in one piece (the REST body): needs the admin token; stored all or nothing."""
        self.authorize(asked.token, "graph upload")
        return self.graphs.upload(asked.name, asked.vertices, asked.edges, asked.terminals)

    def begin_graph_upload(self, asked: BeginGraphUpload) -> GraphBuilder:
        """The start of a streamed upload (gRPC): the token and the name are checked before anything else
        is read; the transport adds the parts to the builder (each checked as it comes) and ends with
        `finish_graph_upload`."""
        self.authorize(asked.token, "graph upload")
        return self.graphs.begin(asked.name)

    def finish_graph_upload(self, asked: FinishGraphUpload) -> GraphSummary:
        return self.graphs.store(asked.upload)

    def get_graph(self, asked: GetGraph) -> UploadedGraph:
        """GetGraph: the stored graph (NOT_FOUND naming it when there is none)."""
        return self.graphs.load(asked.name)

    def health(self) -> Health:
        """The database's health as last checked (service.health): answered from memory, so the
        transports call it on their event loop."""
        if self._health is None:
            health = Health(database=False, details={"database": "not configured"})
        else:
            health = self._health.read()
        reasons = self.readiness.reasons()
        return dataclasses.replace(health, ready=not reasons, reasons=reasons) if reasons else health

    def cache_usage(self) -> dict[str, Usage]:
        """What each in-process cache holds now, by name (the gauges of service.metrics): the service's
        own, and every keeper the kinds declare (named `keeper:<its budget's name>`, engine.keep)."""
        with self._games_lock:
            found = {"games": self._games.usage(), "graph_games": self._graph_games.usage()}
        found.update(memo=self.memo.usage(), answers=self.answers.usage(), graphs=self.graphs.usage())
        found.update(self.tables.usage())
        names = keeper_names(declared_settings())
        for spec, usage in self.kept.usage(names).items():
            found[f"keeper:{names.get(spec, spec.budget)}"] = usage
        return found

    def _ping(self) -> bool:
        """One round trip to the database (through the gate, so a failure shuts it for every request)."""
        engine = self._engine
        assert engine is not None

        def ping() -> bool:
            try:
                with engine.connect() as connection:
                    connection.execute(text("select 1"))
            except OperationalError as error:
                raise StorageUnavailable(str(error)) from error
            return True

        try:
            return self._gate.call(ping)
        except StorageUnavailable:
            return False
