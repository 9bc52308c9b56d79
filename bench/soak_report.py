"""The soak's report: the figures of the run, examples of what went wrong, and whether it passed.

A 5xx counts against the soak unless it is UNAVAILABLE during a database restart (or shortly after), a
DEADLINE_EXCEEDED within a client's own short deadline, one while the hostile load (bench.soak_hostile)
held every live process, or one whose answer says its time went waiting for a live process; wrong or
lost values, a dead server and RSS growth beyond the limit (net of what the caches of arrays gained,
bench.soak_memory) fail it too.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence

from bench.common import figure
from bench.soak_checks import TableCheck
from bench.soak_faults import Run
from bench.soak_load import SLOW_SECONDS, Record
from bench.soak_memory import (
    RSS_GROWTH_LIMIT,
    RSS_WINDOW_SECONDS,
    Growth,
    array_cache_gain,
    report_caches,
    rss_growth,
    window_median,
)
from service.isolation import PROCESSES_SETTING

#: UNAVAILABLE is the documented answer while PostgreSQL is down; it is expected from the moment a
#: restart begins until this many seconds after the database is back.
OUTAGE_GRACE_SECONDS = 10.0
#: The server's own cap on a request's time (NIMBASE_LIMITS_REQUEST_SECONDS, default), in ms.
SERVER_DEADLINE_MS = 10_000
#: Seconds of RSS samples compared before a database restart and after it (`restart_steps`).
RSS_STEP_SECONDS = 30.0


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, int(len(ordered) * q) - 1))]


def in_outage(moment: float, outages: list[tuple[float, float]]) -> bool:
    return any(begun <= moment <= ended + OUTAGE_GRACE_SECONDS for begun, ended in outages)


def in_hostile_phase(moment: float, run: Run) -> bool:
    """Answered while the hostile load held every live process (or up to one server deadline after its
    phase): a live request then waits for a process, and what is left of its deadline may not suffice."""
    ended = run.hostile_until + SERVER_DEADLINE_MS / 1000 + OUTAGE_GRACE_SECONDS
    return run.hostile_until > 0 and run.started <= moment <= ended


def waited_for_processes(message: str) -> bool:
    """Whether a DEADLINE_EXCEEDED says its request's time went waiting for one of the live processes,
    which other requests held (service.isolation names their setting then): the pool's bounded capacity,
    which the mixed load's own live requests may fill, not a deadline the server failed to keep."""
    return PROCESSES_SETTING in message


def restart_steps(run: Run) -> list[tuple[float, float]]:
    """For each database restart (from its start, in run seconds): the median of the RSS samples in the
    `RSS_STEP_SECONDS` after it is back (from `OUTAGE_GRACE_SECONDS` on) minus the median of those in the
    `RSS_STEP_SECONDS` before it began, in bytes; so a step the restart leaves is told from the noise."""
    steps: list[tuple[float, float]] = []
    for begun, ended in run.outages:
        start, back = begun - run.started, ended - run.started + OUTAGE_GRACE_SECONDS
        before = [size for at, size in run.rss_samples if start - RSS_STEP_SECONDS <= at < start]
        after = [size for at, size in run.rss_samples if back <= at < back + RSS_STEP_SECONDS]
        if before and after:
            steps.append((start, statistics.median(after) - statistics.median(before)))
    return steps


def windows(run: Run) -> list[tuple[str, float, float]]:
    """The two stretches of run seconds whose RSS samples are compared: after warm-up and at the end."""
    return [
        ("after warm-up", run.warmup, run.warmup + RSS_WINDOW_SECONDS),
        ("at the end", run.seconds - RSS_WINDOW_SECONDS, float("inf")),
    ]


def memory_growth(run: Run) -> Growth:
    """The server's RSS growth from its median after warm-up to its median at the end (the single samples
    where there are none), raw and net of what the array caches gained between the same stretches."""
    rss_at = [window_median(run.rss_samples, begin, end) for _, begin, end in windows(run)]
    arrays = [(at, float(held)) for at, _, held in run.cache_samples]
    held_at = [window_median(arrays, begin, end) for _, begin, end in windows(run)]
    start = rss_at[0] if rss_at[0] is not None else run.rss_start
    end = rss_at[1] if rss_at[1] is not None else run.rss_end
    if held_at[0] is not None and held_at[1] is not None:
        gained = int(held_at[1] - held_at[0])
    elif run.caches_start and run.caches_end:
        gained = array_cache_gain(run.caches_start, run.caches_end)
    else:
        gained = 0
    return rss_growth(start, end, gained)


