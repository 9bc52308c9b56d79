"""Queueing a job together with the jobs of what it needs stored first.

A job's plan names the stored objects its kernel reads (`JobPlan.needs`). Submitting it walks those
needs: one already stored is read by the worker as it is; one an open job is making is waited for; any
other is planned by its own game (`Planner`) and queued first, recursively. The job then waits for those
jobs (`jobs.waits_for`): no worker claims it before each is done, and it fails, naming the one, if one
fails or is cancelled (storage.jobs). Everything is decided and inserted in one transaction, serialised
with every other submission by an advisory lock, so two submitters never queue the same object twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import sqlalchemy as sa

from engine.errors import InvalidArgument
from engine.precompute import JobPlan, StoredName
from storage.schema import jobs, sequences

#: Plans the job storing a needed object (its own game's `plan_job`).
Planner = Callable[[StoredName], JobPlan]
#: Most jobs one submission may queue with its needs (every chess material to five men is a few hundred).
MAX_NEW_JOBS = 5000
#: Advisory lock key serialising submissions of jobs with needs ("nimneed" in ASCII).
NEEDS_LOCK_KEY = 0x6E696D6E656564
_OPEN = ("queued", "running")


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
    """The oldest queued or running job storing `name`, if any."""
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


def is_stored(conn: sa.Connection, name: StoredName) -> bool:
    """Whether storage holds `name` (some of it: a job that stopped short leaves what it made, which the
    needing job's kernel then refuses, naming it)."""
    upto = conn.execute(
        sa.select(sequences.c.computed_upto).where(
            sequences.c.game_id == name.game_id, sequences.c.family == name.family
        )
    ).scalar()
    return upto is not None and upto > 0


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
            if is_stored(conn, need):
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
) -> list[int]:
    """Insert the jobs of `closure` in order (each row's own columns from `values(plan)`), each waiting
    for its dependencies' ids; the new ids, in the same order."""
    ids: list[int] = []
    for job in new:
        waits = sorted({*job.waits_for_open, *(ids[i] for i in job.waits_for_new)})
        row = {**values(job.plan), "waits_for": waits}
        ids.append(int(conn.execute(jobs.insert().values(**row).returning(jobs.c.id)).scalar_one()))
    return ids


def lock_submissions(conn: sa.Connection) -> None:
    """Take the transaction lock under which submissions with needs decide what to queue."""
    conn.execute(sa.select(sa.func.pg_advisory_xact_lock(NEEDS_LOCK_KEY)))
