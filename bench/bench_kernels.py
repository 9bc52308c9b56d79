"""Kernel benchmarks, each figure beside its target and the previous kernel's (run at its commit,
bench.at_commit.BEFORE_LAYOUT, from a temporary worktree).

Run: python -m bench.bench_kernels [--help]

- Grundy's game: time to every value below 2^k, the cost per value of each doubling (new kernel to
  2^24, the previous one to 2^22 in the same run), and where the time of the last doubling goes: the
  rare × common pass against the check of rare candidates.
- 0.6 (unsolved): kernel time to 2^23 (the previous kernel to 2^21 in the same run).
- 0.376: certified the way a worker job does it (the worker's step sizes, kernel then certification
  after every step), and as a real worker job in a fresh database (with storage).
- 0.6 to 2^23 as a real worker job (kernel + storage).
- Wythoff: the Grundy table of side 8192, both kernels.
- Kayles, Dawson's Kayles, 0.137, 0.16, 0.56: periods certified from an empty table.

Wall-clock seconds come first, this process's CPU seconds in brackets: on a loaded machine the CPU
time is the steadier figure. A previous-kernel figure is measured in the same run where that is
affordable, else extrapolated from a measured doubling (the cost per value is flat) and labelled so;
RECORDED holds the figures measured before the change, printed where nothing else compares.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from functools import partial
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from bench.at_commit import BEFORE_LAYOUT, run_at, seconds_at
from bench.rare_common_phases import phase_split
from kinds.heaps.grundy import GRUNDY_RULES, GrundyGame
from kinds.heaps.kernels.rare_common import sparse_extend
from kinds.heaps.kernels.rare_mask import choose_sparseness, last_rare_at
from kinds.heaps.octal import OctalGame
from kinds.wythoff.kernels.table import wythoff_table

EMPTY = np.zeros(0, dtype=np.uint32)
T = TypeVar("T")

#: Figures measured before this change (the previous kernels, same machine: 2 cores, loaded by
#: other jobs; wall-clock seconds).
RECORDED = {
    "grundy_2^22": 13.90,  # flat at 3.1-3.5 µs/value from 2^17 on; 2^23 about 29 s
    "0.6_2^21": 7.39,
    "0.376_kernel_2^20": 8.92,  # CPU seconds, 11 µs/value at the end; its certification was
    # quadratic in the multiples of the period past the preperiod (minutes per step past 4.5 M)
    "wythoff_4096": 3.22,
    "wythoff_8192": 25.80,
}
#: The issue's targets (seconds, one core).
TARGETS = {"grundy_2^23": 40.0, "0.6_2^23": 40.0, "0.376": 120.0, "wythoff_8192": 60.0}


def timed(work: Callable[[], T]) -> tuple[T, float, float]:
    """(result, wall seconds, CPU seconds of this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def line(name: str, wall: float, cpu: float, compare: str) -> None:
    print(f"{name:<40} {wall:8.2f} s ({cpu:7.2f} s CPU)   {compare}", flush=True)


def warm_up() -> None:
    """Load (or compile) every numba kernel once, so the timings below are of the computation."""
    GrundyGame().kernel().extend(EMPTY, 5000)
    OctalGame("0.6").kernel().extend(EMPTY, 12000)  # uint8, then uint16 copies past 255
    OctalGame("0.77").kernel().solve(1 << 10)
    OctalGame("0.16").kernel().extend(EMPTY, 5000)
    values = GrundyGame().kernel().extend(EMPTY, 3000)
    phase_split(values, 2000, GRUNDY_RULES, choose_sparseness(values[:2000], (0,)))
    wythoff_table(64)


def doublings(rules_code: str, top: int) -> tuple[NDArray[np.uint32], dict[int, tuple[float, float, float]]]:
    """Values below 2^top grown doubling by doubling from 2^16: {k: (total wall, doubling wall, cpu)}."""
    rules = GRUNDY_RULES if rules_code == "grundy" else OctalGame(rules_code).rules
    values = EMPTY
    out: dict[int, tuple[float, float, float]] = {}
    total = 0.0
    for exp in range(16, top + 1):
        values, wall, cpu = timed(partial(sparse_extend, values, 1 << exp, rules))
        total += wall
        out[exp] = (total, wall, cpu)
    return values, out


#: The same doublings by the previous kernel, as its commit ran it (the `previous` flag it had then).
_DOUBLINGS_BEFORE = """
import json, time
import numpy as np
from engine.games.grundy import GRUNDY_RULES
from engine.games.octal import OctalGame
from engine.kernels.rare_common import sparse_extend
rules = GRUNDY_RULES if CODE == "grundy" else OctalGame(CODE).rules
values = np.zeros(0, dtype=np.uint32)
sparse_extend(values, 5000, rules, previous=True)
out, total = {}, 0.0
for exp in range(16, TOP + 1):
    wall, cpu = time.perf_counter(), time.process_time()
    values = sparse_extend(values, 1 << exp, rules, previous=True)
    took = time.perf_counter() - wall
    total += took
    out[exp] = (total, took, time.process_time() - cpu)
print(json.dumps(out))
"""


def doublings_before(rules_code: str, top: int) -> dict[int, tuple[float, float, float]]:
    """`doublings` by the previous kernel, run at its commit (bench.at_commit)."""
    if top < 16:
        return {}
    code = f"CODE, TOP = {rules_code!r}, {top}\n{_DOUBLINGS_BEFORE}"
    found = json.loads(run_at(BEFORE_LAYOUT, code).splitlines()[-1])
    return {int(exp): (total, took, cpu) for exp, (total, took, cpu) in found.items()}


def fresh_count(exp: int) -> int:
    return (1 << exp) - (1 << (exp - 1)) if exp > 16 else 1 << exp


def bench_grundy(top: int, previous_top: int) -> None:
    values, new = doublings("grundy", top)
    old = doublings_before("grundy", previous_top)
    print(f"grundy: per doubling, new kernel | previous kernel (same run, at {BEFORE_LAYOUT})", flush=True)
    for exp in range(16, top + 1):
        total, wall, cpu = new[exp]
        text = (
            f"  n < 2^{exp}: total {total:7.2f} s, doubling {wall:6.2f} s = "
            f"{wall / fresh_count(exp) * 1e6:5.2f} µs/value ({cpu / fresh_count(exp) * 1e6:5.2f} CPU)"
        )
        if exp in old:
            o_total, o_wall, o_cpu = old[exp]
            text += (
                f" | total {o_total:7.2f} s, {o_wall / fresh_count(exp) * 1e6:5.2f} µs/value "
                f"({o_cpu / fresh_count(exp) * 1e6:5.2f} CPU)"
            )
        print(text, flush=True)
    how = choose_sparseness(values, (0,))
    print(
        f"  max value {int(values.max())}, rare {how.rare} under mask {how.mask:#x} (flip {how.flip}, heap "
        f"parity {how.heap_parity}), last rare at {last_rare_at(values, how)}",
        flush=True,
    )
    if 23 in new:
        total, _, _ = new[23]
        cpu = sum(new[e][2] for e in range(16, 24))
        if 23 in old:
            previous = f"previous kernel {old[23][0]:.2f} s (same run, at {BEFORE_LAYOUT})"
        elif old:
            last = max(old)
            scale = (1 << 23) - (1 << last)
            per_value = old[last][1] / fresh_count(last)
            previous = (
                f"previous kernel ~{old[last][0] + scale * per_value:.1f} s (2^{last} measured, extrapolated)"
            )
        else:
            previous = f"previous kernel ~{2 * RECORDED['grundy_2^22']:.0f} s (recorded before the change)"
        line(
            "grundy n < 2^23",
            total,
            cpu,
            f"target ≤ {TARGETS['grundy_2^23']:.0f} s; {previous}; C++ programs 54-64 s (issue)",
        )
    # Where the time of the last doubling to 2^22 goes, values known beforehand.
    exp = min(top, 22)
    start = 1 << (exp - 1)
    part = values[: 1 << exp]
    how = choose_sparseness(part[:start], (0,))
    split = phase_split(part, start, GRUNDY_RULES, how)
    print(
        f"grundy 2^{exp - 1}..2^{exp}: {split.total:.2f} s CPU = rare × common pass "
        f"{split.rare_common:.2f} s ({100 * split.rare_common / max(split.total, 1e-9):.0f}%) + check "
        f"of rare candidates {split.check:.2f} s ({100 * split.check / max(split.total, 1e-9):.0f}%)",
        flush=True,
    )
    heaps = (1 << exp) - start
    print(
        f"  per heap: {split.stats[0] / heaps:.0f} rare × common pairs; the check read "
        f"{split.stats[1] / heaps:.0f} splits one by one, {split.stats[2] / heaps:.0f} in marked "
        f"chunks, "
        f"{split.stats[5] / heaps:.0f} in compared chunks",
        flush=True,
    )


def bench_06(top: int, previous_top: int) -> None:
    _, new = doublings("0.6", top)
    old = doublings_before("0.6", previous_top)
    total, _, _ = new[top]
    cpu = sum(c for _, _, c in new.values())
    if top in old:
        previous = f"previous kernel {old[top][0]:.2f} s (same run, at {BEFORE_LAYOUT})"
    elif old:
        last = max(old)
        per_value = old[last][1] / fresh_count(last)
        guess = old[last][0] + ((1 << top) - (1 << last)) * per_value
        previous = f"previous kernel ~{guess:.1f} s (2^{last} measured {old[last][0]:.2f} s, extrapolated)"
    else:
        previous = f"previous kernel 2^21 in {RECORDED['0.6_2^21']:.2f} s (recorded before the change)"
    line(
        f"octal:0.6 n < 2^{top} (kernel)",
        total,
        cpu,
        f"target ≤ {TARGETS['0.6_2^23']:.0f} s by a worker job (storage adds to this: see the job below); "
        f"{previous}; C++ about 56 s (issue)",
    )


def bench_376() -> None:
    """Certified the way the worker does it: its step sizes, and a certification after every step."""
    from nimbase.settings import DEFAULT_WORKER
    from storage.packing import CHUNK_VALUES
    from worker.runner import FIRST_STEP

    kernel = OctalGame("0.376").kernel()
    values = EMPTY
    start, steps, kernel_cpu, certify_cpu = 0, 0, 0.0, 0.0
    wall, cpu = time.perf_counter(), time.process_time()
    period = None
    while period is None and start < 1 << 24:
        step = min(DEFAULT_WORKER.step, max(FIRST_STEP, start))
        stop = (start // CHUNK_VALUES) * CHUNK_VALUES + step
        stop = stop if stop > start else start + step  # as worker.runner.Worker._extend does
        values, _, k_cpu = timed(partial(kernel.extend, values, stop))
        period, _, c_cpu = timed(partial(kernel.certify, values))
        kernel_cpu, certify_cpu, steps, start = kernel_cpu + k_cpu, certify_cpu + c_cpu, steps + 1, stop
    line(
        "octal:0.376 certified (worker's steps)",
        time.perf_counter() - wall,
        time.process_time() - cpu,
        f"target ≤ {TARGETS['0.376']:.0f} s by a worker job; {period}, {len(values):,} values in "
        f"{steps} steps "
        f"(kernel {kernel_cpu:.2f} s, certification {certify_cpu:.2f} s CPU); previous: kernel 2^20 in "
        f"{RECORDED['0.376_kernel_2^20']:.1f} s CPU (recorded), certification quadratic past the preperiod",
    )


def bench_worker_job(game: str, upto: int, fill: bool, target: float) -> None:
    """One real worker job in a fresh database: kernel, certification and storage."""
    from bench.common import fresh_database
    from storage.database import create_engine
    from storage.jobs import JobQueue
    from storage.sequences import SequenceStore
    from worker.runner import Worker

    with fresh_database() as url:
        engine = create_engine(url)
        job = JobQueue(engine).submit(game, "heap", upto, fill=fill)
        worker = Worker(engine)
        _, wall, cpu = timed(worker.run_once)
        done = JobQueue(engine).get(job.id)
        info = SequenceStore(engine).info(game, "heap")
        engine.dispose()
    if done is None or done.status != "done" or info is None:
        print(f"worker job {game}: did not finish ({done})", flush=True)
        return
    line(
        f"worker job {game} (kernel + storage)",
        wall,
        cpu,
        f"target ≤ {target:.0f} s; {info.computed_upto:,} values stored, period {info.period}",
    )


def bench_wythoff(side: int, previous: bool) -> None:
    table, wall, cpu = timed(partial(wythoff_table, side))
    if previous:
        setup = "from engine.kernels.wythoff import wythoff_table\nwythoff_table(64, previous=True)"
        o_wall = seconds_at(BEFORE_LAYOUT, setup, f"wythoff_table({side}, previous=True)")
        compare = f"previous kernel {o_wall:.2f} s (same run, at {BEFORE_LAYOUT})"
    else:
        compare = f"previous kernel {RECORDED.get(f'wythoff_{side}', float('nan')):.2f} s (recorded)"
    target = TARGETS.get(f"wythoff_{side}")
    aim = f"target ≤ {target:.0f} s; " if target else ""
    line(
        f"wythoff table {side} x {side}", wall, cpu, f"{aim}{compare}; {table.nbytes / 2**20:.0f} MiB uint32"
    )


def bench_octal(code: str, limit: int) -> None:
    kernel = OctalGame(code).kernel()
    (values, period), wall, cpu = timed(partial(kernel.solve, limit))
    if period is None:
        line(f"octal:{code}: no period below {len(values):,}", wall, cpu, "")
    else:
        line(
            f"octal:{code} certified",
            wall,
            cpu,
            f"period {period.period}, preperiod {period.preperiod} from {len(values):,} values",
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--grundy-exp", type=int, default=24, help="Grundy's game up to 2^k")
    parser.add_argument(
        "--grundy-previous-exp", type=int, default=22, help="previous kernel up to 2^k (0: none)"
    )
    parser.add_argument("--octal-06-exp", type=int, default=23, help="0.6 up to 2^k (no period to stop at)")
    parser.add_argument(
        "--octal-06-previous-exp", type=int, default=21, help="previous kernel up to 2^k (0: none)"
    )
    parser.add_argument("--octal-016-limit", type=int, default=1 << 21, help="most values for 0.16")
    parser.add_argument("--wythoff-side", type=int, default=8192)
    parser.add_argument("--no-previous-wythoff", action="store_true", help="skip the previous Wythoff kernel")
    parser.add_argument(
        "--skip",
        nargs="*",
        default=[],
        choices=["grundy", "octal", "016", "056", "06", "376", "wythoff", "jobs"],
        help="jobs: the real worker jobs (they need the database)",
    )
    args = parser.parse_args()
    _, wall, _ = timed(warm_up)
    print(f"warm-up (numba cache load or compile): {wall:.2f} s", flush=True)
    if "octal" not in args.skip:
        for code in ("0.77", "0.07", "0.137"):
            bench_octal(code, 1 << 16)
    if "wythoff" not in args.skip:
        bench_wythoff(args.wythoff_side, not args.no_previous_wythoff)
    if "grundy" not in args.skip:
        bench_grundy(args.grundy_exp, args.grundy_previous_exp)
    if "06" not in args.skip:
        bench_06(args.octal_06_exp, args.octal_06_previous_exp)
    if "376" not in args.skip:
        bench_376()
    if "jobs" not in args.skip:
        bench_worker_job("octal:0.376", 1 << 24, False, TARGETS["0.376"])
        bench_worker_job("octal:0.6", 1 << args.octal_06_exp, True, TARGETS["0.6_2^23"])
    if "016" not in args.skip:
        bench_octal("0.16", args.octal_016_limit)
    if "056" not in args.skip:
        bench_octal("0.56", 1 << 21)  # from nothing to the certificate


if __name__ == "__main__":
    main()