def report(
    run: Run,
    record: Record,
    check: TableCheck,
    readback: tuple[int, list[str]],
    observed: tuple[int, int, list[str]],
    jobs_seen: tuple[Counter[str], list[str], list[str]],
    corrupt: int,
    more_problems: Sequence[str] = (),
) -> bool:
    """Prints the figures; whether the soak passed (`more_problems`: found by the hostile load)."""
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

    during_restart, own_deadline, pool_busy, waited, unexpected = [], [], [], [], []
    for failure in record.failures:
        code = failure[2].split()[-1]
        if code == "UNAVAILABLE" and in_outage(failure[0], run.outages):
            during_restart.append(failure)
        elif code == "DEADLINE_EXCEEDED" and 0 < failure[5] < SERVER_DEADLINE_MS:
            own_deadline.append(failure)
        elif code == "DEADLINE_EXCEEDED" and in_hostile_phase(failure[0], run):
            pool_busy.append(failure)
        elif code == "DEADLINE_EXCEEDED" and waited_for_processes(failure[4]):
            waited.append(failure)
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
    figure("  DEADLINE_EXCEEDED while the hostile load held the live processes", len(pool_busy), "answers")
    figure(
        f"  DEADLINE_EXCEEDED after a wait for the live processes ({PROCESSES_SETTING})",
        len(waited),
        "answers",
    )
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

    growth = memory_growth(run)
    peak = max((r for _, r in run.rss_samples), default=run.rss_end)
    figure("server RSS after warm-up (one sample)", run.rss_start / 2**20, "MiB")
    figure("server RSS at the end (one sample)", run.rss_end / 2**20, "MiB")
    for name, begin, end in windows(run):
        median = window_median(run.rss_samples, begin, end)
        if median is not None:
            figure(f"server RSS {name} (median over {RSS_WINDOW_SECONDS:.0f} s)", median / 2**20, "MiB")
    figure("server RSS peak (sampled every 5 s)", peak / 2**20, "MiB")
    figure("server RSS change, end vs after warm-up (medians)", growth.raw * 100, "%")
    figure("  of which the array caches' gain, within their budgets", growth.caches / 2**20, "MiB")
    figure(
        f"server RSS change net of it (judged: at most {RSS_GROWTH_LIMIT * 100:.0f} %)", growth.net * 100, "%"
    )
    report_caches(run.caches_start, run.caches_end)
    step = max(30.0, run.seconds / 10)
    next_at = 0.0
    for at, size in run.rss_samples:
        if at >= next_at:
            figure(f"server RSS at t={at:.0f} s", size / 2**20, "MiB")
            caches = [sample for sample in run.cache_samples if sample[0] <= at]
            if caches:
                when, held, arrays = caches[-1]
                figure(f"  its caches at t={when:.0f} s, all", held / 2**20, "MiB")
                figure(f"  its caches at t={when:.0f} s, of arrays", arrays / 2**20, "MiB")
            next_at = at + step
    for at, change in restart_steps(run):
        figure(f"server RSS step across the database restart at t={at:.0f} s", change / 2**20, "MiB")
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
    examples(
        "DEADLINE_EXCEEDED after a wait for the live processes (expected: the pool is bounded)",
        [
            f"t={t - run.started:.1f}s {tr} {label}: {req} -> {detail}"
            for t, tr, label, req, detail, _ in waited
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

    problems = list(more_problems)
    if unexpected or lost_track:
        problems.append(f"{len(unexpected) + lost_track} 5xx or client failures")
    if check.mismatches or readback[1] or observed[2] or lost or record.inconsistent_count:
        problems.append("wrong or lost values")
    if growth.net > RSS_GROWTH_LIMIT:
        problems.append(
            f"server RSS grew {growth.raw * 100:.1f} %, {growth.net * 100:.1f} % net of the array caches' "
            f"gain of {growth.caches / 2**20:.1f} MiB (limit {RSS_GROWTH_LIMIT * 100:.0f} %)"
        )
    if run.server_died:
        problems.append(run.server_died)
    print("== soak: " + ("PASSED" if not problems else "FAILED: " + "; ".join(problems)), flush=True)
    return not problems
