"""The precompute job commands: `precompute` (queue one and follow its progress) and `jobs` (list them)."""

from __future__ import annotations

import argparse
import sys
import time

from cli.database import open_engine, ready_database


def cmd_precompute(args: argparse.Namespace) -> int:
    from engine.errors import NimbaseError
    from engine.games.registry import parse_game_id, plan_stored
    from engine.precompute import plan_job
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
        plan = plan_job(kind, args.upto, args.fill, args.family)
    except NimbaseError as error:
        print(f"nimbase: {error}", file=sys.stderr)
        return 2
    queue = JobQueue(engine or open_engine(ready_database(args.settings)))
    try:
        job = queue.submit_plan(plan, plan_stored)
    except NimbaseError as error:
        print(f"nimbase: {error}", file=sys.stderr)
        return 2
    print(f"queued job {job.id}: {plan.game_id} up to {args.upto}" + (" (fill)" if plan.fill else ""))
    if job.waits_for:
        print(f"it waits for job(s) {', '.join(map(str, job.waits_for))}, storing what it reads")
    if args.detach:
        return 0
    try:
        return _follow(queue, job.id)
    except KeyboardInterrupt:
        print(f"\nstopped watching; job {job.id} keeps running (nimbase jobs)")
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
    from storage.jobs import JobQueue

    for job in JobQueue(open_engine(ready_database(args.settings))).list(limit=args.limit):
        print(f"{job.id:>6}  {job.status:<9}  {job.done:>12}/{job.total:<12}  {job.game_id}")
    return 0
