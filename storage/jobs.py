"""The job queue: precompute jobs claimed by workers under a lease.

A worker claims with `FOR UPDATE SKIP LOCKED`, so concurrent claimers never wait for or take the same
job; the lease (renewed by heartbeats) lets another worker take over a job whose worker died. Every
write a worker makes is fenced by `lease_owner = me AND status = 'running'`, so a worker that lost
its lease (or whose job was cancelled) cannot write any more.

Jobs come from an administrator (origin 'admin', `submit`) or from the service itself (origin 'auto',
`submit_automatic`) when a request's live computation runs out of its deadline. Automatic jobs are
capped in number (NIMBASE_AUTO_JOBS open at once, and NIMBASE_AUTO_CLIENT_JOBS of them per client, the
client stored with each job so the share holds across server processes) and each carries `max_seconds`,
the worker time it may run before it stops with what it computed.

A job may wait for others (`waits_for`, storage.job_needs queues them with it): it is claimed only once
each is done, and fails, naming it, when one fails or is cancelled. The automatic caps count the jobs
requests asked for, not those queued for them to wait for.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from engine.errors import InvalidArgument, NotApplicable
from engine.precompute import JobPlan, StoredName
from storage.database import unavailable_on_disconnect
from storage.errors import LeaseLost
from storage.job_needs import (
    Admit,
    Decided,
    Planner,
    Running,
    decide,
    lock_submissions,
    open_job_of,
    plain_job,
    stored_size,
)
from storage.schema import jobs

JobStatus = Literal["queued", "running", "done", "failed", "cancelled"]
JobKind = Literal["extend", "repair"]
JobOrigin = Literal["admin", "auto"]
#: Statuses in which a job still has work to do.
OPEN_STATUSES: tuple[str, ...] = ("queued", "running")
#: Longest error text stored with a failed job.
MAX_ERROR_CHARS = 4000
#: Key of the transaction advisory lock serialising automatic submissions ("nimauto" in ASCII), so
#: concurrent requests cannot together queue more than the cap.
AUTO_JOBS_LOCK_KEY = 0x6E696D6175746F
#: Advisory lock key serialising claims (see `JobQueue.claim`).
CLAIM_LOCK_KEY = 0x6E696D636C61696D


class NotFailed(NotApplicable):
    """A retry of a job that did not fail (FAILED_PRECONDITION, naming its status)."""


@dataclass(frozen=True, slots=True)
class Job:
    """One row of the jobs table.

    An 'extend' job computes values 0..upto-1 (stopping early once the period is certified, unless
    `fill`); a 'repair' job recomputes chunk `chunk_index`. Progress is done/total. `origin` is 'admin'
    (submitted through the API) or 'auto' (queued by the service itself); `max_seconds` bounds the
    worker time of each attempt (None: no bound); `client` is the address of the client whose request
    queued an automatic job (None: an admin job, or no client known); `waits_for` holds the jobs that
    must be done before this one runs.
    """

    id: int
    game_id: str
    family: str
    upto: int
    fill: bool
    kind: str
    chunk_index: int | None
    status: str
    done: int
    total: int
    lease_owner: str | None
    lease_expires_at: datetime | None
    heartbeat_at: datetime | None
    attempts: int
    error: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    origin: str
    max_seconds: float | None
    client: str | None
    waits_for: tuple[int, ...] = ()

    @classmethod
    def from_row(cls, row: sa.Row[Any]) -> Job:
        m = row._mapping
        fields = {name: m[name] for name in cls.__dataclass_fields__}
        fields["waits_for"] = tuple(int(i) for i in fields["waits_for"] or ())
        return cls(**fields)


@dataclass(frozen=True, slots=True)
class AutoSubmission:
    """What `JobQueue.submit_automatic` did.

    `created` with the new job; or not created, with the open job that already covers the request, or
    with no job and the `reason` none was queued (automatic jobs off, the cap reached, or the client's
    share of it).
    """

    job: Job | None
    created: bool
    reason: str | None


@dataclass(frozen=True, slots=True)
class Submission:
    """What `JobQueue.queue` did: the job computing what was asked (queued now, or open already), or,
    when it is stored, how many values are (`stored`: nothing queued); `queued` holds the jobs this
    call queued, in the order they run (what was asked last)."""

    job: Job | None
    stored: int | None
    queued: tuple[Job, ...]


def _no_planner(name: StoredName) -> JobPlan:
    raise InvalidArgument(f"no planner for the job storing {name.game_id}/{name.family}")


def _lease_until(lease_seconds: float) -> sa.ColumnElement[Any]:
    return sa.func.now() + sa.func.make_interval(0, 0, 0, 0, 0, 0, sa.literal(float(lease_seconds)))


#: A job whose lease ran out this many times (its workers died or hung) fails instead of being retried.
MAX_ATTEMPTS = 5


class JobQueue:
    """Submitting, claiming, heartbeating and finishing jobs."""

    def __init__(self, engine: sa.Engine) -> None:
        self._engine = engine

    def submit(
        self,
        game_id: str,
        family: str,
        upto: int,
        fill: bool = False,
        kind: JobKind = "extend",
        chunk_index: int | None = None,
    ) -> Job:
        """Queue a job; `upto` is the number of values wanted (heaps 0..upto-1). An extend job of what is
        stored is the done job that stored it (InvalidArgument where none did), of what an open job
        computes that job (`job_needs.decide`)."""
        if upto < 0:
            raise InvalidArgument(f"upto must be >= 0, got {upto}")
        if kind not in ("extend", "repair"):
            raise InvalidArgument(f"job kind must be 'extend' or 'repair', got {kind!r}")
        if (kind == "repair") != (chunk_index is not None):
            raise InvalidArgument(f"a chunk index is required exactly for repair jobs, got {chunk_index!r}")
        if kind == "extend":  # one open job per object, as for every submission
            plan = JobPlan(game_id, family, upto, fill)
            with unavailable_on_disconnect(), self._engine.begin() as conn:
                lock_submissions(conn)
                got = decide(conn, plan, _no_planner, _admin_row)
                found = got.job_id
                if found is None:  # stored: the job that stored it, where there is one
                    found = conn.execute(
                        sa.select(sa.func.max(jobs.c.id)).where(
                            jobs.c.game_id == game_id, jobs.c.family == family, jobs.c.status == "done"
                        )
                    ).scalar()
                if found is None:
                    raise InvalidArgument(f"{game_id} ({family}) holds {got.stored} values already")
                return Job.from_row(conn.execute(sa.select(jobs).where(jobs.c.id == found)).one())
        stmt = (
            jobs.insert()
            .values(
                game_id=game_id,
                family=family,
                upto=upto,
                fill=fill,
                kind=kind,
                chunk_index=chunk_index,
                total=1,
            )
            .returning(*jobs.c)
        )
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            return Job.from_row(conn.execute(stmt).one())

    def submit_plan(self, plan: JobPlan, planner: Planner) -> Job:
        """`queue(plan, planner)`'s job (InvalidArgument when the object is stored already)."""
        done = self.queue(plan, planner)
        if done.job is None:
            raise InvalidArgument(f"{plan.game_id} ({plan.family}) is stored already ({done.stored} values)")
        return done.job

    def queue(self, plan: JobPlan, planner: Planner, admit: Admit | None = None) -> Submission:
        """Queue `plan`'s job (origin 'admin') after the jobs of what it needs that is neither stored nor
        queued (storage.job_needs), all in one transaction, unless it is stored (nothing queued) or an
        open job computes it (that job, nothing queued). `admit` sees every plan to queue first and
        refuses them all by raising."""
        if plan.values < 0:
            raise InvalidArgument(f"upto must be >= 0, got {plan.values}")
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            lock_submissions(conn)
            return _submission(conn, decide(conn, plan, planner, _admin_row, admit))

    def queue_plain(self, plan: JobPlan, admit: Admit | None = None) -> Submission:
        """Queue the job storing `plan`'s object again as plain words (`job_needs.plain_job`: made whole,
        stored whole by an older version in the packed form), or give the open job of the object; nothing
        (no job, nothing stored given) where the object is not stored whole, or stored plain already. What
        is not stored is not queued here: a bulk submission queues it as what another member reads."""
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            lock_submissions(conn)
            if plain_job(conn, plan) is None:
                return Submission(job=None, stored=None, queued=())
            return _submission(conn, decide(conn, plan, _no_planner, _admin_row, admit))

    def stored_whole(self, name: StoredName) -> int | None:
        """How many values of the object `name` are stored, where it is stored whole (`job_needs
        .stored_size`: a running job queued after its last write, that wrote none of it, finds it whole);
        None otherwise."""
        plan = JobPlan(name.game_id, name.family, 0, False, whole=True)
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            return stored_size(conn, plan)

    def submit_automatic(
        self,
        game_id: str,
        family: str,
        upto: int,
        *,
        cap: int,
        max_seconds: float,
        client: str | None = None,
        client_cap: int | None = None,
        needs: tuple[StoredName, ...] = (),
        planner: Planner | None = None,
        plan: JobPlan | None = None,
        admit: Admit | None = None,
    ) -> AutoSubmission:
        """Queue an automatic extend job (origin 'auto', no fill, bounded by `max_seconds` of worker time)
        on behalf of `client` unless one is needed no more or allowed no more.

        In one transaction, serialised with every other automatic submission by an advisory lock:
        an open (queued or running) extend job of the sequence reaching `upto` or beyond, whatever
        its origin, is returned as it is; otherwise nothing is queued when `cap` is 0 (automatic jobs
        off), when `client` already has `client_cap` automatic jobs open (its share: one client cannot
        take every slot), or when `cap` automatic jobs are open already; otherwise the job is queued,
        `client` stored with it. Without a client (or a `client_cap`) only `cap` applies. The caller
        bounds `upto` (NIMBASE_AUTO_VALUES). A job with `needs` is queued after the jobs of those not yet
        stored nor queued, planned by `planner` (storage.job_needs), on the same terms; the caps count
        the jobs requests asked for, not those queued for them to wait for. `plan` (its kind's, when the
        caller has it) says what the job costs; `admit` refuses the plans to queue by raising.
        """
        if upto < 0:
            raise InvalidArgument(f"upto must be >= 0, got {upto}")
        if cap < 0:
            raise InvalidArgument(f"cap must be >= 0, got {cap}")
        if client_cap is not None and client_cap < 1:
            raise InvalidArgument(f"client_cap must be >= 1, got {client_cap}")
        if not max_seconds > 0 or max_seconds == float("inf"):
            raise InvalidArgument(f"max_seconds must be a positive number of seconds, got {max_seconds!r}")
        covering = (
            sa.select(jobs)
            .where(
                jobs.c.game_id == game_id,
                jobs.c.family == family,
                jobs.c.kind == "extend",
                jobs.c.status.in_(OPEN_STATUSES),
                jobs.c.upto >= upto,
            )
            .order_by(jobs.c.id)
            .limit(1)
        )
        sequence_open = sa.select(jobs).where(
            jobs.c.game_id == game_id,
            jobs.c.family == family,
            jobs.c.kind == "extend",
            jobs.c.status.in_(OPEN_STATUSES),
        )
        waiter = jobs.alias("waiter")
        waited_for = (
            sa.select(waiter.c.id)
            .where(
                waiter.c.status.in_(OPEN_STATUSES), waiter.c.waits_for.contains(postgresql.array([jobs.c.id]))
            )
            .exists()
        )
        open_auto = (
            sa.select(sa.func.count())
            .select_from(jobs)
            .where(jobs.c.origin == "auto", jobs.c.status.in_(OPEN_STATUSES), ~waited_for)
        )
        own = open_auto.where(jobs.c.client == client)
        if needs and planner is None:
            raise InvalidArgument(f"{game_id}/{family} needs stored objects, and no planner was given")

        def auto_row(p: JobPlan) -> dict[str, object]:
            return {
                "game_id": p.game_id,
                "family": p.family,
                "upto": p.values,
                "fill": False,
                "kind": "extend",
                "total": p.total,
                "origin": "auto",
                "max_seconds": float(max_seconds),
                "client": client,
            }

        with unavailable_on_disconnect(), self._engine.begin() as conn:
            # Held to the end of the transaction; under READ COMMITTED every statement after it sees
            # the jobs the previous holder committed.
            conn.execute(sa.select(sa.func.pg_advisory_xact_lock(AUTO_JOBS_LOCK_KEY)))
            row = conn.execute(covering).first()
            if row is not None:
                return AutoSubmission(job=Job.from_row(row), created=False, reason=None)
            if cap == 0:
                return AutoSubmission(
                    job=None, created=False, reason="automatic jobs are turned off (NIMBASE_AUTO_JOBS=0)"
                )
            if client is not None and client_cap is not None:
                held = conn.execute(own).scalar_one()
                if held >= client_cap:
                    return AutoSubmission(
                        job=None,
                        created=False,
                        reason=f"client {client} already has {held} automatic jobs queued or running, its "
                        f"share of them (NIMBASE_AUTO_CLIENT_JOBS={client_cap})",
                    )
            if conn.execute(open_auto).scalar_one() >= cap:
                return AutoSubmission(
                    job=None,
                    created=False,
                    reason=f"{cap} automatic jobs are already queued or running (NIMBASE_AUTO_JOBS)",
                )
            asked = JobPlan(game_id, family, upto, False, needs) if plan is None else plan
            lock_submissions(conn)
            try:
                got = decide(conn, asked, planner or _no_planner, auto_row, admit)
            except Running as running:  # an open job of the sequence, short of what was asked
                row = conn.execute(sequence_open).first()
                if row is None:
                    raise
                return AutoSubmission(job=Job.from_row(row), created=False, reason=str(running))
            if got.job_id is None:
                return AutoSubmission(
                    job=None, created=False, reason=f"{game_id} ({family}) is stored ({got.stored} values)"
                )
            job = Job.from_row(conn.execute(sa.select(jobs).where(jobs.c.id == got.job_id)).one())
            return AutoSubmission(job=job, created=bool(got.queued), reason=None)

    def open_jobs(self, game_id: str) -> builtins.list[Job]:
        """The queued and running jobs of `game_id` (every family and kind), oldest first."""
        stmt = (
            sa.select(jobs)
            .where(jobs.c.game_id == game_id, jobs.c.status.in_(OPEN_STATUSES))
            .order_by(jobs.c.id)
        )
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            return [Job.from_row(row) for row in conn.execute(stmt)]

    def last_done(self, game_id: str, family: str) -> Job | None:
        """The last done job that stored (game_id, family), if any."""
        stmt = (
            sa.select(jobs)
            .where(jobs.c.game_id == game_id, jobs.c.family == family, jobs.c.status == "done")
            .order_by(jobs.c.id.desc())
            .limit(1)
        )
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            row = conn.execute(stmt).first()
        return None if row is None else Job.from_row(row)

    def get(self, job_id: int) -> Job | None:
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            row = conn.execute(sa.select(jobs).where(jobs.c.id == job_id)).first()
        return None if row is None else Job.from_row(row)

    def list(self, limit: int = 100, before: int | None = None) -> builtins.list[Job]:
        """The most recent jobs, newest first: at most `limit`, of ids below `before` when given (the
        last id of the page before: a page's cursor)."""
        if limit < 1:
            raise InvalidArgument(f"limit must be >= 1, got {limit}")
        stmt = sa.select(jobs).order_by(jobs.c.id.desc()).limit(limit)
        if before is not None:
            stmt = stmt.where(jobs.c.id < before)
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            return [Job.from_row(row) for row in conn.execute(stmt)]

    def retry(self, job_id: int) -> builtins.list[Job] | None:
        """Queue a failed job again, its checkpoints and progress kept, with the failed jobs it waits for
        (what it failed for) and those that failed only because they waited for one of them: the jobs
        queued again, the one asked first; None when there is no such job. NotFailed (naming its status)
        for a job that did not fail. A job whose object an open job computes meanwhile is not queued
        again: the jobs waiting for it wait for that one instead."""
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            lock_submissions(conn)
            row = conn.execute(sa.select(jobs).where(jobs.c.id == job_id).with_for_update()).first()
            if row is None:
                return None
            if row.status != "failed":
                raise NotFailed(f"job {job_id} is {row.status}, not failed: only a failed job can be retried")
            ids = _retried(conn, job_id)
            for retried in ids:
                target = conn.execute(sa.select(jobs).where(jobs.c.id == retried)).one()
                other = open_job_of(conn, StoredName(target.game_id, target.family))
                if target.kind == "extend" and other is not None:
                    conn.execute(
                        jobs.update()
                        .where(jobs.c.waits_for.contains(postgresql.array([_bigint(retried)])))
                        .values(
                            waits_for=sa.func.array_replace(
                                jobs.c.waits_for, _bigint(retried), _bigint(other)
                            )
                        )
                    )
                    continue
                conn.execute(
                    jobs.update()
                    .where(jobs.c.id == retried)
                    .values(
                        status="queued",
                        error=None,
                        finished_at=None,
                        lease_owner=None,
                        lease_expires_at=None,
                        attempts=0,
                    )
                )
            rows = conn.execute(sa.select(jobs).where(jobs.c.id.in_(ids)))
            found = {int(r.id): Job.from_row(r) for r in rows}
            return [found[i] for i in ids if found[i].status == "queued"]

    def cancel(self, job_id: int) -> Job | None:
        """Cancel a queued or running job (its worker stops at its next heartbeat or write).

        A job already finished is returned unchanged; None when there is no such job.
        """
        stmt = (
            jobs.update()
            .where(jobs.c.id == job_id, jobs.c.status.in_(OPEN_STATUSES))
            .values(status="cancelled", finished_at=sa.func.now(), lease_expires_at=None)
            .returning(*jobs.c)
        )
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            row = conn.execute(stmt).first()
            if row is None:
                row = conn.execute(sa.select(jobs).where(jobs.c.id == job_id)).first()
        return None if row is None else Job.from_row(row)

    def claim(self, worker_id: str, lease_seconds: float, memory_cap: int = 0) -> Job | None:
        """Take the oldest claimable job: queued, or running under an expired lease.

        A job is skipped while another job of the same sequence runs under a live lease, so two
        workers do not compute the same values side by side, and while a job it waits for is not done.
        With `memory_cap` (bytes; 0: none), a job whose estimate (`memory_bytes`, kept as it was queued)
        is beyond it is left to a worker with a larger cap. Queued jobs waiting for a job that failed or
        was cancelled fail first, naming it.
        """
        cand = jobs.alias("cand")
        other = jobs.alias("other")
        busy = (
            sa.select(other.c.id)
            .where(
                other.c.game_id == cand.c.game_id,
                other.c.family == cand.c.family,
                other.c.id != cand.c.id,
                other.c.status == "running",
                other.c.lease_expires_at >= sa.func.now(),
            )
            .exists()
        )
        dependency = jobs.alias("dependency")
        waiting = (
            sa.select(dependency.c.id)
            .where(dependency.c.id == sa.any_(cand.c.waits_for), dependency.c.status != "done")
            .exists()
        )
        candidate = (
            sa.select(cand.c.id)
            .where(
                sa.or_(
                    cand.c.status == "queued",
                    sa.and_(cand.c.status == "running", cand.c.lease_expires_at < sa.func.now()),
                ),
                ~busy,
                ~waiting,
                sa.true() if memory_cap <= 0 else sa.func.coalesce(cand.c.memory_bytes, 0) <= memory_cap,
            )
            .order_by(cand.c.id)
            .limit(1)
            .with_for_update(skip_locked=True, of=cand)
            .scalar_subquery()
        )
        stmt = (
            jobs.update()
            .where(jobs.c.id == candidate)
            .values(
                status="running",
                lease_owner=worker_id,
                lease_expires_at=_lease_until(lease_seconds),
                heartbeat_at=sa.func.now(),
                attempts=jobs.c.attempts + 1,
                started_at=sa.func.coalesce(jobs.c.started_at, sa.func.now()),
            )
            .returning(*jobs.c)
        )
        give_up = (
            jobs.update()
            .where(
                jobs.c.status == "running",
                jobs.c.lease_expires_at < sa.func.now(),
                jobs.c.attempts >= MAX_ATTEMPTS,
            )
            .values(
                status="failed",
                error=f"gave up after {MAX_ATTEMPTS} attempts: every worker that ran it stopped without "
                "finishing (killed, or out of its lease)",
                lease_owner=None,
                finished_at=sa.func.now(),
            )
        )
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            # Claims take turns: under READ COMMITTED a claim cannot see another's uncommitted claim of
            # a job of the same sequence, and would take a second one to run side by side with it.
            conn.execute(sa.select(sa.func.pg_advisory_xact_lock(CLAIM_LOCK_KEY)))
            conn.execute(give_up)
            _fail_orphans(conn)
            row = conn.execute(stmt).first()
        return None if row is None else Job.from_row(row)

    def heartbeat(self, job_id: int, worker_id: str, lease_seconds: float) -> bool:
        """Renew the lease; False when it was lost (taken over) or the job was cancelled."""
        return self._update_owned(
            job_id, worker_id, lease_expires_at=_lease_until(lease_seconds), heartbeat_at=sa.func.now()
        )

    def progress(self, job_id: int, worker_id: str, done: int, total: int) -> bool:
        """Record how far a running job's work has come between its checkpoints (a solve made whole before
        its first write); False when the lease was lost or the job cancelled."""
        return self._update_owned(job_id, worker_id, done=done, total=total)

    def finish(self, job_id: int, worker_id: str) -> bool:
        """Mark the job done (progress complete); False when the lease was lost."""
        return self._update_owned(
            job_id,
            worker_id,
            status="done",
            done=jobs.c.total,
            finished_at=sa.func.now(),
            lease_expires_at=None,
        )

    def finish_at_bound(self, job_id: int, worker_id: str, note: str) -> bool:
        """Mark the job done short of its total, keeping its progress (how far it got) and recording
        `note` (why it stopped) in its error; False when the lease was lost."""
        return self._update_owned(
            job_id,
            worker_id,
            status="done",
            error=note[:MAX_ERROR_CHARS],
            finished_at=sa.func.now(),
            lease_expires_at=None,
        )

    def fail(self, job_id: int, worker_id: str, error: str) -> bool:
        """Mark the job failed with `error`; False when the lease was lost."""
        return self._update_owned(
            job_id,
            worker_id,
            status="failed",
            error=error[:MAX_ERROR_CHARS],
            finished_at=sa.func.now(),
            lease_expires_at=None,
        )

    def release(self, job_id: int, worker_id: str) -> bool:
        """Put a running job back in the queue (a worker shutting down); False when the lease was lost."""
        return self._update_owned(job_id, worker_id, status="queued", lease_owner=None, lease_expires_at=None)

    def leave_for_larger(self, job_id: int, worker_id: str, memory_bytes: int) -> bool:
        """Put a running job back in the queue with its memory estimate kept (`memory_bytes`), for a worker
        whose cap holds it (`claim`): a worker found it beyond its own. Its attempt does not count. False
        when the lease was lost."""
        return self._update_owned(
            job_id,
            worker_id,
            status="queued",
            lease_owner=None,
            lease_expires_at=None,
            memory_bytes=memory_bytes,
            attempts=sa.func.greatest(jobs.c.attempts - 1, 0),
            started_at=sa.case((jobs.c.attempts <= 1, sa.null()), else_=jobs.c.started_at),
        )

    def release_dead(self, worker_id: str) -> builtins.list[int]:
        """Put back in the queue at once, not at their lease's expiry, the running jobs of a worker known
        to be dead (its supervisor saw it exit); their ids. An attempt counts as one whose lease ran out:
        a job past MAX_ATTEMPTS fails as it would then."""
        owned = sa.and_(jobs.c.lease_owner == worker_id, jobs.c.status == "running")
        queued = (
            jobs.update()
            .where(owned, jobs.c.attempts < MAX_ATTEMPTS)
            .values(status="queued", lease_owner=None, lease_expires_at=None)
            .returning(jobs.c.id)
        )
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            ids = [int(i) for i in conn.execute(queued).scalars()]
            conn.execute(
                jobs.update()
                .where(owned)
                .values(
                    status="failed",
                    error=f"gave up after {MAX_ATTEMPTS} attempts: every worker that ran it stopped without "
                    "finishing (killed, or out of its lease)",
                    lease_owner=None,
                    lease_expires_at=None,
                    finished_at=sa.func.now(),
                )
            )
        return ids

    def _update_owned(self, job_id: int, worker_id: str, **values: Any) -> bool:
        stmt = (
            jobs.update()
            .where(jobs.c.id == job_id, jobs.c.lease_owner == worker_id, jobs.c.status == "running")
            .values(**values)
        )
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            return conn.execute(stmt).rowcount == 1


