"""Queueing a job together with the jobs of what it needs stored first.

A job's plan names the stored objects its kernel reads (`JobPlan.needs`). Submitting it walks those
needs: one already stored is read by the worker as it is; one an open job is making is waited for; any
other is planned by its own game (`Planner`) and queued first, recursively. The job then waits for those
jobs (`jobs.waits_for`): no worker claims it before each is done, and it fails, naming the one, if one
fails or is cancelled (storage.jobs). Everything is decided and inserted in one transaction, serialised
with every other submission by an advisory lock, and the unique index on open jobs' objects
(`ux_jobs_open_extend`) holds even for a submitter that does not take it: one object, at most one open
job. What is stored is not queued again, and what an open job computes is that job (`decide`); but an
object made whole that an older version stored in the packed form (storage.packing.encode, read by whole
chunks) is queued again for a job that stores its chunks as plain words (`plain_job`), with no solve.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from engine.errors import InvalidArgument, NotApplicable
from engine.precompute import PROCESS_BYTES, JobPlan, StoredName
from storage.packing import CHUNK_VALUES, PLAIN_WIDTH, RAW
from storage.schema import jobs, sequence_chunks, sequences

#: Plans the job storing a needed object (its own game's `plan_job`).
Planner = Callable[[StoredName], JobPlan]
#: Most jobs one submission may queue with its needs (every chess material to five men is a few hundred).
MAX_NEW_JOBS = 5000
#: Advisory lock key serialising submissions of jobs with needs ("nimneed" in ASCII).
NEEDS_LOCK_KEY = 0x6E696D6E656564
_OPEN = ("queued", "running")
#: Bytes a job storing an object's chunks again as plain words holds besides its process: one chunk at a
#: time, as read (at most plain words), inflated, decoded and encoded again.
PLAIN_STEP_BYTES = 16 * CHUNK_VALUES


class CircularNeeds(InvalidArgument):
    """Objects whose jobs need each other (a kind's plans are wrong): nothing is queued."""


@dataclass
class NewJob:
    """A job to insert: its plan, the open jobs it waits for, and the new jobs it waits for (their
    positions in the list `closure` gives, always earlier than its own)."""

    plan: JobPlan
    waits_for_open: list[int] = field(default_factory=list)
    waits_for_new: list[int] = field(default_factory=list)


def open_job_of(conn: sa.Connection, name: StoredName) -> int | None:
    """The queued or running job storing `name`, if any (at most one: `ux_jobs_open_extend`)."""
    found = conn.execute(
        sa.select(jobs.c.id)
        .where(
            jobs.c.game_id == name.game_id,
            jobs.c.family == name.family,
            jobs.c.kind == "extend",
            jobs.c.status.in_(_OPEN),
        )
        .order_by(jobs.c.id)
        .limit(1)
    ).scalar()
    return None if found is None else int(found)


def stored_size(conn: sa.Connection, plan: JobPlan) -> int | None:
    """How many values of `plan`'s object are stored, where that is what the plan asks for (None
    otherwise): an object made whole once some of it is stored and no job is writing it or stopped
    part way (the last job that wrote to it, or that ended on it, was done: an open or stopped job queued
    after its last write wrote none of it, as one storing its chunks again as plain words); a sequence once
    it reaches `plan.values`, or once its period is certified and the plan does not fill; and, where its
    kernel stores statistics (`plan.stats`), once they cover every value stored."""
    row = conn.execute(
        sa.select(
            sequences.c.computed_upto, sequences.c.certified, sequences.c.stats_upto, sequences.c.updated_at
        ).where(sequences.c.game_id == plan.game_id, sequences.c.family == plan.family)
    ).first()
    if row is None or row.computed_upto <= 0:
        return None
    if plan.stats and row.stats_upto != row.computed_upto:
        return None  # stored before its statistics were: a job adds them
    upto = int(row.computed_upto)
    if not plan.whole:
        return upto if upto >= plan.values or (bool(row.certified) and not plan.fill) else None
    last = conn.execute(
        sa.select(jobs.c.status)
        .where(
            jobs.c.game_id == plan.game_id,
            jobs.c.family == plan.family,
            jobs.c.kind == "extend",
            sa.or_(jobs.c.status == "done", jobs.c.created_at <= row.updated_at),
        )
        .order_by(jobs.c.id.desc())
        .limit(1)
    ).scalar()
    return upto if last in (None, "done") else None


def packed_chunk_count(conn: sa.Connection, name: StoredName) -> int:
    """How many stored chunks of `name` are not plain words (storage.packing.is_plain): one aggregate over
    its chunk rows, read by submissions, never by the hot path."""
    c = sequence_chunks.c
    return int(
        conn.execute(
            sa.select(sa.func.count()).where(
                c.game_id == name.game_id,
                c.family == name.family,
                sa.or_(c.width != PLAIN_WIDTH, c.codec != RAW),
            )
        ).scalar_one()
    )


def plain_job(conn: sa.Connection, plan: JobPlan) -> JobPlan | None:
    """The job storing `plan`'s object again as plain words, where it is made whole (`plan.whole`), stored
    whole (`stored_size`) and has chunks stored otherwise (an older version's packed form); None where
    there is nothing to do. It reads nothing else and holds one chunk at a time (its memory), and its
    progress counts the chunks to store again; the worker finds the object whole and solves nothing."""
    if not plan.whole:
        return None
    stored = stored_size(conn, plan)
    if stored is None:
        return None
    packed = packed_chunk_count(conn, plan.name)
    if not packed:
        return None
    return dataclasses.replace(
        plan,
        values=stored,
        needs=(),
        memory_bytes=PROCESS_BYTES + PLAIN_STEP_BYTES,
        work=packed,
        positions=None,
        max_positions=None,
    )


def is_stored(conn: sa.Connection, name: StoredName) -> bool:
    """Whether storage holds the object `name` whole (what a needing job reads)."""
    return stored_size(conn, JobPlan(name.game_id, name.family, 0, False, whole=True)) is not None


class Running(NotApplicable):
    """A sequence asked further than its running job goes: that job's upto cannot change under its
    worker, so more is queued once it is done (FAILED_PRECONDITION)."""


#: What a submission asks before queueing anything: every plan it would queue, in order; raises to
#: refuse them all (engine.precompute.check_fits: what one worker can do).
Admit = Callable[[Sequence[JobPlan]], None]


@dataclass(frozen=True, slots=True)
class Decided:
    """What a submission found or queued for its plan: the job computing it (`job_id`, open already
    when `queued` does not hold it), or the values stored (`stored`: nothing queued); `queued` holds
    the ids this submission inserted, in the order they run."""

    job_id: int | None
    stored: int | None
    queued: tuple[int, ...]


def decide(
    conn: sa.Connection,
    plan: JobPlan,
    planner: Planner,
    values: Callable[[JobPlan], dict[str, object]],
    admit: Admit | None = None,
) -> Decided:
    """Queue `plan` unless it is stored or an open job computes it, after the jobs of its needs
    (`closure`), every plan checked by `admit` first; in the caller's transaction, under
    `lock_submissions`. A queued job of a sequence asked further has its upto raised; a running one is
    `Running`. An object stored whole in an older form is queued for its `plain_job`."""
    stored = stored_size(conn, plan)
    if stored is not None:
        plain = plain_job(conn, plan)
        if plain is None:
            return Decided(None, stored, ())
        plan = plain
    existing = conn.execute(
        sa.select(jobs.c.id, jobs.c.upto, jobs.c.status)
        .where(
            jobs.c.game_id == plan.game_id,
            jobs.c.family == plan.family,
            jobs.c.kind == "extend",
            jobs.c.status.in_(_OPEN),
        )
        .with_for_update()
    ).first()
    if existing is not None:
        covered = plan.whole or existing.upto >= plan.values
        if existing.status == "running":
            if covered:
                return Decided(int(existing.id), None, ())
            raise Running(
                f"job {existing.id} is computing {plan.game_id} ({plan.family}) to {existing.upto} values; "
                f"queue {plan.values} once it is done"
            )
        raised: dict[str, object] = {"fill": jobs.c.fill | plan.fill}
        if not covered:
            if admit is not None:
                admit([plan])
            raised.update(upto=plan.values, total=plan.total)
        if values(plan).get("origin", "admin") == "admin":  # an admin's job: no time bound, nobody's share
            raised.update(origin="admin", max_seconds=None, client=None)
        conn.execute(jobs.update().where(jobs.c.id == existing.id).values(**raised))
        return Decided(int(existing.id), None, ())
    new = closure(conn, plan, planner)
    if admit is not None:
        admit([job.plan for job in new])
    ids, inserted = insert_closure(conn, new, values)
    return Decided(ids[-1], None, tuple(inserted))


def closure(conn: sa.Connection, plan: JobPlan, planner: Planner) -> list[NewJob]:
    """The jobs to queue for `plan`, every job after those it waits for, `plan`'s own last.

    CircularNeeds when plans need each other; InvalidArgument past MAX_NEW_JOBS.
    """
    new: list[NewJob] = []
    placed: dict[StoredName, int] = {}  # a need queued by this submission: its position in `new`
    visiting: list[StoredName] = []

    def place(plan: JobPlan) -> int:
        if plan.name in visiting:
            cycle = " -> ".join(f"{n.game_id}/{n.family}" for n in [*visiting, plan.name])
            raise CircularNeeds(f"the jobs of these stored objects need each other: {cycle}")
        visiting.append(plan.name)
        job = NewJob(plan)
        for need in dict.fromkeys(plan.needs):  # each once, in order
            if need in placed:
                job.waits_for_new.append(placed[need])
                continue
            if is_stored(conn, need):  # readable whole, even while a job stores it again as plain words
                continue
            existing = open_job_of(conn, need)
            if existing is not None:
                job.waits_for_open.append(existing)
                continue
            job.waits_for_new.append(place(planner(need)))
        visiting.pop()
        if len(new) >= MAX_NEW_JOBS:
            raise InvalidArgument(
                f"{plan.game_id}/{plan.family} needs more than {MAX_NEW_JOBS} jobs queued first; "
                "queue it in parts"
            )
        new.append(job)
        placed[plan.name] = len(new) - 1
        return len(new) - 1

    place(plan)
    return new


def insert_closure(
    conn: sa.Connection, new: list[NewJob], values: Callable[[JobPlan], dict[str, object]]
) -> tuple[list[int], list[int]]:
    """Insert the jobs of `closure` in order (each row's own columns from `values(plan)`), each waiting
    for its dependencies' ids: the ids of every job, in the same order, and of those inserted. A job
    whose object another submitter's open job took meanwhile (`ux_jobs_open_extend`) is that job."""
    ids: list[int] = []
    inserted: list[int] = []
    for job in new:
        waits = sorted({*job.waits_for_open, *(ids[i] for i in job.waits_for_new)})
        row = {**values(job.plan), "memory_bytes": job.plan.memory_bytes, "waits_for": waits}
        stmt = (
            postgresql.insert(jobs)
            .values(**row)
            .on_conflict_do_nothing(
                index_elements=[jobs.c.game_id, jobs.c.family],
                index_where=sa.text("kind = 'extend' AND status IN ('queued', 'running')"),
            )
            .returning(jobs.c.id)
        )
        found = conn.execute(stmt).scalar()
        if found is None:
            found = open_job_of(conn, job.plan.name)
            assert found is not None, "a conflicting open job is visible once the insert has waited for it"
        else:
            inserted.append(int(found))
        ids.append(int(found))
    return ids, inserted


def lock_submissions(conn: sa.Connection) -> None:
    """Take the transaction lock under which submissions with needs decide what to queue."""
    conn.execute(sa.select(sa.func.pg_advisory_xact_lock(NEEDS_LOCK_KEY)))
