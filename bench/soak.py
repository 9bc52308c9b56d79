"""Soak: minutes of mixed load while a worker is SIGKILLed and PostgreSQL restarted at random moments.

`make soak` (or `python -m bench.soak [--seconds N] [--database-url URL]`) starts its own PostgreSQL
(an embedded pgserver in a temporary directory, restarted with `pg_ctl`; with `--database-url`, a
server it cannot restart, so a TCP proxy in front of it is cut for a few seconds instead), migrates a
fresh database, and runs one `nimbase serve` and one `nimbase worker` on loopback. Precompute jobs are
queued at the start and over time, so the worker has real work while it is killed. Client processes
send gRPC and REST requests (values, best moves, P-positions, batches, streamed batches, sequences,
stats, jobs) on stored, periodic, formula and live positions, and invalid ones that must get a 4xx.
Beside them runs the hostile load of issue 23 (`bench.soak_hostile`): expensive live requests with short
deadlines, the runaway request of defect 1, and cheap lookups and /healthz timed against their targets.
Once the load is over, 100 silent and then 100 slow readers of a million values each come for a few seconds
while cheap lookups are timed (`bench.bench_slow_readers`, issue 31).

At the end the load stops, the open jobs are given time to finish (the rest are cancelled), and every
stored table is compared byte for byte with a recomputation by the engine's kernels; the service reads
every heap table back over REST, and a sample of the values answered during the run is checked too.
It prints requests served, answers by code, 5xx (those given while PostgreSQL was restarting apart),
p50/p99 latency per transport, the server's RSS after warm-up, at the end and its step across each
database restart beside its in-process caches (their `/metrics` gauges), and the checks; it exits non-zero
on any 5xx outside a database restart, any wrong or lost value, or RSS growth beyond 20 % net of what the
caches of arrays gained within their budgets (bench.soak_memory says why).
Logs (server, workers, PostgreSQL) are kept under NIMBASE_VAR_DIR/soak/<time>/.

This module runs it (`main`, the load over time); the database is in `bench.soak_database`, the server
and worker processes in `bench.soak_services`, the client load in `bench.soak_load`, the faults in
`bench.soak_faults`, the final checks in `bench.soak_checks`, the report in `bench.soak_report` and its
memory figures in `bench.soak_memory`.
"""

from __future__ import annotations

import argparse
import multiprocessing
import queue
import random
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from bench.bench_isolation import EXPENSIVE_CLIENTS
from bench.bench_slow_readers import soak_phase
from bench.soak_checks import check_observations, check_tables, drain, job_summary, read_back
from bench.soak_database import EmbeddedPostgres, ExternalPostgres, create_database
from bench.soak_faults import Run, run_faults
from bench.soak_hostile import PHASE_SHARE, HostileLoad, HostileSamples, hostile_report
from bench.soak_load import Record, load_process, merge
from bench.soak_memory import cache_bytes, read_caches
from bench.soak_report import report
from bench.soak_services import Services, admin_call, log, rss
from nimbase.settings import Settings
from storage.database import create_engine
from storage.schema import corruption_reports

#: Jobs queued before the load starts: (game, upto, fill). Wythoff's upto is the side of its table.
INITIAL_JOBS: tuple[tuple[str, int, bool], ...] = (
    ("grundy", 1 << 22, False),
    ("subtraction:2,5,7", 1 << 22, True),
    ("wythoff", 1024, False),
    ("octal:0.6", 1 << 21, False),
    ("octal:0.16", 1 << 21, False),
)


def run_load(
    run: Run,
    services: Services,
    processes: int,
    threads: int,
    seed: int,
    faults: Callable[[], None],
    hostile: HostileLoad | None = None,
) -> Record:
    """The load for run.seconds (warm-up included), with the `hostile` load beside it if given; `faults`
    is started once warm-up is over."""
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
    if hostile is not None:
        hostile_seconds = run.seconds * PHASE_SHARE
        run.hostile_until = run.started + hostile_seconds
        hostile.start(hostile_seconds)
    assert services.server is not None
    time.sleep(run.warmup)
    run.rss_start = rss(services.server.pid)
    run.caches_start = read_caches(services.http_base)
    log(
        f"warm-up over: server RSS {run.rss_start / 2**20:.1f} MiB, its caches "
        f"{cache_bytes(run.caches_start) / 2**20:.1f} MiB; faults begin"
    )
    faults()
    while time.time() - run.started < run.seconds:
        time.sleep(0.5)
    stop.set()
    if services.server.poll() is None:
        run.rss_end = rss(services.server.pid)
        run.caches_end = read_caches(services.http_base)
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
    parser.add_argument(
        "--hostile-clients",
        type=int,
        default=EXPENSIVE_CLIENTS,
        help="clients of expensive live requests beside the load over its first half, with the runaway "
        f"request, cheap lookups and /healthz timed against their targets (default {EXPENSIVE_CLIENTS}; "
        "0: none)",
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
        hostile = (
            HostileLoad(services.http_base, services.grpc_target, args.hostile_clients, seed)
            if args.hostile_clients > 0
            else None
        )
        record = run_load(run, services, args.processes, args.threads, seed, fault_thread.start, hostile)
        hostile_samples = hostile.collect() if hostile is not None else None
        stop_faults.set()
        fault_thread.join(timeout=180)
        readers = (
            soak_phase(services.http_base, services.grpc_target, services.server.pid)
            if services.server
            else []
        )
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
        more = hostile_report(hostile_samples, run) if isinstance(hostile_samples, HostileSamples) else []
        more += readers
        passed = report(run, record, check, readback, observed, jobs_seen, corrupt, more)
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
