"""The precompute job commands: `precompute` (queue one and follow its progress) and `jobs` (list them)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from cli.database import open_engine, ready_database

if TYPE_CHECKING:
    import sqlalchemy as sa

    from engine.kind import SequenceKernel


def cmd_precompute(args: argparse.Namespace) -> int:
    if args.men is not None:
        return _bulk_precompute(args)
    from engine.errors import NimbaseError, NotApplicable
    from engine.precompute import plan_job
    from engine.registry import parse_game_id, plan_stored
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
        # whether that is so (`makes_whole`); the open-ended sequences still need one.
        plan = plan_job(kind, 1 if args.upto is None else args.upto, args.fill, args.family)
    except NimbaseError as error:
        if args.upto is None and isinstance(error, NotApplicable):  # nothing to store: ask for the size
            return _needs_upto()
        print(f"nimbase: {error}", file=sys.stderr)
        return 2
    if args.upto is None and not makes_whole(kind.kernel_for(plan.family)):
        return _needs_upto()
    queue = JobQueue(engine or open_engine(ready_database(args.settings)))
    try:
        job = queue.submit_plan(plan, plan_stored)
    except NimbaseError as error:
        print(f"nimbase: {error}", file=sys.stderr)
        return 2
    size = f"up to {args.upto}" if args.upto is not None else f"{plan.family}, made whole"
    print(f"queued job {job.id}: {plan.game_id} {size}" + (" (fill)" if plan.fill else ""))
    if job.waits_for:
        print(f"it waits for job(s) {', '.join(map(str, job.waits_for))}, storing what it reads")
    if args.detach:
        return 0
    try:
        return _follow(queue, job.id)
    except KeyboardInterrupt:
        print(f"\nstopped watching; job {job.id} keeps running (nimbase jobs)")
        return 0


def makes_whole(kernel: SequenceKernel | None) -> bool:
    """Whether `kernel` makes its object whole (a solved graph, an endgame table): it has its own
    `SequenceKernel.length`, and its job stores that length whatever `upto` it was given."""
    from engine.kind import SequenceKernel

    return kernel is not None and type(kernel).length is not SequenceKernel.length


def _needs_upto() -> int:
    print("nimbase: precompute needs --upto (or --men N for a family's whole set)", file=sys.stderr)
    return 2


def _bulk_precompute(args: argparse.Namespace) -> int:
    """`precompute FAMILY --men N` (`queue_bulk`), in the database the settings name."""
    from engine.errors import NimbaseError
    from engine.registry import FAMILIES

    family = FAMILIES.get(args.game)
    if family is None or family.bulk is None:
        bulk = ", ".join(sorted(name for name, f in FAMILIES.items() if f.bulk is not None))
        print(f"nimbase: --men needs a family with a bulk set ({bulk}), not {args.game!r}", file=sys.stderr)
        return 2
    try:
        queue_bulk(lambda: open_engine(ready_database(args.settings)), args.game, args.men)
    except NimbaseError as error:
        print(f"nimbase: {error}", file=sys.stderr)
        return 2
    return 0


def queue_bulk(connect: Callable[[], sa.Engine], game: str, men: int) -> int:
    """Queue the jobs of every member of the family `game` up to a size (the family declares which ids:
    its `bulk`), each after the jobs of what it reads: only the members no other one reads are submitted,
    the others come as their needs (storage.job_needs), so each is queued once. Stored or queued members
    are skipped. Prints each job queued; gives how many were. `connect` opens the database once every id
    is planned (a bad size opens none); NimbaseError for a size or member the family refuses."""
    from engine.precompute import plan_job
    from engine.registry import FAMILIES, parse_game_id, plan_stored
    from storage.job_needs import is_stored, open_job_of
    from storage.jobs import JobQueue

    family = FAMILIES[game]
    assert family.bulk is not None
    plans = [plan_job(parse_game_id(game_id), 0, False, None) for game_id in family.bulk(men)]
    needed = {need for plan in plans for need in plan.needs}
    engine = connect()
    queue = JobQueue(engine)
    queued = 0
    for plan in plans:
        if plan.name in needed:
            continue
        with engine.connect() as conn:
            if is_stored(conn, plan.name) or open_job_of(conn, plan.name) is not None:
                continue
        job = queue.submit_plan(plan, plan_stored)
        queued += 1
        waits = f", after job(s) {', '.join(map(str, job.waits_for))}" if job.waits_for else ""
        print(f"queued job {job.id}: {plan.game_id}{waits}")
    print(f"{len(plans)} ids of {game} up to {men}: {queued} queued with what they read")
    return queued


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
