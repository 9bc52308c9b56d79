"""The faults the soak injects, and the jobs it queues, at random moments of the run.

After warm-up, a thread kills the worker (SIGKILL, then a new one) and restarts PostgreSQL, at least
8 s apart; it queues more jobs over the run, cancels one, and samples the server's RSS. `Run` records
what happened and when, so the report can tell the answers given during an outage from the rest.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from bench.soak_memory import (
    CACHE_SAMPLE_SECONDS,
    CACHE_SAMPLE_TIMEOUT,
    CacheFigures,
    cache_bytes,
    read_caches,
)
from bench.soak_services import Services, admin_call, log, rss

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
    #: The server's in-process caches (its /metrics gauges) after warm-up and at the end.
    caches_start: dict[str, CacheFigures] = field(default_factory=dict)
    caches_end: dict[str, CacheFigures] = field(default_factory=dict)
    #: (run seconds, bytes of every cache bounded by bytes, of the array caches), beside `rss_samples`.
    cache_samples: list[tuple[float, int, int]] = field(default_factory=list)
    submitted: list[int] = field(default_factory=list)
    cancelled: list[int] = field(default_factory=list)
    server_died: str | None = None
    #: When the hostile load's phase ends (time.time(); 0: no hostile load).
    hostile_until: float = 0.0

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
    """Carries out the scheduled events and samples the server's RSS every 5 s (its caches' bytes every
    `CACHE_SAMPLE_SECONDS`)."""
    events = schedule(
        run, rng, kills=max(2, int(run.seconds // 100)), restarts=max(2, int(run.seconds // 120))
    )
    to_cancel: list[int] = []
    pending_worker_start: float | None = None
    next_rss = next_caches = 0.0
    assert services.server is not None
    while not stop.is_set():
        now = time.time() - run.started
        if services.server.poll() is not None and run.server_died is None:
            run.server_died = f"the server exited with {services.server.returncode} at t={now:.1f} s"
            run.note(run.server_died)
        if now >= next_rss and services.server.poll() is None:
            run.rss_samples.append((now, rss(services.server.pid)))
            if now >= next_caches:
                caches = read_caches(services.http_base, CACHE_SAMPLE_TIMEOUT)
                if caches:
                    arrays = cache_bytes(caches, only_arrays=True)
                    run.cache_samples.append((now, cache_bytes(caches), arrays))
                next_caches = now + CACHE_SAMPLE_SECONDS
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
