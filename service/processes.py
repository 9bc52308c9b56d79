"""`nimbase serve --processes N`: N server processes on one pair of ports, so every core answers and
nothing is needed in front.

The parent reserves the two ports (SO_REUSEPORT, not listening: port 0 becomes one free port that every
process can share), starts N children by spawning (a forked gRPC is unsafe), forwards SIGINT and SIGTERM
to them and waits for their graceful stop; a child that dies is started again. Each child builds its own
service (caches, database pool) and listens on both ports with SO_REUSEPORT; the kernel spreads the
connections over them. Health answers from any process; metrics are summed over the processes through
prometheus_client's multiprocess directory (service.metrics).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import shutil
import signal
import socket
import tempfile
import time
from multiprocessing.process import BaseProcess

from nimbase import collector
from nimbase.settings import Settings
from service.ports import bind_port
from service.readiness import SharedNote

log = logging.getLogger(__name__)

#: A child that dies is started again at most this often (seconds), so a crash loop does not spin.
RESTART_SECONDS = 2.0
#: How long stopping children get beyond their own grace period before they are killed.
STOP_MARGIN_SECONDS = 5.0
#: A child that stops this soon after starting failed to start; after QUICK_FAILURES such stops in a
#: row the server gives up (a port taken, a broken configuration) instead of restarting forever.
QUICK_SECONDS = 10.0
QUICK_FAILURES = 5


def reserve_port(host: str, port: int) -> tuple[int, socket.socket]:
    """Bind `port` (0: a free one) with SO_REUSEPORT without listening, so the children can bind it
    too and no other program takes it meanwhile; the socket is held until the server stops."""
    sock = bind_port(host, port, "port", reuse_port=True)
    return sock.getsockname()[1], sock


def _child(
    settings: Settings, database_url: str, metrics_dir: str, index: int, worker: SharedNote | None = None
) -> None:
    """One server process: its own service over the shared ports (runs in a spawned interpreter)."""
    collector.pause_for_startup()  # until the server is built (service.server's freeze_startup)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir  # before prometheus_client is imported
    from service import malloc

    malloc.configure()  # first, before any thread of the server allocates (service.malloc says why)
    from service.core import Nimbase
    from service.metrics import Metrics
    from service.server import run_configured
    from storage.database import create_engine

    logging.basicConfig(level=settings.log_level, format=f"%(asctime)s [{index}] %(name)s %(message)s")
    run_configured(
        Nimbase(settings, create_engine(database_url)),
        settings,
        reuse_port=True,
        metrics=Metrics(shared_dir=metrics_dir),
        database_url=database_url,
        worker=worker,
    )


def serve_processes(
    settings: Settings, database_url: str, processes: int, worker: SharedNote | None = None
) -> int:
    """Run `processes` servers on the settings' ports until SIGINT or SIGTERM; 0 once all stopped, 1 if
    they could not be kept running. `worker` (`nimbase run`'s word on its worker) goes to each: they
    are not ready while it says something is wrong."""
    grpc_port, grpc_hold = reserve_port(settings.host, settings.grpc_port)
    http_port, http_hold = reserve_port(settings.host, settings.http_port)
    shared = settings.model_copy(update={"grpc_port": grpc_port, "http_port": http_port})
    metrics_dir = tempfile.mkdtemp(prefix="nimbase-metrics-")
    context = multiprocessing.get_context("spawn")
    stopping = False

    def start(index: int) -> BaseProcess:
        child = context.Process(
            target=_child,
            args=(shared, database_url, metrics_dir, index, worker),
            name=f"nimbase-serve-{index}",
        )
        child.start()
        return child

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    handlers = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    children = [start(i) for i in range(processes)]
    log.info("serving gRPC on port %d and HTTP on port %d with %d processes", grpc_port, http_port, processes)
    started = [time.monotonic()] * processes
    quick_failures = 0
    try:
        while not stopping:
            time.sleep(0.2)
            for i, child in enumerate(children):
                if child.exitcode is None or stopping:
                    continue
                lived = time.monotonic() - started[i]
                quick_failures = quick_failures + 1 if lived < QUICK_SECONDS else 0
                if quick_failures >= QUICK_FAILURES:
                    log.error(
                        "server processes keep stopping as they start (exit code %s): giving up",
                        child.exitcode,
                    )
                    return 1
                log.warning("server process %d stopped (exit code %s): starting it again", i, child.exitcode)
                time.sleep(max(0.0, RESTART_SECONDS - lived))
                children[i], started[i] = start(i), time.monotonic()
    finally:
        from service.server import SHUTDOWN_GRACE_S

        for child in children:
            if child.pid is not None and child.exitcode is None:
                os.kill(child.pid, signal.SIGTERM)
        for child in children:
            child.join(SHUTDOWN_GRACE_S + STOP_MARGIN_SECONDS)
            if child.exitcode is None:
                child.kill()
                child.join()
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        grpc_hold.close()
        http_hold.close()
        shutil.rmtree(metrics_dir, ignore_errors=True)
    return 0
