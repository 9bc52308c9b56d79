"""Soak: minutes of mixed load while a worker is SIGKILLed and PostgreSQL restarted at random moments.

`make soak` (or `python -m bench.soak [--seconds N] [--database-url URL]`) starts its own PostgreSQL
(an embedded pgserver in a temporary directory, restarted with `pg_ctl`; with `--database-url`, a
server it cannot restart, so a TCP proxy in front of it is cut for a few seconds instead), migrates a
fresh database, and runs one `nimbase serve` and one `nimbase worker` on loopback. Precompute jobs are
queued at the start and over time, so the worker has real work while it is killed. Client processes
send gRPC and REST requests (values, best moves, P-positions, batches, streamed batches, sequences,
stats, jobs) on stored, periodic, formula and live positions, and invalid ones that must get a 4xx.

At the end the load stops, the open jobs are given time to finish (the rest are cancelled), and every
stored table is compared byte for byte with a recomputation by the engine's kernels; the service reads
every heap table back over REST, and a sample of the values answered during the run is checked too.
It prints requests served, answers by code, 5xx (those given while PostgreSQL was restarting apart),
p50/p99 latency per transport, the server's RSS after warm-up and at the end, and the checks; it exits
non-zero on any 5xx outside a database restart, any wrong or lost value, or RSS growth beyond 20 %.
Logs (server, workers, PostgreSQL) are kept under NIMBASE_VAR_DIR/soak/<time>/.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import itertools
import multiprocessing
import os
import queue
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import psutil
import sqlalchemy as sa
from numpy.typing import NDArray

from bench.common import ADMIN_TOKEN, figure, free_port
from bench.soak_load import SLOW_SECONDS, Record, load_process, merge, normal_heap_game
from engine.games.registry import parse_game_id
from engine.games.wythoff import is_p_pair
from engine.kernels.wythoff_tiles import PAIRS, value_index
from engine.kind import SequenceKernel
from engine.periods import Period
from nimbase.settings import Settings
from storage.database import create_engine, normalize_url
from storage.migrate import upgrade_head
from storage.schema import corruption_reports, jobs
from storage.sequences import SequenceStore

REPO = Path(__file__).resolve().parents[1]

#: Jobs queued before the load starts: (game, upto, fill). Wythoff's upto is the side of its table.
INITIAL_JOBS: tuple[tuple[str, int, bool], ...] = (
    ("grundy", 1 << 22, False),
    ("subtraction:2,5,7", 1 << 22, True),
    ("wythoff", 1024, False),
    ("octal:0.6", 1 << 21, False),
    ("octal:0.16", 1 << 21, False),
)
#: Jobs queued during the run, spread over it; some extend a table stored earlier.
LATER_JOBS: tuple[tuple[str, int, bool], ...] = (
    ("subtraction:1,3,4", 1 << 21, True),
    ("octal:0.07", 1 << 20, False),
    ("octal:0.6", 1 << 22, False),
    ("wythoff", 2048, False),
    ("subtraction:3,7,12", 1 << 22, True),
    ("octal:0.16", 1 << 22, True),
    ("grundy", 1 << 23, False),
)
#: Queued during the run and cancelled a little later, whatever it reached by then.
CANCELLED_JOB = ("octal:0.14", 1 << 22, False)

#: The server's automatic jobs are bounded, so the final recomputation stays bounded too.
SERVER_ENV = {"NIMBASE_AUTO_VALUES": str(1 << 22), "NIMBASE_AUTO_SECONDS": "60"}
#: UNAVAILABLE is the documented answer while PostgreSQL is down; it is expected from the moment a
#: restart begins until this many seconds after the database is back.
OUTAGE_GRACE_SECONDS = 10.0
#: Values one read-back call asks for (NIMBASE_LIMITS_SEQUENCE_VALUES is 1,000,000).
READ_BACK_VALUES = 500_000
#: The server's own cap on a request's time (NIMBASE_LIMITS_REQUEST_SECONDS, default), in ms.
SERVER_DEADLINE_MS = 10_000
#: The server's RSS may end at most this much above its value after warm-up.
RSS_GROWTH_LIMIT = 0.20


def log(message: str) -> None:
    print(f"[soak {time.strftime('%H:%M:%S')}] {message}", flush=True)


# ---- the database --------------------------------------------------------------------------------


class EmbeddedPostgres:
    """A pgserver PostgreSQL in a temporary directory, restarted with its own pg_ctl."""

    description = "embedded pgserver (temporary directory), restarted with pg_ctl"

    def __init__(self) -> None:
        from pgserver.postgres_server import get_server

        self._tmp = Path(tempfile.mkdtemp(prefix="nimbase-soak-pg-"))
        self.pgdata = self._tmp / "pgdata"
        self.server = get_server(str(self.pgdata), cleanup_mode=None)
        info = self.server.get_postmaster_info()
        self.socket_dir = info.socket_dir
        self.server_url = normalize_url(str(self.server.get_uri()))
        self._log = self.pgdata / "log"
        self._closed = False

    def _pg_ctl(self, args: list[str]) -> None:
        from pgserver._commands import pg_ctl  # type: ignore[attr-defined]

        pg_ctl(args, pgdata=self.pgdata, user=self.server.system_user, timeout=120)

    def _refresh(self) -> None:
        from pgserver.utils import PostmasterInfo

        self.server._postmaster_info = PostmasterInfo.read_from_pgdata(self.pgdata)

    def restart(self, rng: random.Random) -> str:
        """A fast restart, or an immediate stop (a crash: recovery from WAL) and a start a moment later."""
        if rng.random() < 0.5:
            self._pg_ctl(["-w", "-t", "120", "-m", "fast", "-l", str(self._log), "restart"])
            self._refresh()
            return "pg_ctl restart -m fast"
        self._pg_ctl(["-w", "-m", "immediate", "stop"])
        down = rng.uniform(1.0, 4.0)
        time.sleep(down)
        self.start()
        return f"pg_ctl stop -m immediate, {down:.1f} s down, start"

    def start(self) -> None:
        self._pg_ctl(
            ["-w", "-t", "120", "-o", '-h ""', "-o", f"-k {self.socket_dir}", "-l", str(self._log), "start"]
        )
        self._refresh()

    def keep_log(self, directory: Path) -> None:
        with contextlib.suppress(OSError):
            shutil.copy(self._log, directory / "postgres.log")

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(Exception):
            self._pg_ctl(["-w", "-m", "fast", "stop"])
        with contextlib.suppress(Exception):
            self.server._cleanup()  # cleanup_mode None: only forgets this process
            atexit.unregister(self.server._cleanup)
        shutil.rmtree(self._tmp, ignore_errors=True)


class ExternalPostgres:
    """A server given by URL: it cannot be restarted from here, so outages are a cut TCP proxy."""

    description = "DATABASE_URL given: outages are a TCP proxy cut for a few seconds"

    def __init__(self, url: str) -> None:
        from tests.e2e.proxy import DatabaseProxy  # the end-to-end tests' proxy

        self.server_url = normalize_url(url)
        self.proxy = DatabaseProxy(self.server_url)

    def restart(self, rng: random.Random) -> str:
        down = rng.uniform(1.0, 5.0)
        self.proxy.cut()
        time.sleep(down)
        self.proxy.restore()
        return f"database proxy cut for {down:.1f} s"

    def proxied(self, url: str) -> str:
        from tests.e2e.proxy import with_address

        return with_address(url, "127.0.0.1", self.proxy.port)

    def keep_log(self, directory: Path) -> None:
        pass

    def close(self) -> None:
        self.proxy.close()


def create_database(server_url: str) -> tuple[str, Callable[[], None]]:
    """A fresh migrated database on the server; its URL and how to drop it."""
    name = f"nimbase_soak_{os.getpid()}_{random.randrange(1 << 30):08x}"
    admin = sa.create_engine(server_url, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = sa.make_url(server_url).set(database=name).render_as_string(hide_password=False)
    upgrade_head(url)

    def drop() -> None:
        with contextlib.suppress(Exception), admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return url, drop


# ---- processes -----------------------------------------------------------------------------------


def process_env(url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NIMBASE_") and k != "DATABASE_URL"}
    env.update(
        {
            "DATABASE_URL": url,
            "NIMBASE_ADMIN_TOKEN": ADMIN_TOKEN,
            "NIMBASE_LOG_LEVEL": "INFO",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


@dataclass
class Services:
    url: str
    logs: Path
    server: subprocess.Popen[bytes] | None = None
    grpc_target: str = ""
    http_base: str = ""
    worker: subprocess.Popen[bytes] | None = None
    worker_starts: int = 0
    log_files: list[Any] = field(default_factory=list)

    def start_server(self) -> None:
        grpc_port, http_port = free_port(), free_port()
        env = process_env(
            self.url,
            NIMBASE_HOST="127.0.0.1",
            NIMBASE_GRPC_PORT=str(grpc_port),
            NIMBASE_HTTP_PORT=str(http_port),
            **SERVER_ENV,
        )
        out = (self.logs / "server.log").open("ab")
        self.log_files.append(out)
        self.server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "cli",
                "serve",
                "--processes",
                "1",
            ],  # one process's memory is measured
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=REPO,
        )
        self.grpc_target = f"127.0.0.1:{grpc_port}"
        self.http_base = f"http://127.0.0.1:{http_port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.server.poll() is not None:
                raise RuntimeError(
                    f"the server exited with {self.server.returncode}; see {self.logs}/server.log"
                )
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.http_base}/healthz", timeout=1).status_code == 200:
                    return
            time.sleep(0.2)
        raise RuntimeError(f"the server did not come up; see {self.logs}/server.log")

    def start_worker(self) -> None:
        self.worker_starts += 1
        out = (self.logs / f"worker-{self.worker_starts}.log").open("ab")
        self.log_files.append(out)
        self.worker = subprocess.Popen(
            [sys.executable, "-m", "cli", "worker"],
            env=process_env(self.url),
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=REPO,
        )

    def kill_worker(self) -> None:
        if self.worker is not None and self.worker.poll() is None:
            self.worker.send_signal(signal.SIGKILL)
            self.worker.wait()
        self.worker = None

    @staticmethod
    def _terminate(process: subprocess.Popen[bytes] | None) -> None:
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def stop_worker(self) -> None:
        self._terminate(self.worker)
        self.worker = None

    def stop(self) -> None:
        self.stop_worker()
        self._terminate(self.server)
        for out in self.log_files:
            out.close()


def rss(pid: int) -> int:
    """Resident set size of a process, in bytes."""
    return int(psutil.Process(pid).memory_info().rss)


# ---- the admin API -------------------------------------------------------------------------------


def admin_call(base: str, method: str, path: str, body: Any = None, patience: float = 60.0) -> Any:
    """An authorised REST call, retried while the database is restarting (503) or unreachable."""
    deadline = time.monotonic() + patience
    while True:
        try:
            response = httpx.request(
                method,
                f"{base}{path}",
                json=body,
                headers={"authorization": f"Bearer {ADMIN_TOKEN}"},
                timeout=30,
            )
            if response.status_code < 500:
                response.raise_for_status()
                return response.json()
            problem = f"{response.status_code} {response.text[:200]}"
        except httpx.TransportError as exc:
            problem = str(exc)
        if time.monotonic() > deadline:
            raise RuntimeError(f"{method} {path}: {problem}")
        time.sleep(1)


# ---- the run -------------------------------------------------------------------------------------


@dataclass
class Run:
    seconds: float
    warmup: float
    started: float = 0.0
    outages: list[tuple[float, float]] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    worker_kills: int = 0
    database_restarts: int = 0
    rss_start: int = 0
    rss_end: int = 0
    rss_samples: list[tuple[float, int]] = field(default_factory=list)
    submitted: list[int] = field(default_factory=list)
    cancelled: list[int] = field(default_factory=list)
    server_died: str | None = None

    def note(self, text: str) -> None:
        line = f"t={time.time() - self.started:6.1f} s  {text}"
        self.faults.append(line)
        log(line)


def schedule(run: Run, rng: random.Random, kills: int, restarts: int) -> list[tuple[float, str, Any]]:
    """Fault and job events at random moments after warm-up (at least 8 s apart), in time order."""
    first, last = run.warmup + 3, max(run.warmup + 6, run.seconds - 15)
    kinds = ["kill_worker"] * kills + ["restart_database"] * restarts
    rng.shuffle(kinds)
    times: list[float] = []
    for _ in range(200):
        times = sorted(rng.uniform(first, last) for _ in kinds)
        if all(b - a >= 8 for a, b in itertools.pairwise(times)):
            break
    events: list[tuple[float, str, Any]] = list(zip(times, kinds, [None] * len(kinds), strict=True))
    span = max(1.0, run.seconds * 0.8 - run.warmup)
    for i, job in enumerate(LATER_JOBS):
        events.append((run.warmup + span * (i + 0.5) / len(LATER_JOBS), "submit", job))
    cancel_at = run.warmup + span * 0.4
    events.append((cancel_at, "submit_to_cancel", CANCELLED_JOB))
    events.append((cancel_at + min(20.0, run.seconds * 0.1), "cancel", None))
    return sorted(events, key=lambda e: e[0])


def run_faults(
    run: Run, rng: random.Random, services: Services, database: Any, stop: threading.Event
) -> None:
    """Carries out the scheduled events and samples the server's RSS every 5 s."""
    events = schedule(
        run, rng, kills=max(2, int(run.seconds // 100)), restarts=max(2, int(run.seconds // 120))
    )
    to_cancel: list[int] = []
    pending_worker_start: float | None = None
    next_rss = 0.0
    assert services.server is not None
    while not stop.is_set():
        now = time.time() - run.started
        if services.server.poll() is not None and run.server_died is None:
            run.server_died = f"the server exited with {services.server.returncode} at t={now:.1f} s"
            run.note(run.server_died)
        if now >= next_rss and services.server.poll() is None:
            run.rss_samples.append((now, rss(services.server.pid)))
            next_rss = now + 5
        if pending_worker_start is not None and now >= pending_worker_start:
            services.start_worker()
            run.note(f"worker {services.worker_starts} started")
            pending_worker_start = None
        if services.worker is not None and services.worker.poll() is not None:
            run.note(f"worker exited by itself with {services.worker.returncode}: restarting it")
            services.start_worker()
        if events and now >= events[0][0]:
            _, kind, arg = events.pop(0)
            try:
                if kind == "kill_worker" and services.worker is not None:
                    services.kill_worker()
                    run.worker_kills += 1
                    delay = rng.uniform(0, 3)
                    pending_worker_start = now + delay
                    run.note(f"worker SIGKILLed (a new one in {delay:.1f} s)")
                elif kind == "restart_database":
                    begun = time.time()
                    how = database.restart(rng)
                    run.outages.append((begun, time.time()))
                    run.database_restarts += 1
                    run.note(f"PostgreSQL restarted ({how}, {time.time() - begun:.1f} s)")
                elif kind in ("submit", "submit_to_cancel"):
                    game, upto, fill = arg
                    job = admin_call(
                        services.http_base, "POST", "/v1/jobs", {"game": game, "upto": upto, "fill": fill}
                    )
                    run.submitted.append(int(job["id"]))
                    if kind == "submit_to_cancel":
                        to_cancel.append(int(job["id"]))
                    run.note(f"job {job['id']} queued: {game} to {upto:,}{' with fill' if fill else ''}")
                elif kind == "cancel":
                    for job_id in to_cancel:
                        job = admin_call(services.http_base, "DELETE", f"/v1/jobs/{job_id}")
                        run.cancelled.append(job_id)
                        run.note(
                            f"job {job_id} cancelled at {job['progress']['done']:,} values ({job['status']})"
                        )
            except Exception as exc:  # a fault or a job that could not be carried out is reported, not fatal
                run.note(f"{kind} failed: {type(exc).__name__}: {exc}")
        stop.wait(0.2)
    if pending_worker_start is not None:
        services.start_worker()


def run_load(
    run: Run, services: Services, processes: int, threads: int, seed: int, faults: Callable[[], None]
) -> Record:
    """The load for run.seconds (warm-up included); `faults` is started once warm-up is over."""
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    results = context.Queue()
    workers = [
        context.Process(
            target=load_process,
            args=(i, services.grpc_target, services.http_base, threads, seed + i, stop, results),
            name=f"soak-load-{i}",
        )
        for i in range(processes)
    ]
    run.started = time.time()
    for process in workers:
        process.start()
    assert services.server is not None
    time.sleep(run.warmup)
    run.rss_start = rss(services.server.pid)
    log(f"warm-up over: server RSS {run.rss_start / 2**20:.1f} MiB; faults begin")
    faults()
    while time.time() - run.started < run.seconds:
        time.sleep(0.5)
    stop.set()
    if services.server.poll() is None:
        run.rss_end = rss(services.server.pid)
    record = Record()
    rng = random.Random(seed)
    for _ in workers:
        try:
            merge(record, results.get(timeout=120), rng)
        except queue.Empty:
            log("a load process sent no results")
    for process in workers:
        process.join(timeout=30)
        if process.is_alive():
            process.kill()
    return record


# ---- the checks ----------------------------------------------------------------------------------


def open_jobs(engine: sa.Engine) -> list[tuple[int, str, str, int]]:
    stmt = sa.select(jobs.c.id, jobs.c.game_id, jobs.c.status, jobs.c.done).where(
        jobs.c.status.in_(("queued", "running"))
    )
    with engine.connect() as conn:
        return [(int(r.id), r.game_id, r.status, int(r.done)) for r in conn.execute(stmt)]


def drain(services: Services, engine: sa.Engine, patience: float) -> list[int]:
    """Let the worker finish the open jobs for up to `patience` seconds, then cancel the rest."""
    if services.worker is None or services.worker.poll() is not None:
        services.start_worker()
    deadline = time.monotonic() + patience
    remaining = open_jobs(engine)
    while remaining and time.monotonic() < deadline:
        time.sleep(2)
        remaining = open_jobs(engine)
    cancelled = []
    for job_id, game, status, done in remaining:
        log(f"job {job_id} ({game}) still {status} at {done:,} values after {patience:.0f} s: cancelling it")
        admin_call(services.http_base, "DELETE", f"/v1/jobs/{job_id}")
        cancelled.append(job_id)
    if cancelled:
        time.sleep(6)  # the worker notices at its next heartbeat (lease / 3) and stops writing
    services.stop_worker()
    return cancelled


@dataclass
class TableCheck:
    tables: int = 0
    values: int = 0
    mismatches: list[str] = field(default_factory=list)
    periods: int = 0
    seconds: float = 0.0
    #: (game, family) -> recomputed values, reused by the later checks
    recomputed: dict[tuple[str, str], NDArray[np.uint32]] = field(default_factory=dict)


def kernel_of(game: str, family: str) -> SequenceKernel:
    kernel = parse_game_id(game).kernel_for(family)
    if kernel is None:
        raise RuntimeError(f"no kernel for {game} {family}")
    return kernel


def check_tables(engine: sa.Engine) -> TableCheck:
    """Every stored table against a recomputation from nothing, byte for byte, and its header."""
    check = TableCheck()
    started = time.perf_counter()
    store = SequenceStore(engine)
    for info in sorted(store.list_sequences_all(limit=100_000), key=lambda i: (i.game_id, i.family)):
        name = f"{info.game_id} {info.family}"
        n = info.computed_upto
        kernel = kernel_of(info.game_id, info.family)
        expected = kernel.extend(np.zeros(0, dtype=np.uint32), n).astype(np.uint32)
        check.recomputed[(info.game_id, info.family)] = expected
        try:
            stored = store.read_prefix(info.game_id, info.family, n).astype(np.uint32)
        except Exception as exc:
            check.mismatches.append(f"{name}: stored values unreadable: {type(exc).__name__}: {exc}")
            continue
        check.tables += 1
        check.values += n
        if stored.tobytes() != expected.tobytes():
            diff = np.flatnonzero(stored != expected)
            check.mismatches.append(
                f"{name}: {len(diff):,} of {n:,} values differ, first at {int(diff[0])}: "
                f"stored {int(stored[diff[0]])}, recomputed {int(expected[diff[0]])}"
            )
        if n and info.max_value is not None and int(info.max_value) != int(expected.max()):
            check.mismatches.append(
                f"{name}: header max_value {info.max_value}, recomputed {int(expected.max())}"
            )
        if info.period is not None and info.period.certified:
            check.periods += 1
            period = kernel.certify(expected)
            if period is None or (period.preperiod, period.period, period.saltus) != (
                info.period.preperiod,
                info.period.period,
                info.period.saltus,
            ):
                check.mismatches.append(f"{name}: stored period {info.period}, recomputed {period}")
        log(f"checked {name}: {n:,} values")
    check.seconds = time.perf_counter() - started
    return check


def read_back(base: str, check: TableCheck) -> tuple[int, list[str]]:
    """Every stored heap table read back through the service (GET /v1/sequence, in slices)."""
    values, problems = 0, []
    with httpx.Client(base_url=base, timeout=120) as client:
        for (game, family), expected in check.recomputed.items():
            if family != "heap" or not normal_heap_game(game):
                continue
            for start in range(0, len(expected), READ_BACK_VALUES):
                stop = min(len(expected), start + READ_BACK_VALUES)
                response = client.get("/v1/sequence", params={"game": game, "start": start, "stop": stop})
                if response.status_code != 200:
                    problems.append(f"{game} {start}..{stop}: {response.status_code} {response.text[:200]}")
                    continue
                got = np.asarray(response.json()["values"], dtype=np.int64)
                values += len(got)
                if not np.array_equal(got, expected[start:stop].astype(np.int64)):
                    diff = np.flatnonzero(got != expected[start:stop])
                    problems.append(
                        f"{game} {start}..{stop}: {len(diff):,} values differ, first at "
                        f"{start + int(diff[0])}: served {int(got[diff[0]])}, "
                        f"recomputed {int(expected[start + diff[0]])}"
                    )
    return values, problems


class Oracle:
    """g(n) of normal-play heap games, from recomputed values and their certified period."""

    #: Values computed for a game the soak did not store (live games), before certifying its period.
    LIMIT = 1 << 22

    def __init__(self, recomputed: dict[tuple[str, str], NDArray[np.uint32]]) -> None:
        self._recomputed = recomputed
        self._cache: dict[str, tuple[NDArray[np.uint32], Period | None]] = {}

    def _values(self, game: str, need: int) -> tuple[NDArray[np.uint32], Period | None]:
        """Values of `game` from 0 covering heap `need`, or its certified period (or as far as LIMIT)."""
        have = self._cache.get(game)
        if have is not None and (need < len(have[0]) or have[1] is not None or len(have[0]) >= self.LIMIT):
            return have
        kernel = kernel_of(game, "heap")
        values = have[0] if have is not None else self._recomputed.get((game, "heap"), np.zeros(0, np.uint32))
        period = None
        while need >= len(values):
            if len(values) and kernel.certifies:
                period = kernel.certify(values)
                if period is not None:
                    break
            if len(values) >= self.LIMIT:
                break
            if kernel.certifies:  # grow geometrically until the period is certified
                size = min(self.LIMIT, max(4096, 2 * len(values)))
            else:
                size = min(self.LIMIT, need + 1)
            values = kernel.extend(values, size)
        self._cache[game] = (values, period)
        return values, period

    def value(self, game: str, n: int) -> int | None:
        if game.partition(":")[0] == "nim":
            return n
        values, period = self._values(game, n)
        if n < len(values):
            return int(values[n])
        if period is None:
            return None
        return int(values[period.reduce(n)]) + period.cycles(n) * period.saltus


def wythoff_value(pairs: NDArray[np.uint32] | None, a: int, b: int) -> int | None:
    """g(a, b) from the recomputed table, else from the closed forms (g(0, b) = b, 0 at P-pairs)."""
    a, b = min(a, b), max(a, b)
    if pairs is not None and value_index(a, b) < len(pairs):
        return int(pairs[value_index(a, b)])
    if a == 0:
        return b
    if is_p_pair(a, b):
        return 0
    return None


def check_observations(record: Record, check: TableCheck) -> tuple[int, int, list[str]]:
    """The values answered during the run (a sample) against recomputed ones: checked, unverifiable, wrong."""
    oracle = Oracle(check.recomputed)
    pairs = check.recomputed.get(("wythoff", PAIRS))
    checked = unverifiable = 0
    wrong: list[str] = []
    for item in record.observations:
        kind = item[0]
        try:
            if kind == "heaps":
                _, game, heaps, grundy = item
                parts = [oracle.value(game, h) for h in heaps]
                if any(p is None for p in parts):
                    unverifiable += 1
                    continue
                expected = 0
                for p in parts:
                    expected ^= int(p)  # type: ignore[arg-type]
                checked += 1
                if expected != grundy:
                    wrong.append(
                        f"{game} position {' '.join(map(str, heaps))}: answered {grundy}, "
                        f"recomputed {expected}"
                    )
            elif kind == "sequence":
                _, game, start, values = item
                for i, v in enumerate(values):
                    expected_value = oracle.value(game, start + i)
                    if expected_value is None:
                        unverifiable += 1
                        break
                    if expected_value != v:
                        wrong.append(
                            f"{game} sequence at {start + i}: answered {v}, recomputed {expected_value}"
                        )
                        break
                else:
                    checked += 1
            elif kind == "wythoff":
                _, pair_list, grundy, outcome = item
                if len(pair_list) == 1:
                    a, b = pair_list[0]
                    checked += 1
                    if (outcome == "P") != is_p_pair(a, b):
                        wrong.append(
                            f"wythoff {a},{b}: answered outcome {outcome}, is_p_pair {is_p_pair(a, b)}"
                        )
                        continue
                if grundy is None:
                    continue
                known = [wythoff_value(pairs, a, b) for a, b in pair_list]
                if any(v is None for v in known):
                    unverifiable += 1
                    continue
                expected = 0
                for v in known:
                    expected ^= int(v)  # type: ignore[arg-type]
                checked += 1
                if expected != grundy:
                    wrong.append(f"wythoff {pair_list}: answered grundy {grundy}, recomputed {expected}")
        except Exception as exc:
            wrong.append(f"{item[:3]}: the check failed: {type(exc).__name__}: {exc}")
    return checked, unverifiable, wrong


def job_summary(
    engine: sa.Engine, check: TableCheck, submitted: list[int]
) -> tuple[Counter[str], list[str], list[str]]:
    """Jobs by final status; admin jobs done short of their target (lost values); failed jobs."""
    with engine.connect() as conn:
        rows = conn.execute(sa.select(jobs).order_by(jobs.c.id)).all()
    statuses: Counter[str] = Counter()
    lost, failed = [], []
    store = SequenceStore(engine)
    for row in rows:
        statuses[f"{row.origin} {row.status}"] += 1
        if row.status == "failed":
            failed.append(f"job {row.id} {row.game_id} to {row.upto:,} ({row.origin}): {row.error}")
        if row.status != "done" or row.origin != "admin" or row.kind != "extend":
            continue
        info = store.info(row.game_id, row.family)
        stored = 0 if info is None else info.computed_upto
        certified = info is not None and info.period is not None and info.period.certified
        if stored < row.upto and (row.fill or not certified):
            lost.append(
                f"job {row.id} {row.game_id} to {row.upto:,} is done but {stored:,} values are stored"
            )
    return statuses, lost, failed


# ---- reporting -----------------------------------------------------------------------------------


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, int(len(ordered) * q) - 1))]