def fence(conn: sa.Connection, job_id: int, worker_id: str, values: dict[str, Any]) -> None:
    """Within a write's transaction: set `values` on the job, which `worker_id` must still hold running
    (LeaseLost otherwise, and the transaction writes nothing); the row stays locked until it ends."""
    stmt = (
        jobs.update()
        .where(jobs.c.id == job_id, jobs.c.lease_owner == worker_id, jobs.c.status == "running")
        .values(**values)
    )
    if conn.execute(stmt).rowcount != 1:
        raise LeaseLost(job_id, worker_id)


#: Most rounds of failing the jobs waiting for a failed job per claim (each round reaches one job further
#: along a chain of waits; the rest follow at the next claims).
ORPHAN_ROUNDS = 64


def _fail_orphans(conn: sa.Connection) -> None:
    """Fail the queued jobs that wait for a failed or cancelled job (they can never run), naming it."""
    dependency = jobs.alias("dependency")
    orphans = (
        jobs.update()
        .where(
            jobs.c.status == "queued",
            dependency.c.id == sa.any_(jobs.c.waits_for),
            dependency.c.status.in_(("failed", "cancelled")),
        )
        .values(
            status="failed",
            error=sa.func.concat(
                "job ",
                dependency.c.id,
                " it waits for (",
                dependency.c.game_id,
                "/",
                dependency.c.family,
                ") ",
                dependency.c.status,
            ),
            finished_at=sa.func.now(),
        )
    )
    for _ in range(ORPHAN_ROUNDS):
        if conn.execute(orphans).rowcount == 0:
            return


