"""The hostile load of issue 23 beside the soak's mixed load, and its report against the targets.

Expensive live requests with a short deadline (the kinds of bench.bench_isolation, from its own code),
the request of defect 1 at full size over both transports every few seconds (each one takes a live
process to its memory cap, and the process is replaced), and cheap Nim lookups (checked against the
nim-sum) and /healthz, whose latency is what the targets bound: cheap p99 and /healthz p99 <= 100 ms,
every expensive request answered by its deadline + 250 ms. The load is a phase: it starts with the soak
(so the server's memory after warm-up holds what it costs) and ends halfway (so the second half checks
that the memory stays flat once it is over, and the mixed load's live requests are served again).

While it holds every live process, the mixed load's live requests without a short deadline of their own
wait for one up to the server's cap and get DEADLINE_EXCEEDED (naming NIMBASE_LIMITS_LIVE_PROCESSES, or
the computation that no longer fits in what is left): the report counts those apart
(bench.soak_report.in_hostile_phase), in the phase and up to one server deadline after it.

A failure here counts against the soak as the mixed load's do: anything but a 2xx or 4xx, except
DEADLINE_EXCEEDED of an expensive request (its own short deadline) and UNAVAILABLE during a database
restart; a wrong Nim value is a wrong answer.
"""

from __future__ import annotations

import multiprocessing
from collections import Counter
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field

from bench.bench_isolation import (
    CHEAP_CLIENTS,
    DEADLINE_S,
    TARGET_P99_MS,
    TARGET_PAST_MS,
    Sample,
    cheap_grpc,
    cheap_rest,
    expensive_load,
    figures,
    health,
    late_text,
    loop_lag_figures,
    runaway_load,
    targets_line,
)
from bench.common import figure
from bench.soak_faults import Run
from bench.soak_report import in_outage

#: Outcomes of an expensive request that are its answer: refused (4xx), or past its own short deadline.
DEADLINE_OUTCOMES = {"504", "DEADLINE_EXCEEDED"}
UNAVAILABLE_OUTCOMES = {"503", "UNAVAILABLE"}
#: How often the request of defect 1 is sent (over both transports).
RUNAWAY_EVERY_S = 10.0
#: The share of the soak the hostile phase lasts (from its start).
PHASE_SHARE = 0.5


def _answered(outcome: str) -> bool:
    """A 2xx or 4xx HTTP status, or a gRPC code that is the client's (or OK)."""
    if outcome.isdigit():
        return int(outcome) < 500
    return outcome in {
        "OK",
        "INVALID_ARGUMENT",
        "NOT_FOUND",
        "RESOURCE_EXHAUSTED",
        "FAILED_PRECONDITION",
        "OUT_OF_RANGE",
        "PERMISSION_DENIED",
        "UNAUTHENTICATED",
    }


def _explained(outcome: str, at: float, expensive: bool, run: Run) -> bool:
    """Whether an outcome (answered at `at`) is an answer: 2xx or 4xx, UNAVAILABLE while the database
    restarts, or an expensive request's DEADLINE_EXCEEDED (its own short deadline)."""
    if _answered(outcome):
        return True
    if outcome in UNAVAILABLE_OUTCOMES and in_outage(at, run.outages):
        return True
    return expensive and outcome in DEADLINE_OUTCOMES


@dataclass
class HostileSamples:
    expensive: list[Sample] = field(default_factory=list)
    runaway: list[Sample] = field(default_factory=list)
    rest: list[Sample] = field(default_factory=list)
    grpc: list[Sample] = field(default_factory=list)
    healthz: list[Sample] = field(default_factory=list)
    #: The server's event loop's late ticks since it started (bench.bench_isolation.loop_lag_figures).
    loop_lag: dict[str, float] = field(default_factory=dict)


