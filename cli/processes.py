"""The long-running commands: `serve`, `worker`, `run` (both, on a database it creates), and `migrate`.

`run` queues a default precompute set on a fresh database, so a first start has tables to serve.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import threading
from typing import TYPE_CHECKING

from cli.database import database_url, open_engine, ready_database
from nimbase.settings import Settings

if TYPE_CHECKING:
    from sqlalchemy import Engine

#: Jobs `nimbase run` queues on a fresh database, so a first start has tables to serve: (game, upto).
#: Cheap ones first, since one worker takes them in order. Every classic octal game but 0.6 stops at
#: its Guy-Smith certificate, well inside its `upto` (0.16 and 0.56 within a second, by the sparse
#: kernel). 0.6 has no known period, so nothing certifies it: 2^23 values, about 30 s of computing.
DEFAULT_PRECOMPUTE: tuple[tuple[str, int], ...] = (
    ("subtraction:1,3,4", 1 << 20),
    ("subtraction:1,3,4:misere", 1 << 20),
    ("octal:0.77", 1 << 20),
    ("octal:0.07", 1 << 20),
    ("octal:0.137", 1 << 20),
    ("octal:0.16", 1 << 20),  # period 149,459, certified at 509,622 values
    ("octal:0.56", 1 << 20),  # period 144 after 326,640, certified at 653,570 values
    ("wythoff", 1024),  # the side of the table: 1024 x 1024 pairs
    ("grundy", 1 << 22),
    ("octal:0.6", 1 << 23),
)

log = logging.getLogger("nimbase")


def cmd_migrate(args: argparse.Namespace) -> int:
    from storage.migrate import upgrade_head

    upgrade_head(database_url(args.settings, create=True))
    print("database schema is up to date")
    return 0


def processes_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--processes",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="server processes sharing the gRPC and HTTP ports (default: the number of cores, here "
        f"{os.cpu_count() or 1}); each has its own caches",
    )


def cmd_serve(args: argparse.Namespace) -> int:
    from service import malloc

    malloc.configure()  # first, before any thread of the server allocates (service.malloc says why)
    from engine.registry import kind_settings
    from service.core import Nimbase
    from service.kind_plugins import open_resources
    from service.server import run_configured

    settings: Settings = args.settings
    # each kind's own variables, and the files they name, checked before anything starts
    open_resources(kind_settings(settings.kind_variables)).close()
    if args.migrate:
        from storage.migrate import upgrade_head

        url = database_url(settings, create=True)
        upgrade_head(url)
    else:
        url = ready_database(settings, unreachable_ok=True)
    if args.processes < 1:
        print(f"nimbase: --processes {args.processes} is below 1", file=sys.stderr)
        return 2
    if args.processes > 1:
        from service.processes import serve_processes

        return serve_processes(settings, url, args.processes)
    run_configured(Nimbase(settings, open_engine(url)), settings, database_url=url)
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    from worker.runner import worker_from_settings

    url = ready_database(args.settings, unreachable_ok=True)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    worker_from_settings(open_engine(url), args.settings.worker).run_forever(stop)
    return 0


def _queue_defaults(engine: Engine) -> None:
    """Queue the default precompute set for games that are neither stored nor queued yet."""
    from engine.errors import NimbaseError
    from engine.precompute import plan_job
    from engine.registry import parse_game_id, plan_stored
    from storage.jobs import JobQueue
    from storage.sequences import SequenceStore

    queue, store = JobQueue(engine), SequenceStore(engine)
    pending = {(job.game_id, job.upto) for job in queue.list(limit=1000) if job.status != "cancelled"}
    for game_id, upto in DEFAULT_PRECOMPUTE:
        try:
            plan = plan_job(parse_game_id(game_id), upto)
        except NimbaseError:
            continue
        info = store.info(plan.game_id, plan.family)
        stored = info is not None and (info.computed_upto >= plan.values or info.period is not None)
        if not stored and (plan.game_id, plan.values) not in pending:
            queue.queue(plan, plan_stored)  # one job per object: stored or open, none queued
            log.info("queued default precompute %s up to %d", plan.game_id, upto)


def cmd_run(args: argparse.Namespace) -> int:
    """Embedded database (unless DATABASE_URL is set), migrations, one worker, and the server."""
    from storage.migrate import upgrade_head

    settings: Settings = args.settings
    url = database_url(settings, create=True)
    upgrade_head(url)
    _queue_defaults(open_engine(url))
    # The worker is a child process: it reads its settings from the environment it is given.
    env = {**os.environ, "DATABASE_URL": url}
    worker = subprocess.Popen([sys.executable, "-m", "cli", "worker"], env=env)
    try:
        served = settings.model_copy(update={"database_url": url})
        return cmd_serve(argparse.Namespace(migrate=False, settings=served, processes=args.processes))
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=10)
        except subprocess.TimeoutExpired:
            worker.kill()
