"""The long-running commands: `serve`, `worker`, `run` (both, on a database it creates), and `migrate`.

`run` queues a default precompute set on a fresh database, so a first start has tables to serve. It
watches its worker: one that dies is logged and started again within seconds, the jobs it held put back
in the queue at once (not when their lease runs out), and the server is not ready (GET /readyz) while
no worker runs. Once the server is ready, `run` prints one line with its URLs.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import TYPE_CHECKING

from cli.database import database_url, open_engine, ready_database
from nimbase import collector
from nimbase.settings import Settings
from service.readiness import SharedNote

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


#: A worker that died is started again after this long (longer, up to WORKER_BACKOFF_MAX_SECONDS, while
#: it keeps dying within WORKER_QUICK_SECONDS of its start: a broken set-up does not spin).
WORKER_RESTART_SECONDS = 1.0
#: A worker that stopped cleanly (a signal told it to: most often Ctrl-C, which stops `run` too) is
#: started again after this long, by which time a `run` that is stopping has said so.
WORKER_STOPPED_SECONDS = 3.0
WORKER_QUICK_SECONDS = 10.0
WORKER_BACKOFF_MAX_SECONDS = 30.0
#: How often `run` asks its server whether it is ready, to print its URLs once it is.
READY_POLL_SECONDS = 0.5


class WorkerWatch:
    """`nimbase run`'s worker: a child process started again whenever it dies, the jobs it held put back
    in the queue at once; `note` says, to the server processes, whether a worker runs."""

    def __init__(self, url: str, settings: Settings, note: SharedNote) -> None:
        self._url = url
        self._settings = settings
        self._note = note
        self._stopping = threading.Event()
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._starts = 0
        self._started = 0.0
        self._id = ""
        self._thread = threading.Thread(target=self._watch, name="nimbase-worker-watch", daemon=True)

    def _worker_id(self) -> str:
        """The name it runs under, which `run` must know to take its jobs back: the configured one, else
        one per start."""
        if self._settings.worker.id:
            return self._settings.worker.id
        return f"{socket.gethostname()}:run-{os.getpid()}:{self._starts}"

    def start(self) -> None:
        self._spawn()
        self._thread.start()

    def _spawn(self) -> None:
        self._starts += 1
        worker_id = self._worker_id()
        # The worker is a child process: it reads its settings from the environment it is given.
        env = {**os.environ, "DATABASE_URL": self._url, "NIMBASE_WORKER_ID": worker_id}
        with self._lock:
            if self._stopping.is_set():
                return
            self._process = subprocess.Popen([sys.executable, "-m", "cli", "worker"], env=env)
            self._started = time.monotonic()
            self._id = worker_id
        self._note.write(None)

    def _watch(self) -> None:
        from storage.errors import StorageUnavailable
        from storage.jobs import JobQueue

        queue = JobQueue(open_engine(self._url))
        backoff = WORKER_RESTART_SECONDS
        while not self._stopping.is_set():
            process = self._process
            if process is None:
                return
            code = process.wait()  # reaps it: no zombie
            if self._stopping.is_set():
                return
            how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
            self._note.write(f"its worker (pid {process.pid}) {how}: starting another")
            try:
                back = queue.release_dead(self._id)
            except StorageUnavailable as exc:
                back = []
                log.warning(
                    "the jobs of the worker that died stay leased until their lease runs out: %s", exc
                )
            log.warning(
                "the worker (pid %d) %s; %s; starting another in %.0f s",
                process.pid,
                how,
                f"jobs {', '.join(map(str, back))} back in the queue" if back else "it held no job",
                backoff,
            )
            quick = time.monotonic() - self._started < WORKER_QUICK_SECONDS
            if self._stopping.wait(WORKER_STOPPED_SECONDS if code == 0 else backoff):
                return
            backoff = min(2 * backoff, WORKER_BACKOFF_MAX_SECONDS) if quick else WORKER_RESTART_SECONDS
            self._spawn()

    def stop(self) -> None:
        """Stop the worker (SIGTERM: its job goes back in the queue), killing it after 10 s."""
        with self._lock:
            self._stopping.set()
            process = self._process
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def announce_when_ready(settings: Settings, started: float, stop: threading.Event) -> None:
    """Print one line with the server's URLs once its /readyz answers 200 (a thread of `run`)."""
    import ssl
    import urllib.error
    import urllib.request

    scheme = "http" if settings.tls is None else "https"
    shown = "localhost" if settings.host in ("0.0.0.0", "::", "") else settings.host
    probe = "127.0.0.1" if settings.host in ("0.0.0.0", "::", "") else settings.host
    url = f"{scheme}://{probe}:{settings.http_port}/readyz"
    context = ssl._create_unverified_context() if settings.tls is not None else None  # our own server
    while not stop.wait(READY_POLL_SECONDS):
        try:
            with urllib.request.urlopen(url, timeout=2, context=context) as answer:
                if answer.status != 200:
                    continue
        except (OSError, urllib.error.URLError):
            continue
        print(
            f"nimbase is ready after {time.monotonic() - started:.1f} s: "
            f"{scheme}://{shown}:{settings.http_port}/ (REST, the web page, /docs), "
            f"gRPC {shown}:{settings.grpc_port}",
            flush=True,
        )
        return


def _free_port(host: str) -> int:
    from service.ports import bind_port

    sock = bind_port("127.0.0.1" if host in ("0.0.0.0", "") else host, 0, "a free port")
    try:
        return int(sock.getsockname()[1])
    finally:
        sock.close()


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
    worker: SharedNote | None = getattr(args, "worker", None)
    if args.processes > 1:
        from service.processes import serve_processes

        collector.resume()  # this process only watches the servers, which build the service each
        return serve_processes(settings, url, args.processes, worker)
    run_configured(Nimbase(settings, open_engine(url)), settings, database_url=url, worker=worker)
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    from worker.runner import worker_from_settings

    url = ready_database(args.settings, unreachable_ok=True)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    worker = worker_from_settings(open_engine(url), args.settings.worker)
    collector.freeze_startup()  # the worker and its modules built (cli.main paused the collector)
    worker.run_forever(stop)
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
    """Embedded database (unless DATABASE_URL is set), migrations, one worker (watched: started again
    when it dies), and the server; one line with the URLs once the server is ready."""
    import multiprocessing

    from storage.migrate import upgrade_head

    started = time.monotonic()
    settings: Settings = args.settings
    url = database_url(settings, create=True)
    upgrade_head(url)
    _queue_defaults(open_engine(url))
    ports = {
        name: _free_port(settings.host) for name in ("grpc_port", "http_port") if not getattr(settings, name)
    }
    served = settings.model_copy(update={"database_url": url, **ports})
    note = SharedNote(multiprocessing.get_context("spawn"), "its worker is starting")
    worker = WorkerWatch(url, served, note)
    worker.start()
    stop = threading.Event()
    threading.Thread(
        target=announce_when_ready, args=(served, started, stop), name="nimbase-ready", daemon=True
    ).start()
    try:
        return cmd_serve(
            argparse.Namespace(migrate=False, settings=served, processes=args.processes, worker=note)
        )
    finally:
        stop.set()
        worker.stop()
