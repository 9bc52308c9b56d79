"""Misère quotients: the census of every two-digit octal game 0.d1d2 to heap 30 (or a size limit), and
answers from a quotient in memory: GetValue of a 1,000-heap sum (target <= 1 ms) and BatchGetValues over
such sums (target >= 100,000 values/s), each printed beside its target.

`python -m bench.bench_misere [--heaps 30] [--max-states 50000] [--no-census] [--no-answers]`
"""

from __future__ import annotations

import argparse
import os
import random
import time

from engine.registry import parse_game_id
from kinds.heaps.misere import Limits, MisereHeapGame, compute
from kinds.heaps.misere.stored import MisereSettings
from kinds.heaps.misere.tame import tame_genus
from tests.engine.contexts import StoredWords, engine_context

GET_VALUE_TARGET_MS = 1.0
BATCH_TARGET = 100_000


def census(heaps: int, limits: Limits) -> float:
    """Prints one row per game; gives the total CPU seconds."""
    print(
        f"census of 0.d1d2 to heap {heaps} "
        f"(size limit: {limits.max_order} elements, {limits.max_states} states)"
    )
    head = f"{'game':>8} {'order':>6} {'|P|':>4} {'heaps':>6} {'certified':>10} {'tame':>5} {'cpu s':>7}"
    print(f"{head}  note")
    total = 0.0
    seen: set[str] = set()
    for d1 in range(8):
        for d2 in range(8):
            kind = parse_game_id(f"octal:0.{d1}{d2}:misere")
            assert isinstance(kind, MisereHeapGame)
            if kind.game_id in seen:
                continue
            seen.add(kind.game_id)
            start = time.process_time()
            q = compute(kind.rules, heaps, limits)
            cpu = time.process_time() - start
            total += cpu
            certified = f"p={q.period.period},n0={q.period.preperiod}" if q.period else "no"
            code = kind.game_id.split(":")[1]
            tame = "yes" if tame_genus(q, kind.base) is not None else "no"
            print(
                f"{code:>8} {q.order:>6} {len(q.p_portion()):>4} {q.bound:>6} {certified:>10} {tame:>5} "
                f"{cpu:>7.2f}  {q.note or ''}",
                flush=True,
            )
    print(f"census: {len(seen)} games, total CPU {total:.1f} s on one worker")
    return total


def answers() -> None:
    kind = parse_game_id("octal:0.75:misere")
    assert isinstance(kind, MisereHeapGame)
    ctx = engine_context(StoredWords())
    q = kind.quotient(ctx).value  # computed once, then kept: every answer below is from memory
    rng = random.Random(7)
    sums = [" ".join(str(rng.randint(1, 10**6)) for _ in range(1000)) for _ in range(200)]
    parsed = [kind.parse(text) for text in sums]
    kind.value(parsed[0], ctx)
    start = time.perf_counter()
    for position in parsed:
        kind.value(position, ctx)
    per_value = (time.perf_counter() - start) / len(parsed) * 1000
    print(
        f"GetValue of a 1,000-heap misère sum (octal:0.75:misere, quotient of order {q.order} in memory): "
        f"{per_value:.3f} ms per value (target <= {GET_VALUE_TARGET_MS} ms; parsing excluded)"
    )
    print(f"load average before the batches: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    sums = sums * 25  # 5,000 sums: the one-pass parse is timed over a few seconds' worth
    kind.values(sums[:10], ctx)
    start, cpu = time.perf_counter(), time.process_time()
    kind.values(sums, ctx)
    rate, cpu_rate = len(sums) / (time.perf_counter() - start), len(sums) / (time.process_time() - cpu)
    print(
        f"BatchGetValues over 1,000-heap sums as sent (unsorted): {rate:,.0f} values/s, "
        f"{rate * 1000:,.0f} heaps/s; {cpu_rate:,.0f} values per CPU second "
        f"(target >= {BATCH_TARGET:,} values/s; parsing included)"
    )
    canonical = [kind.format(position) for position in parsed] * 25
    start, cpu = time.perf_counter(), time.process_time()
    kind.values(canonical, ctx)
    rate = len(canonical) / (time.perf_counter() - start)
    cpu_rate = len(canonical) / (time.process_time() - cpu)
    print(
        f"BatchGetValues over 1,000-heap sums in canonical form (as the service writes them): "
        f"{rate:,.0f} values/s; {cpu_rate:,.0f} values per CPU second (target >= {BATCH_TARGET:,} values/s)"
    )
    start = time.perf_counter()
    for text in sums[:200]:
        kind.value(kind.parse(text), ctx)
    rate = 200 / (time.perf_counter() - start)
    print(f"the same sums one by one (parse_heaps, fold, format): {rate:,.0f} values/s, for comparison")
    small = [" ".join(str(rng.randint(1, 10**6)) for _ in range(5)) for _ in range(20_000)]
    start = time.perf_counter()
    kind.values(small, ctx)
    rate = len(small) / (time.perf_counter() - start)
    print(f"BatchGetValues over 5-heap sums: {rate:,.0f} values/s (target >= {BATCH_TARGET:,} values/s)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--heaps", type=int, default=30)
    parser.add_argument("--max-states", type=int, default=MisereSettings().max_states)
    parser.add_argument("--no-census", action="store_true")
    parser.add_argument("--no-answers", action="store_true")
    args = parser.parse_args(argv or [])
    if not args.no_answers:
        answers()
    if not args.no_census:
        census(args.heaps, Limits(max_order=512, max_states=args.max_states))


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