def open_repair_insert(game_id: str, family: str, chunk_index: int, upto: int) -> sa.Insert:
    """INSERT of a repair job that does nothing when one is already open for the chunk."""
    return (
        postgresql.insert(jobs)
        .values(
            game_id=game_id,
            family=family,
            upto=upto,
            fill=False,
            kind="repair",
            chunk_index=chunk_index,
            total=1,
        )
        .on_conflict_do_nothing(
            index_elements=[jobs.c.game_id, jobs.c.family, jobs.c.chunk_index],
            index_where=sa.text("kind = 'repair' AND status IN ('queued', 'running')"),
        )
    )


def _admin_row(plan: JobPlan) -> dict[str, object]:
    """An admin job's own columns (its progress total the plan's own work)."""
    return {
        "game_id": plan.game_id,
        "family": plan.family,
        "upto": plan.values,
        "fill": plan.fill,
        "total": plan.total,
    }


def _submission(conn: sa.Connection, got: Decided) -> Submission:
    ids = [*got.queued, *([] if got.job_id is None else [got.job_id])]
    rows = {int(row.id): Job.from_row(row) for row in conn.execute(sa.select(jobs).where(jobs.c.id.in_(ids)))}
    job = None if got.job_id is None else rows[got.job_id]
    return Submission(job=job, stored=got.stored, queued=tuple(rows[i] for i in got.queued))


