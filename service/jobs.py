"""Jobs as the service shows them, and the precompute work it queues by itself.

When a request needs values that neither the tables nor live computation within its deadline can give,
the service does not just refuse: it queues a precompute job for that game (bounded in values and in
worker time) unless one is open already, and its refusal names that job, so the caller knows what to
wait for (like chessdb queueing unknown positions for its workers). Anonymous requests may keep at most
NIMBASE_AUTO_JOBS such jobs open at once, and one client (service.clients) at most its share of them
(NIMBASE_AUTO_CLIENT_JOBS), so nobody can fill the database or occupy the workers through queries. A job
is queued only where it can answer the request: its values (NIMBASE_AUTO_VALUES) reach the heap asked,
or the game's period, once certified, answers every heap.

Every submission, automatic or an admin's (`worker_admission`), is checked before anything is queued
against what one worker can do (NIMBASE_WORKER_MEMORY_BYTES, as each job's kind estimates it: a refusal
names the job, the figure and the cap), and queues nothing for what is stored or an open job computes
(storage.job_needs). `SubmissionView` is what a submission did, as both transports answer it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from cachetools import TTLCache

from engine.errors import LimitExceeded, NimbaseError, NotApplicable
from engine.precompute import BeyondWorker, JobPlan, StoredName, check_fits, plan_job
from engine.registry import bulk_ids, parse_game_id, plan_stored
from nimbase import schema
from nimbase.settings import AutoJobSettings, variable_name
from service.clients import current_client
from service.gate import DatabaseGate
from storage.errors import StorageUnavailable
from storage.job_needs import Admit
from storage.jobs import Job, JobQueue, Submission

#: Most jobs one page of ListJobs holds (a larger `limit` is INVALID_ARGUMENT).
MAX_LIST_JOBS = 1000
#: A page's cursor: the id of the last job it listed (the next page lists those below it).
CURSOR_PATTERN = r"[1-9][0-9]{0,18}"
#: Seconds a decision about one game's automatic job is reused (a flood of requests for one game
#: costs one database transaction, not one each).
DECISION_SECONDS = 2.0


@dataclass(frozen=True, slots=True)
class JobView:
    """A job as both transports show it."""

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
    waits_for: tuple[int, ...] = ()

    def as_dict(self) -> schema.Job:
        """The wire shape (REST JSON, client dicts, the `job` of a refusal, GetStats' `pending`)."""
        return {
            "id": self.id,
            "game": self.game,
            "family": self.family,
            "upto": self.upto,
            "fill": self.fill,
            "status": cast(schema.JobStatus, self.status),
            "progress": {"done": self.done, "total": self.total},
            "error": self.error,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "waits_for": list(self.waits_for),
        }


@dataclass(frozen=True, slots=True)
class SubmissionView:
    """What a submission (SubmitJob, or a retry) did, as both transports show it: the job answering it
    (queued now, open already, or, when what was asked is stored, the last job that stored it: id 0
    where none did), the jobs it queued in the order they run, what was stored already (game, family and
    values), and the members of a family's set refused as no worker could finish them."""

    job: JobView
    queued: tuple[JobView, ...] = ()
    stored: tuple[str, str, int] | None = None
    refused: tuple[str, ...] = ()

    def as_dict(self) -> schema.Job:
        out = self.job.as_dict()
        out["queued"] = [job.as_dict() for job in self.queued]
        if self.stored is not None:
            game, family, upto = self.stored
            out["stored"] = {"game": game, "family": family, "computed_upto": upto}
        if self.refused:
            out["refused"] = list(self.refused)
        return out


def stored_view(game: str, family: str, upto: int, last: Job | None) -> JobView:
    """The job answering a submission of what is stored: the last one that stored it, else a record of
    the stored object (id 0, done, its values as its progress)."""
    if last is not None:
        return job_view(last)
    return JobView(0, game, family, upto, False, "done", upto, upto, None, "", None, None)


def worker_admission(memory_cap: int) -> Admit:
    """What a submission checks before queueing: every job within one worker's memory cap
    (NIMBASE_WORKER_MEMORY_BYTES), as each job's kind estimates it (BeyondWorker otherwise)."""
    name = variable_name(("worker", "memory_bytes"))

    def admit(plans: Sequence[JobPlan]) -> None:
        check_fits(plans, memory_cap, name)

    return admit


@dataclass(frozen=True, slots=True)
class SetQueued:
    """What queueing a family's whole set did: each member asked for (its plan, and what its submission
    did), in order, and why those refused were not queued."""

    asked: tuple[tuple[JobPlan, Submission], ...]
    refused: tuple[str, ...]


def queue_set(
    queue: JobQueue,
    game: str,
    men: int,
    fill: bool,
    admit: Admit,
    call: Callable[[Callable[[], Submission]], Submission] = lambda submit: submit(),
) -> SetQueued:
    """Every member of the family `game` up to `men` (its bulk set, `registry.bulk_ids`), each after
    what it reads: only the members no other reads are asked for, the rest come as their needs, so
    each is queued once (stored or open ones are not queued again). A member stored whole by an older
    version in the packed form is queued to be stored again as plain words (`JobQueue.queue_plain`,
    which the members read as stored meanwhile), in the set's order. A member no worker could finish is
    refused alone, naming why; `call` runs each submission (the service's database gate)."""
    plans = [plan_job(parse_game_id(game_id), 0, fill, None) for game_id in bulk_ids(game, men)]
    needed = {need for plan in plans for need in plan.needs}
    asked: list[tuple[JobPlan, Submission]] = []
    refused: list[str] = []
    for plan in plans:
        if plan.name in needed:
            if plan.whole:
                plain = call(lambda p=plan: queue.queue_plain(p, admit))  # type: ignore[misc]
                if plain.queued:
                    asked.append((plan, plain))
            continue
        try:
            asked.append((plan, call(lambda p=plan: queue.queue(p, plan_stored, admit))))  # type: ignore[misc]
        except BeyondWorker as error:
            refused.append(str(error))
    return SetQueued(tuple(asked), tuple(refused))


def _as_iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def job_view(job: Job) -> JobView:
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
        waits_for=job.waits_for,
    )


