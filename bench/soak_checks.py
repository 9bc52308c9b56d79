"""The soak's checks once the load is over: nothing stored or answered may be wrong or lost.

The open jobs are given time to finish (the rest cancelled); every stored table is recomputed by the
engine's kernels and compared byte for byte, the heap tables are read back through the service, the
values answered during the run (a sample) are checked against the recomputation, and every admin job
done must have stored what it was asked for.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

import httpx
import numpy as np
import sqlalchemy as sa
from numpy.typing import NDArray

from bench.soak_load import Record, asked_text, normal_heap_game
from bench.soak_services import Services, admin_call, log
from engine.kind import SequenceKernel
from engine.periods import Period
from engine.registry import parse_game_id
from kinds.wythoff.kernels.tiles import PAIRS, value_index
from kinds.wythoff.kind import is_p_pair
from storage.schema import jobs
from storage.sequences import SequenceStore

#: Values one read-back call asks for (NIMBASE_LIMITS_SEQUENCE_VALUES is 1,000,000).
READ_BACK_VALUES = 500_000


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
                _, game, heaps, grundy, how = item
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
                        f"recomputed {expected} ({asked_text(how)})"
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