#: The start of the error of a job failed because a job it waits for failed (`_fail_orphans`).
_ORPHAN_ERROR = "job {id} it waits for ("


def _retried(conn: sa.Connection, job_id: int) -> builtins.list[int]:
    """The failed jobs a retry of `job_id` queues again: itself, the failed jobs it waits for (and
    theirs), and every job that failed only because it waited for one of them; `job_id` first."""
    order = [job_id]
    seen = {job_id}
    at = 0
    while at < len(order):
        current = order[at]
        at += 1
        row = conn.execute(sa.select(jobs.c.waits_for).where(jobs.c.id == current)).one()
        above = conn.execute(
            sa.select(jobs.c.id).where(jobs.c.id.in_(list(row.waits_for or ())), jobs.c.status == "failed")
        ).scalars()
        below = conn.execute(
            sa.select(jobs.c.id).where(
                jobs.c.waits_for.contains(postgresql.array([_bigint(current)])),
                jobs.c.status == "failed",
                jobs.c.error.startswith(_ORPHAN_ERROR.format(id=current), autoescape=True),
            )
        ).scalars()
        for found in [*above, *below]:
            if int(found) not in seen:
                seen.add(int(found))
                order.append(int(found))
    return order


def _bigint(value: int) -> sa.ColumnElement[int]:
    return sa.literal(value, sa.BigInteger())