class Pending(LimitExceeded):
    """RESOURCE_EXHAUSTED for now, with the job that will make the answer possible (`job`)."""

    def __init__(self, message: str, job: JobView) -> None:
        super().__init__(message)
        self.job = job


class PendingSolve(NotApplicable):
    """FAILED_PRECONDITION until a worker's solve is stored (a game graph too large to solve live), with
    the job that solves it (`job`)."""

    def __init__(self, message: str, job: JobView) -> None:
        super().__init__(message)
        self.job = job


def job_of(error: BaseException) -> JobView | None:
    """The job a refusal names (`Pending`, `PendingSolve`), else None."""
    return error.job if isinstance(error, Pending | PendingSolve) else None


@dataclass(frozen=True, slots=True)
class Wanted:
    """What a refused request needed of a sequence: whether a job could give it."""

    #: The index asked (a heap, or the last of a range).
    index: int
    #: What messages call one index: "heap", or "value" for other families.
    item: str
    #: Whether the game's kernel can certify a period (which answers every index, however far).
    certifies: bool


@dataclass(frozen=True, slots=True)
class QueuedWork:
    """What was done about values that could not be had: the job extending them, or why there is none."""

    job: JobView | None
    note: str

    def error(self, message: str, *, precondition: bool = False) -> NimbaseError:
        """The refusal of a request, naming the work (Pending when there is a job to wait for);
        FAILED_PRECONDITION instead of RESOURCE_EXHAUSTED with `precondition` (PendingSolve)."""
        text = f"{message}; {self.note}"
        if precondition:
            return NotApplicable(text) if self.job is None else PendingSolve(text, self.job)
        return LimitExceeded(text) if self.job is None else Pending(text, self.job)