def in_outage(moment: float, outages: list[tuple[float, float]]) -> bool:
    return any(begun <= moment <= ended + OUTAGE_GRACE_SECONDS for begun, ended in outages)


def report(
    run: Run,
    record: Record,
    check: TableCheck,
    readback: tuple[int, list[str]],
    observed: tuple[int, int, list[str]],
    jobs_seen: tuple[Counter[str], list[str], list[str]],
    corrupt: int,
) -> bool:
    """Prints the figures; whether the soak passed."""
    print()
    print("== soak: faults and jobs", flush=True)
    for line in run.faults:
        print("  " + line)
    total = sum(record.counts.values())
    by_transport: Counter[str] = Counter()
    by_label: dict[str, Counter[str]] = defaultdict(Counter)
    for (transport, _op, validity, label), n in record.counts.items():
        by_transport[transport] += n
        by_label[label][validity] += n
    print("== soak: figures", flush=True)
    figure("soak: duration (load, warm-up included)", run.seconds, "s")
    figure("soak: worker SIGKILLs (each followed by a new worker)", run.worker_kills, "kills")
    figure("soak: PostgreSQL restarts", run.database_restarts, "restarts")
    figure("soak: requests served", total, "requests")
    for transport in sorted(by_transport):
        figure(f"soak: requests served over {transport}", by_transport[transport], "requests")
    figure("soak: requests per second", total / run.seconds, "requests/s")
    for label in sorted(by_label):
        for validity in ("valid", "invalid"):
            if by_label[label][validity]:
                figure(f"answers {label} ({validity} requests)", by_label[label][validity], "answers")
    for (transport, label), n in sorted(record.slot_errors.items()):
        figure(f"batch slots {label} ({transport})", n, "slots")

    during_restart, own_deadline, unexpected = [], [], []
    for failure in record.failures:
        code = failure[2].split()[-1]
        if code == "UNAVAILABLE" and in_outage(failure[0], run.outages):
            during_restart.append(failure)
        elif code == "DEADLINE_EXCEEDED" and 0 < failure[5] < SERVER_DEADLINE_MS:
            own_deadline.append(failure)
        else:
            unexpected.append(failure)
    lost_track = record.failure_count - len(record.failures)
    figure("5xx (and client failures), all", record.failure_count, "answers")
    figure(
        f"  UNAVAILABLE during a database restart (+{OUTAGE_GRACE_SECONDS:.0f} s)",
        len(during_restart),
        "answers",
    )
    figure("  DEADLINE_EXCEEDED within the client's own short x-deadline-ms", len(own_deadline), "answers")
    figure("5xx and client failures otherwise (must be 0)", len(unexpected) + lost_track, "answers")

    for transport in sorted(record.latencies):
        samples = list(record.latencies[transport])
        figure(f"{transport}: p50 latency, all answers", statistics.median(samples) * 1e3, "ms")
        figure(f"{transport}: p99 latency, all answers", percentile(samples, 0.99) * 1e3, "ms")
        figure(f"{transport}: max latency", max(samples) * 1e3, "ms")
    for (transport, op, label, game), n in record.slow.most_common(15):
        figure(f"slower than {SLOW_SECONDS:.0f} s: {transport} {op} {label} {game}", n, "answers")
    for (transport, op), op_samples in sorted(record.op_latencies.items()):
        figure(
            f"{transport} {op}: p99 latency ({len(op_samples):,} answers)",
            percentile(list(op_samples), 0.99) * 1e3,
            "ms",
        )

    growth = (run.rss_end - run.rss_start) / run.rss_start if run.rss_start else 0.0
    peak = max((r for _, r in run.rss_samples), default=run.rss_end)
    figure("server RSS after warm-up", run.rss_start / 2**20, "MiB")
    figure("server RSS at the end", run.rss_end / 2**20, "MiB")
    figure("server RSS peak (sampled every 5 s)", peak / 2**20, "MiB")
    figure("server RSS change, end vs after warm-up", growth * 100, "%")
    step = max(30.0, run.seconds / 10)
    next_at = 0.0
    for at, size in run.rss_samples:
        if at >= next_at:
            figure(f"server RSS at t={at:.0f} s", size / 2**20, "MiB")
            next_at = at + step
    half = [size for at, size in run.rss_samples if at >= run.seconds / 2]
    if half and run.rss_end:
        figure(
            "server RSS change over the second half of the run", (run.rss_end - half[0]) / half[0] * 100, "%"
        )

    figure("stored tables checked byte for byte", check.tables, "tables")
    figure("stored values checked", check.values, "values")
    figure("certified periods checked", check.periods, "periods")
    figure("stored tables: mismatches", len(check.mismatches), "tables")
    figure("recomputation time", check.seconds, "s")
    figure("values read back through the service (REST sequence)", readback[0], "values")
    figure("read-back mismatches", len(readback[1]), "ranges")
    figure("answered values checked (sample of the run)", observed[0], "answers")
    figure("answered values not checkable (beyond what was recomputed)", observed[1], "answers")
    figure("answered values wrong", len(observed[2]), "answers")
    figure("answers inconsistent on the spot", record.inconsistent_count, "answers")
    figure("invalid requests answered 2xx", record.accepted_invalid_count, "answers")
    statuses, lost, failed = jobs_seen
    for status, n in sorted(statuses.items()):
        figure(f"jobs {status}", n, "jobs")
    figure("admin jobs done with values missing (lost)", len(lost), "jobs")
    figure("corruption reports", corrupt, "reports")

    def examples(title: str, lines: list[str], limit: int = 15) -> None:
        if lines:
            print(f"-- {title} ({len(lines)}; first {min(limit, len(lines))}):")
            for line in lines[:limit]:
                print("   " + line)

    examples(
        "5xx and client failures, outside database restarts and client deadlines",
        [
            f"t={t - run.started:.1f}s {tr} {label}: {req} -> {detail}"
            for t, tr, label, req, detail, _ in unexpected
        ],
        25,
    )
    if unexpected:
        print("   by transport, method and code:")
    by_kind = Counter((tr, label, req.split()[0]) for _, tr, label, req, _, _ in unexpected)
    for (tr, label, op), n in by_kind.most_common(20):
        print(f"   {n:>8,}  {tr} {op} {label}")
    examples(
        "UNAVAILABLE during database restarts (expected)",
        [
            f"t={t - run.started:.1f}s {tr} {label}: {req} -> {detail}"
            for t, tr, label, req, detail, _ in during_restart
        ],
        5,
    )
    examples(
        "DEADLINE_EXCEEDED within the client's own x-deadline-ms (expected)",
        [
            f"t={t - run.started:.1f}s {tr} {label}: {req} -> {detail}"
            for t, tr, label, req, detail, _ in own_deadline
        ],
        5,
    )
    examples("table mismatches", check.mismatches)
    examples("read-back mismatches", readback[1])
    examples("wrong answered values", observed[2])
    examples("inconsistent answers", [f"{t} {r}: {w}" for t, r, w in record.inconsistent])
    examples("invalid requests answered 2xx", [f"{t} {r}" for t, r in record.accepted_invalid])
    examples(
        "valid requests refused with 400 (check the request mix)",
        [f"{t} {r}: {d}" for t, r, d in record.refused_valid],
    )
    examples("admin jobs with lost values", lost)
    examples("failed jobs", failed)
    if run.server_died:
        print(f"-- {run.server_died}")

    problems = []
    if unexpected or lost_track:
        problems.append(f"{len(unexpected) + lost_track} 5xx or client failures")
    if check.mismatches or readback[1] or observed[2] or lost or record.inconsistent_count:
        problems.append("wrong or lost values")
    if growth > RSS_GROWTH_LIMIT:
        problems.append(f"server RSS grew {growth * 100:.1f} % (limit {RSS_GROWTH_LIMIT * 100:.0f} %)")
    if run.server_died:
        problems.append(run.server_died)
    print("== soak: " + ("PASSED" if not problems else "FAILED: " + "; ".join(problems)), flush=True)
    return not problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="length of the load (default 600)")
    parser.add_argument("--database-url", help="a PostgreSQL server to create the soak's database on")
    parser.add_argument("--processes", type=int, default=2, help="client processes (default 2)")
    parser.add_argument("--threads", type=int, default=4, help="client threads per process (default 4)")
    parser.add_argument(
        "--drain-seconds", type=float, default=300.0, help="how long open jobs may run after the load"
    )
    parser.add_argument(
        "--warmup",
        type=float,
        default=None,
        help="seconds of load before the start RSS is taken and faults begin (default: 10 %% of it, 10..60)",
    )
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    settings = Settings.from_env()
    logs = settings.var_dir / "soak" / time.strftime("%Y%m%d-%H%M%S")
    logs.mkdir(parents=True, exist_ok=True)
    warmup = args.warmup if args.warmup is not None else min(60.0, max(10.0, args.seconds * 0.1))
    run = Run(seconds=args.seconds, warmup=warmup)
    log(f"seed {seed}; logs in {logs}")

    database: Any = ExternalPostgres(args.database_url) if args.database_url else EmbeddedPostgres()
    drop: Callable[[], None] = lambda: None  # noqa: E731
    services: Services | None = None
    try:
        url, drop = create_database(database.server_url)
        service_url = database.proxied(url) if isinstance(database, ExternalPostgres) else url
        log(f"database: {database.description}")
        services = Services(service_url, logs)
        services.start_server()
        services.start_worker()
        for game, upto, fill in INITIAL_JOBS:
            job = admin_call(
                services.http_base, "POST", "/v1/jobs", {"game": game, "upto": upto, "fill": fill}
            )
            run.submitted.append(int(job["id"]))
        log(
            f"server {services.http_base} / {services.grpc_target}; {len(INITIAL_JOBS)} jobs queued; "
            f"load for {args.seconds:.0f} s"
        )

        stop_faults = threading.Event()
        fault_thread = threading.Thread(
            target=run_faults, args=(run, rng, services, database, stop_faults), name="faults", daemon=True
        )
        record = run_load(run, services, args.processes, args.threads, seed, fault_thread.start)
        stop_faults.set()
        fault_thread.join(timeout=180)
        log(f"load over: {sum(record.counts.values()):,} requests; letting the open jobs finish")

        engine = create_engine(url)
        drain(services, engine, args.drain_seconds)
        check = check_tables(engine)
        readback = read_back(services.http_base, check)
        observed = check_observations(record, check)
        jobs_seen = job_summary(engine, check, run.submitted)
        with engine.connect() as conn:
            corrupt = int(
                conn.execute(sa.select(sa.func.count()).select_from(corruption_reports)).scalar_one()
            )
        engine.dispose()
        passed = report(run, record, check, readback, observed, jobs_seen, corrupt)
        return 0 if passed else 1
    finally:
        if services is not None:
            services.stop()
        database.keep_log(logs)
        drop()
        database.close()
        log(f"logs kept in {logs}")


if __name__ == "__main__":
    sys.exit(main())