class HostileLoad:
    """The load's client processes (spawned: they share no GIL with the soak's), started and collected."""

    def __init__(self, base: str, target: str, clients: int, seed: int) -> None:
        self._base, self._target, self._clients, self._seed = base, target, clients, seed
        self._pool: ProcessPoolExecutor | None = None
        self._futures: dict[str, Future[list[Sample]]] = {}

    def start(self, seconds: float) -> None:
        """The phase, `seconds` long from now."""
        self._pool = ProcessPoolExecutor(5, mp_context=multiprocessing.get_context("spawn"))
        base, target, pool = self._base, self._target, self._pool
        self._futures = {
            "expensive": pool.submit(expensive_load, base, seconds, self._clients, DEADLINE_S, self._seed),
            "runaway": pool.submit(runaway_load, base, target, seconds, RUNAWAY_EVERY_S),
            "rest": pool.submit(cheap_rest, base, seconds, CHEAP_CLIENTS, self._seed),
            "grpc": pool.submit(cheap_grpc, target, seconds, CHEAP_CLIENTS, self._seed),
            "healthz": pool.submit(health, base, seconds),
        }

    def collect(self, patience: float = 120.0) -> HostileSamples:
        """Every client's samples (a client that sent none, or failed, gives none)."""
        samples = HostileSamples()
        for name, future in self._futures.items():
            try:
                setattr(samples, name, future.result(timeout=patience))
            except Exception as exc:  # a client process that died: reported, not fatal to the soak
                print(f"[soak] the hostile {name} clients failed: {type(exc).__name__}: {exc}", flush=True)
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        samples.loop_lag = loop_lag_figures(self._base)
        return samples


def hostile_report(samples: HostileSamples, run: Run) -> list[str]:
    """Prints the figures beside the targets; the problems that fail the soak (failures, wrong values)."""
    print("== soak: hostile load (issue 23) beside the mixed load", flush=True)
    expensive = samples.expensive + samples.runaway
    results = figures(samples.rest, samples.grpc, samples.healthz, expensive, DEADLINE_S)
    for key, value in {**results, **samples.loop_lag}.items():
        figure(f"hostile: {key}", value, "")
    print("  " + targets_line(), flush=True)
    missed = [
        name
        for name, value, bound in (
            ("cheap REST p99", results["cheap REST p99 (ms)"], TARGET_P99_MS),
            ("cheap gRPC p99", results["cheap gRPC p99 (ms)"], TARGET_P99_MS),
            ("/healthz p99", results["/healthz p99 (ms)"], TARGET_P99_MS),
        )
        if not value <= bound
    ]
    if results["expensive requests past deadline + 250 ms"]:
        missed.append("expensive requests past their deadline + 250 ms")
        for sample in expensive:
            if (sample.took - DEADLINE_S) * 1e3 > TARGET_PAST_MS:
                at = sample.sent - run.started
                print(
                    f"  t={at:6.1f} s  late by {late_text(sample)}: {sample.outcome} {sample.detail}",
                    flush=True,
                )
    print("  targets " + ("met" if not missed else "missed: " + ", ".join(missed)), flush=True)
    figure("hostile: defect 1 requests (both transports)", len(samples.runaway), "requests")
    outcomes: Counter[str] = Counter(sample[2] for sample in samples.runaway)
    for outcome, n in sorted(outcomes.items()):
        figure(f"hostile: defect 1 answered {outcome}", n, "answers")

    unexplained: list[Sample] = []
    wrong = 0
    for group in (expensive, samples.rest, samples.grpc, samples.healthz):
        for sample in group:
            sent, seconds, outcome = sample.sent, sample.took, sample.outcome
            if outcome == "WRONG":
                wrong += 1
            elif not _explained(outcome, sent + seconds, group is expensive, run):
                unexplained.append(sample)
    figure("hostile: 5xx and client failures otherwise (must be 0)", len(unexplained), "answers")
    figure("hostile: cheap Nim values wrong (must be 0)", wrong, "answers")
    for sample in unexplained[:15]:
        at, seconds = sample.sent - run.started, sample.took
        print(f"  t={at:6.1f} s  {sample.outcome} after {seconds:.2f} s: {sample.detail}", flush=True)
    problems = []
    if unexplained:
        problems.append(f"{len(unexplained)} 5xx or client failures under the hostile load")
    if wrong:
        problems.append(f"{wrong} wrong Nim values under the hostile load")
    if not samples.rest or not samples.grpc or not samples.healthz:
        problems.append("a group of hostile clients sent nothing")
    return problems