class AutomaticJobs:
    """Queues bounded precompute jobs on behalf of requests, at most `settings.jobs` open at once."""

    def __init__(
        self, queue: JobQueue | None, gate: DatabaseGate, settings: AutoJobSettings, memory_cap: int = 0
    ) -> None:
        self._queue = queue
        self._gate = gate
        self._settings = settings
        self._admit = worker_admission(memory_cap)
        self._decisions: TTLCache[tuple[str, str, str | None], QueuedWork] = TTLCache(
            maxsize=4096, ttl=DECISION_SECONDS, timer=time.monotonic
        )
        self._lock = threading.Lock()
        self._held = threading.local()

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Queue nothing for the calls this thread makes inside the block (as without a database): the
        warm-up's reads before ready (service.warm_up) ask questions no client asked."""
        self._held.on = True
        try:
            yield
        finally:
            self._held.on = False

    def _holding(self) -> bool:
        return self._queue is None or getattr(self._held, "on", False)

    def request(
        self, game_id: str, family: str, stored: int, wanted: Wanted | None = None
    ) -> QueuedWork | None:
        """The job extending (game_id, family), queued now or already open; None without a database.

        `stored` is how many values are stored already: past the automatic bound only an admin's job
        can extend the table. `wanted` is what the request needed: a job that could not reach it (its
        index past the automatic bound, and no period to certify) is not queued.
        """
        if self._holding():
            return None
        bound = self._settings.values
        if wanted is not None and wanted.index >= bound and not wanted.certifies:
            item, n = wanted.item, wanted.index
            off = "" if self._settings.jobs else "automatic jobs are turned off (NIMBASE_AUTO_JOBS=0), and "
            return QueuedWork(
                None,
                f"no job is queued: {off}automatic jobs compute {item}s below {bound} "
                f"({variable_name(('auto', 'values'))}) and no period of {game_id!r} can be certified to "
                f"answer beyond them, so none would reach {item} {n}; an admin job (POST /v1/jobs) "
                f"computing {n + 1} values would be needed",
            )
        if stored >= bound:
            return QueuedWork(
                None,
                f"the table holds {stored} values, as many as automatic jobs compute (NIMBASE_AUTO_VALUES); "
                "an admin job (POST /v1/jobs) can extend it",
            )
        return self._submit(
            game_id, family, bound, f"extending the table of {game_id!r} to {{upto}} values", " values"
        )

    def request_solve(self, plan: JobPlan) -> QueuedWork | None:
        """The job storing `plan`'s object whole (a solved graph or endgame table: the job stores the
        whole object whatever `plan.values` says), queued now (after the jobs of what it needs) or already
        open; None without a database."""
        if self._holding():
            return None
        doing = f"solving {plan.game_id!r} (its stored {plan.family!r})"
        return self._submit(plan.game_id, plan.family, plan.values, doing, "", plan.needs, plan)

    def _submit(
        self,
        game_id: str,
        family: str,
        upto: int,
        doing: str,
        unit: str,
        needs: tuple[StoredName, ...] = (),
        plan: JobPlan | None = None,
    ) -> QueuedWork | None:
        client = current_client()
        key = (game_id, family, client)  # a client's share refuses that client only
        with self._lock:
            known = self._decisions.get(key)
        if known is not None:
            return known
        queue, settings = self._queue, self._settings
        assert queue is not None
        try:
            outcome = self._gate.call(
                lambda: queue.submit_automatic(
                    game_id,
                    family,
                    upto,
                    cap=settings.jobs,
                    max_seconds=settings.seconds,
                    client=client,
                    client_cap=settings.client_share,
                    needs=needs,
                    planner=plan_stored,
                    plan=plan,
                    admit=self._admit,
                )
            )
        except StorageUnavailable:
            return None
        except BeyondWorker as refused:  # nothing queued: the refusal says why, naming the cap
            work = QueuedWork(None, f"no job is queued: {refused}")
            with self._lock:
                self._decisions[key] = work
            return work
        if outcome.job is None:
            work = QueuedWork(None, f"{outcome.reason}; ask again later")
        else:
            job = job_view(outcome.job)
            state = (
                "is queued" if outcome.created else f"({job.status}, {job.done} of {job.total}{unit} done) is"
            )
            work = QueuedWork(
                job,
                f"job {job.id} {state} {doing.format(upto=job.upto)}; "
                f"ask again when it is done (GET /v1/jobs/{job.id})",
            )
        with self._lock:
            self._decisions[key] = work
        return work
