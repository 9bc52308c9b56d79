"""The precompute job commands: `precompute` (queue one and follow its progress) and `jobs` (list them)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from cli.database import open_engine, ready_database

if TYPE_CHECKING:
    pass


def cmd_precompute(args: argparse.Namespace) -> int:
    if args.men is not None:
        return _bulk_precompute(args)
    from engine.errors import NimbaseError, NotApplicable
    from engine.precompute import plan_job
    from engine.registry import parse_game_id, plan_stored
    from service.jobs import worker_admission
    from storage.graphs import GraphStore
    from storage.jobs import JobQueue

    engine = None
    try:
        kind = parse_game_id(args.game)
        if kind.graph_name is not None:  # plays on an uploaded graph (`graph:NAME`): bound to it first
            engine = open_engine(ready_database(args.settings))
            graph = GraphStore(engine).load(kind.graph_name)
            if graph is None:
                print(f"nimbase: no graph named {kind.graph_name!r}: upload it first", file=sys.stderr)
                return 2
            kind = kind.bind_graph(graph)
        # A kind whose object is made whole ignores `upto`: any size plans its job, and the kernel says
        # whether that is so (`plan.whole`); the open-ended sequences still need one.
        plan = plan_job(kind, 1 if args.upto is None else args.upto, args.fill, args.family)
    except NimbaseError as error:
        if args.upto is None and isinstance(error, NotApplicable):  # nothing to store: ask for the size
            return _needs_upto()
        print(f"nimbase: {error}", file=sys.stderr)
        return 2
    if args.upto is None and not plan.whole:
        return _needs_upto()
    queue = JobQueue(engine or open_engine(ready_database(args.settings)))
    try:
        done = queue.queue(plan, plan_stored, worker_admission(args.settings.worker.memory_bytes))
    except NimbaseError as error:
        print(f"nimbase: {error}", file=sys.stderr)
        return 2
    if done.job is None:
        print(f"{plan.game_id} ({plan.family}) is stored already ({done.stored} values): nothing queued")
        return 0
    job = done.job
    size = f"up to {args.upto}" if args.upto is not None else f"{plan.family}, made whole"
    if not done.queued:
        print(f"job {job.id} already computes {plan.game_id} ({job.status}): nothing queued")
    else:
        print(f"queued job {job.id}: {plan.game_id} {size}" + (" (fill)" if plan.fill else ""))
        first = [j for j in done.queued if j.id != job.id]
        if first:
            print(f"queued first, storing what it reads: {', '.join(str(j.id) for j in first)}")
    if job.waits_for:
        print(f"it waits for job(s) {', '.join(map(str, job.waits_for))}, storing what it reads")
    if args.detach:
        return 0
    try:
        return _follow(queue, job.id)
    except KeyboardInterrupt:
        print(f"\nstopped watching; job {job.id} keeps running (nimbase jobs)")
        return 0


def _needs_upto() -> int:
    print("nimbase: precompute needs --upto (or --men N for a family's whole set)", file=sys.stderr)
    return 2


def _bulk_precompute(args: argparse.Namespace) -> int:
    """`precompute FAMILY --men N` (`service.jobs.queue_set`), in the database the settings name: prints
    each job queued and each member refused; how many were queued."""
    from engine.errors import NimbaseError
    from engine.registry import bulk_ids
    from service.jobs import queue_set, worker_admission
    from storage.jobs import JobQueue

    try:
        bulk_ids(args.game, args.men)  # a bad family or size opens no database
        queue = JobQueue(open_engine(ready_database(args.settings)))
        done = queue_set(
            queue, args.game, args.men, False, worker_admission(args.settings.worker.memory_bytes)
        )
    except NimbaseError as error:
        print(f"nimbase: {error}", file=sys.stderr)
        return 2
    queued = 0
    for plan, submitted in done.asked:
        for job in submitted.queued:
            queued += 1
            waits = f", after job(s) {', '.join(map(str, job.waits_for))}" if job.waits_for else ""
            print(f"queued job {job.id}: {job.game_id}{waits}")
        if submitted.stored is not None:
            print(f"{plan.game_id} is stored already")
    for why in done.refused:
        print(f"not queued: {why}", file=sys.stderr)
    print(f"{args.game} up to {args.men}: {queued} queued with what they read, {len(done.refused)} refused")
    return 0


def _follow(queue: object, job_id: int) -> int:
    """Draws a progress bar until the job ends."""
    from storage.jobs import JobQueue

    assert isinstance(queue, JobQueue)
    width = 40
    while True:
        job = queue.get(job_id)
        if job is None:
            print(f"\njob {job_id} disappeared", file=sys.stderr)
            return 1
        total = max(job.total, 1)
        filled = int(width * min(job.done, total) / total)
        bar = "#" * filled + "-" * (width - filled)
        sys.stderr.write(f"\r[{bar}] {job.done}/{job.total} {job.status:<9}")
        sys.stderr.flush()
        if job.status in ("done", "failed", "cancelled"):
            sys.stderr.write("\n")
            if job.error:
                print(f"job {job_id} {job.status}: {job.error}", file=sys.stderr)
            return 0 if job.status == "done" else 1
        time.sleep(0.5)


def cmd_jobs(args: argparse.Namespace) -> int:
    """`nimbase jobs` (a page of jobs, newest first) and `nimbase jobs retry N`."""
    from engine.errors import NimbaseError
    from engine.positions import MAX_HEAP
    from service.jobs import MAX_LIST_JOBS
    from storage.jobs import JobQueue

    if args.action == "retry":
        return _retry(args)
    if args.action is not None or args.id is not None:
        print("nimbase: jobs takes no argument but `retry N`", file=sys.stderr)
        return 2
    if not 1 <= args.limit <= MAX_LIST_JOBS:
        print(f"nimbase: --limit {args.limit} is outside 1..{MAX_LIST_JOBS}", file=sys.stderr)
        return 2
    if args.cursor is not None and args.cursor < 1:
        print(f"nimbase: --cursor {args.cursor} is not a job id", file=sys.stderr)
        return 2
    queue = JobQueue(open_engine(ready_database(args.settings)))
    before = None if args.cursor is None else min(args.cursor, MAX_HEAP)  # no job id is larger
    try:
        jobs = queue.list(limit=args.limit + 1, before=before)
    except NimbaseError as error:
        print(f"nimbase: {error}", file=sys.stderr)
        return 2
    for job in jobs[: args.limit]:
        print(f"{job.id:>6}  {job.status:<9}  {job.done:>12}/{job.total:<12}  {job.game_id} {job.family}")
    if len(jobs) > args.limit:
        print(f"more: nimbase jobs --cursor {jobs[args.limit - 1].id}")
    return 0


def _retry(args: argparse.Namespace) -> int:
    from engine.errors import NimbaseError
    from engine.positions import MAX_HEAP
    from storage.jobs import JobQueue

    if args.id is None:
        print("nimbase: jobs retry needs the id of a failed job", file=sys.stderr)
        return 2
    if not 0 < args.id <= MAX_HEAP:
        print(f"nimbase: no job {args.id}: job ids are 1..{MAX_HEAP}", file=sys.stderr)
        return 2
    queue = JobQueue(open_engine(ready_database(args.settings)))
    try:
        retried = queue.retry(args.id)
    except NimbaseError as error:
        print(f"nimbase: {error}", file=sys.stderr)
        return 2
    if retried is None:
        print(f"nimbase: no job {args.id}", file=sys.stderr)
        return 2
    if not retried:
        print(f"job {args.id}: an open job computes its object now; nothing queued again")
    for job in retried:
        print(f"queued again: job {job.id} ({job.game_id} {job.family})")
    return 0
