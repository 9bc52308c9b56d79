"""The `nimbase` console script: one subcommand per process or administrative action."""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Sequence

from sqlalchemy import Engine

from nimbase.settings import InvalidSetting, Settings

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


def _database_url(settings: Settings) -> str:
    """DATABASE_URL, else the embedded server under NIMBASE_VAR_DIR (started if need be)."""
    from storage.embedded import database_url

    return database_url(settings.database_url, settings.var_dir)


def _engine(settings: Settings) -> Engine:
    from storage.database import create_engine

    return create_engine(_database_url(settings))


def cmd_migrate(args: argparse.Namespace) -> int:
    from storage.migrate import upgrade_head

    upgrade_head(_database_url(args.settings))
    print("database schema is up to date")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from service.core import Nimbase
    from service.server import run_server

    settings: Settings = args.settings
    url = _database_url(settings)
    if args.migrate:
        from storage.migrate import upgrade_head

        upgrade_head(url)
    from storage.database import create_engine

    service = Nimbase(settings, create_engine(url))
    run_server(
        service,
        grpc_port=settings.grpc_port,
        http_port=settings.http_port,
        host=settings.host,
        limits=settings.limits,
        cors_origins=settings.cors_origins,
        rate_limit=settings.rate_limit,
    )
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    from worker.runner import worker_from_settings

    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    worker_from_settings(_engine(args.settings), args.settings.worker).run_forever(stop)
    return 0


def cmd_precompute(args: argparse.Namespace) -> int:
    from engine.errors import NimbaseError
    from engine.games.registry import parse_game_id
    from engine.precompute import plan_job
    from storage.jobs import JobQueue

    try:
        plan = plan_job(parse_game_id(args.game), args.upto, args.fill)
    except NimbaseError as error:
        print(f"nimbase: {error}", file=sys.stderr)
        return 2
    queue = JobQueue(_engine(args.settings))
    job = queue.submit(plan.game_id, plan.family, plan.values, fill=plan.fill)
    print(f"queued job {job.id}: {plan.game_id} up to {args.upto}" + (" (fill)" if plan.fill else ""))
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

    for job in JobQueue(_engine(args.settings)).list(limit=args.limit):
        print(f"{job.id:>6}  {job.status:<9}  {job.done:>12}/{job.total:<12}  {job.game_id}")
    return 0


def cmd_value(args: argparse.Namespace) -> int:
    from nimbase.client import NimbaseClient, NimbaseClientError

    target = args.target or f"localhost:{args.settings.grpc_port}"
    try:
        with NimbaseClient(target) as client:
            print(json.dumps(client.get_value(args.game, args.position), indent=2))
    except NimbaseClientError as error:
        print(f"nimbase: {error.code}: {error.message}", file=sys.stderr)
        return 1
    return 0


def _queue_defaults(engine: Engine) -> None:
    """Queue the default precompute set for games that are neither stored nor queued yet."""
    from engine.errors import NimbaseError
    from engine.games.registry import parse_game_id
    from engine.precompute import plan_job
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
            queue.submit(plan.game_id, plan.family, plan.values, fill=plan.fill)
            log.info("queued default precompute %s up to %d", plan.game_id, upto)


def cmd_run(args: argparse.Namespace) -> int:
    """Embedded database (unless DATABASE_URL is set), migrations, one worker, and the server."""
    from storage.database import create_engine
    from storage.migrate import upgrade_head

    settings: Settings = args.settings
    url = _database_url(settings)
    upgrade_head(url)
    _queue_defaults(create_engine(url))
    # The worker is a child process: it reads its settings from the environment it is given.
    env = {**os.environ, "DATABASE_URL": url}
    worker = subprocess.Popen([sys.executable, "-m", "nimbase", "worker"], env=env)
    try:
        served = settings.model_copy(update={"database_url": url})
        return cmd_serve(argparse.Namespace(migrate=False, settings=served))
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=10)
        except subprocess.TimeoutExpired:
            worker.kill()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="nimbase", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve gRPC and REST in one process")
    serve.add_argument("--migrate", action="store_true", help="apply migrations first")
    serve.set_defaults(func=cmd_serve)
    commands.add_parser("worker", help="run precompute jobs").set_defaults(func=cmd_worker)
    commands.add_parser("migrate", help="alembic upgrade head").set_defaults(func=cmd_migrate)
    commands.add_parser("run", help="embedded database + migrate + worker + serve").set_defaults(func=cmd_run)
    precompute = commands.add_parser("precompute", help="queue a job and follow its progress")
    precompute.add_argument("game")
    precompute.add_argument("--upto", type=int, required=True, help="compute heaps 0..UPTO-1")
    precompute.add_argument("--fill", action="store_true", help="fill the whole range even once periodic")
    precompute.add_argument("--detach", action="store_true", help="queue and return at once")
    precompute.set_defaults(func=cmd_precompute)
    jobs = commands.add_parser("jobs", help="list jobs")
    jobs.add_argument("--limit", type=int, default=50)
    jobs.set_defaults(func=cmd_jobs)
    value = commands.add_parser("value", help="print the value of a position (JSON)")
    value.add_argument("game")
    value.add_argument("position")
    value.add_argument("--target", default=None, help="host:port (default: localhost:NIMBASE_GRPC_PORT)")
    value.set_defaults(func=cmd_value)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.settings = Settings.from_env()  # the one reading of the environment; commands get it in args
    except InvalidSetting as error:
        print(f"nimbase: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=args.settings.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("pgserver").setLevel(logging.WARNING)  # it logs every reuse of the server
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR")  # pgserver's harmless start-up note
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
