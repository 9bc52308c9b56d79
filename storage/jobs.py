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

from engine.errors import InvalidArgument
from engine.precompute import JobPlan, StoredName
from storage.database import unavailable_on_disconnect
from storage.errors import LeaseLost
from storage.job_needs import Planner, closure, insert_closure, lock_submissions
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
        """Queue a job; `upto` is the number of values wanted (heaps 0..upto-1)."""
        if upto < 0:
            raise InvalidArgument(f"upto must be >= 0, got {upto}")
        if kind not in ("extend", "repair"):
            raise InvalidArgument(f"job kind must be 'extend' or 'repair', got {kind!r}")
        if (kind == "repair") != (chunk_index is not None):
            raise InvalidArgument(f"a chunk index is required exactly for repair jobs, got {chunk_index!r}")
        total = 1 if kind == "repair" else upto
        stmt = (
            jobs.insert()
            .values(
                game_id=game_id,
                family=family,
                upto=upto,
                fill=fill,
                kind=kind,
                chunk_index=chunk_index,
                total=total,
            )
            .returning(*jobs.c)
        )
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            return Job.from_row(conn.execute(stmt).one())

    def submit_plan(self, plan: JobPlan, planner: Planner) -> Job:
        """Queue `plan`'s job (origin 'admin') after the jobs of what it needs that is neither stored nor
        queued (storage.job_needs), all in one transaction; the job of `plan` itself."""
        if plan.values < 0:
            raise InvalidArgument(f"upto must be >= 0, got {plan.values}")

        def admin_row(p: JobPlan) -> dict[str, object]:
            return {
                "game_id": p.game_id,
                "family": p.family,
                "upto": p.values,
                "fill": p.fill,
                "total": p.values,
            }

        with unavailable_on_disconnect(), self._engine.begin() as conn:
            lock_submissions(conn)
            ids = insert_closure(conn, closure(conn, plan, planner), admin_row)
            return Job.from_row(conn.execute(sa.select(jobs).where(jobs.c.id == ids[-1])).one())

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
        the jobs requests asked for, not those queued for them to wait for.
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
                "total": p.values,
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
            plan = JobPlan(game_id, family, upto, False, needs)
            if needs:
                lock_submissions(conn)
            ids = insert_closure(conn, closure(conn, plan, planner or _no_planner), auto_row)
            job = Job.from_row(conn.execute(sa.select(jobs).where(jobs.c.id == ids[-1])).one())
            return AutoSubmission(job=job, created=True, reason=None)

    def open_jobs(self, game_id: str) -> builtins.list[Job]:
        """The queued and running jobs of `game_id` (every family and kind), oldest first."""
        stmt = (
            sa.select(jobs)
            .where(jobs.c.game_id == game_id, jobs.c.status.in_(OPEN_STATUSES))
            .order_by(jobs.c.id)
        )
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            return [Job.from_row(row) for row in conn.execute(stmt)]

    def get(self, job_id: int) -> Job | None:
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            row = conn.execute(sa.select(jobs).where(jobs.c.id == job_id)).first()
        return None if row is None else Job.from_row(row)

    def list(self, limit: int = 100) -> builtins.list[Job]:
        """The most recent jobs, newest first."""
        if limit < 1:
            raise InvalidArgument(f"limit must be >= 1, got {limit}")
        stmt = sa.select(jobs).order_by(jobs.c.id.desc()).limit(limit)
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            return [Job.from_row(row) for row in conn.execute(stmt)]

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

    def claim(self, worker_id: str, lease_seconds: float) -> Job | None:
        """Take the oldest claimable job: queued, or running under an expired lease.

        A job is skipped while another job of the same sequence runs under a live lease, so two
        workers do not compute the same values side by side, and while a job it waits for is not done.
        Queued jobs waiting for a job that failed or was cancelled fail first, naming it.
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
