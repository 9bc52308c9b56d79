"""Misère quotients: the census of every two-digit octal game 0.d1d2 to heap 30 (or a size limit), and
answers from a quotient in memory: GetValue of a 1,000-heap sum (target <= 1 ms) and BatchGetValues over
such sums (target >= 100,000 values/s), each printed beside its target; then the same batches through
a real server (gRPC BatchGetValues and POST /v1/values:batch, the quotient stored by a worker's job) beside
a bare gRPC echo server moving the same request bytes back, in the same run: what the transport alone
allows.

`python -m bench.bench_misere [--heaps 30] [--max-states 50000] [--no-census] [--no-answers] [--no-server]`
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import grpc
import httpx

from bench.common import cpu_seconds, free_port, fresh_database, process_tree, running_server
from engine.deadline import Deadline
from engine.errors import NimbaseError
from engine.registry import parse_game_id
from kinds.heaps.misere import Limits, MisereHeapGame, compute
from kinds.heaps.misere.stored import QUOTIENT, QUOTIENTS, MisereSettings
from kinds.heaps.misere.tame import tame_genus
from nimbase.v1 import nimbase_pb2 as pb
from storage.database import create_engine
from storage.jobs import JobQueue
from tests.engine.contexts import StoredWords, engine_context
from worker.runner import Worker

GET_VALUE_TARGET_MS = 1.0
BATCH_TARGET = 100_000
GAME = "octal:0.75:misere"
#: Sums per served batch: 500 sums of 1,000 heaps are 3.4 MB, within a bare gRPC server's 4 MiB.
SERVED_BATCH = 500
#: Seconds each served figure is measured over (at least one batch).
SERVED_SECONDS = 6.0


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
    start, cpu = time.perf_counter(), time.process_time()
    for first in range(0, len(sums), SERVED_BATCH):
        kind.values(sums[first : first + SERVED_BATCH], ctx)
    rate, cpu_rate = len(sums) / (time.perf_counter() - start), len(sums) / (time.process_time() - cpu)
    print(
        f"the same sums in calls of {SERVED_BATCH} (as served; a call's answers freed before the next, "
        f"where the call above holds 5,000 new canonical texts): {rate:,.0f} values/s; "
        f"{cpu_rate:,.0f} values per CPU second (target >= {BATCH_TARGET:,} values/s)"
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


#: Requests asking a misère quotient no worker has stored, each with this deadline (a bot's).
WALK_DEADLINE_S = 2.0
#: Requests asked at most, before giving up on the quotient being made whole by them.
WALK_REQUESTS = 40


def walked_by_requests(code: str = "0.137") -> None:
    """Requests of WALK_DEADLINE_S each asking a quotient no worker has stored yet (each answered from the
    heaps done when its time runs out): how many until the quotient is whole, beside one walk alone.
    A walk stopped for time is kept and the next request goes on from it."""
    kind = parse_game_id(f"octal:{code}:misere")
    assert isinstance(kind, MisereHeapGame)
    settings = MisereSettings()
    start = time.perf_counter()
    whole = compute(kind.rules, settings.live_heaps, settings.limits())
    alone = time.perf_counter() - start
    ctx = engine_context(StoredWords())
    bounds: list[int] = []
    took: list[float] = []
    done = False
    start = time.perf_counter()
    for _ in range(WALK_REQUESTS):
        asked = dataclasses.replace(ctx, deadline=Deadline(time.monotonic() + WALK_DEADLINE_S))
        began = time.perf_counter()
        try:
            bounds.append(kind.quotient(asked).value.bound)
        except NimbaseError:  # past its deadline inside a heap: refused, the walk kept all the same
            bounds.append(-1)
        took.append(time.perf_counter() - began)
        done = ctx.kept.keeper(QUOTIENTS).peek((QUOTIENT, kind.game_id)) is not None
        if done:
            break
    spent = time.perf_counter() - start
    print(
        f"misère quotient of octal:{code} walked live by requests of {WALK_DEADLINE_S:g} s each: "
        f"{'whole' if done else 'not whole'} after {len(bounds)} requests ({spent:.1f} s, p50 "
        f"{statistics.median(took):.3f} s a request), heap bounds "
        f"{bounds} (-1: refused at its deadline); one walk alone to heap {whole.bound}: {alone:.1f} s"
    )


def _tree_cpu(pid: int) -> float:
    return sum(cpu_seconds(p) for p in process_tree(pid))


def _rate(send: Callable[[], object], pid: int) -> tuple[float, float]:
    """(values/s wall, values per CPU second of the process tree `pid`) of `send()`, a batch a call,
    repeated for SERVED_SECONDS."""
    count = 0
    start, cpu = time.perf_counter(), _tree_cpu(pid)
    while count == 0 or time.perf_counter() - start < SERVED_SECONDS:
        send()
        count += SERVED_BATCH
    wall, used = time.perf_counter() - start, _tree_cpu(pid) - cpu
    return count / wall, count / max(used, 1e-9)


@contextlib.contextmanager
def _echo_server(url: str) -> Iterator[tuple[str, int]]:
    """bench.layer_server's bare grpc.aio echo server on loopback; yields its address and process id."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "bench.layer_server", "echo", str(port), url])
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(channel).result(timeout=120)
        channel.close()
        yield f"127.0.0.1:{port}", process.pid
    finally:
        process.terminate()
        process.wait()


def served() -> None:
    """BatchGetValues of 1,000-heap sums through a real server, its quotient stored by a worker's job,
    beside a bare gRPC echo server moving the same request bytes back: each as values/s wall and values
    per CPU second of the server's processes."""
    rng = random.Random(11)
    sums = [" ".join(str(rng.randint(1, 10**6)) for _ in range(1000)) for _ in range(SERVED_BATCH)]
    request = pb.BatchGetValuesRequest(game=GAME, positions=sums).SerializeToString()
    body = json.dumps({"game": GAME, "positions": sums}).encode()
    options = [("grpc.max_receive_message_length", 64 << 20), ("grpc.max_send_message_length", 64 << 20)]
    with fresh_database() as url:
        engine = create_engine(url)
        JobQueue(engine).submit(GAME, "quotient", 101)
        assert Worker(engine).run_once(), "the quotient job did not run"
        engine.dispose()
        with running_server(url) as server, grpc.insecure_channel(server.target, options=options) as channel:
            batch = channel.unary_unary(
                "/nimbase.v1.Nimbase/BatchGetValues", request_serializer=None, response_deserializer=None
            )
            answer = pb.BatchGetValuesResponse.FromString(batch(request, timeout=120))
            source = answer.values[0].value.source
            assert source == "period", f"answered from {source!r}, not from the stored quotient's period"
            print(
                f"load average before the served batches: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
            )
            figures: list[tuple[str, float, float]] = []
            wall, cpu = _rate(lambda: batch(request, timeout=120), server.pid)
            figures.append(
                (
                    f"served gRPC BatchGetValues, {SERVED_BATCH} sums of 1,000 heaps a call "
                    f"({len(request) / 1e6:.1f} MB each way)",
                    wall,
                    cpu,
                )
            )
            with httpx.Client(base_url=server.base, timeout=120) as http:
                for encoding, how in (("gzip", "gzipped, as httpx asks"), ("identity", "not compressed")):
                    headers = {"content-type": "application/json", "accept-encoding": encoding}

                    def post(headers: dict[str, str] = headers) -> None:
                        http.post("/v1/values:batch", content=body, headers=headers).raise_for_status()

                    wall, cpu = _rate(post, server.pid)
                    figures.append(
                        (f"served POST /v1/values:batch, the same sums (the answer {how})", wall, cpu)
                    )
        with _echo_server(url) as (target, pid), grpc.insecure_channel(target, options=options) as channel:
            echo = channel.unary_unary(
                "/bench.Echo/Echo", request_serializer=None, response_deserializer=None
            )
            echo(request, timeout=120)
            echo_wall, echo_cpu = _rate(lambda: echo(request, timeout=120), pid)
    print(
        f"bare gRPC echo server, the same request bytes back (the transport alone, "
        f"{len(request) / 1e6:.1f} MB each way): {echo_wall:,.0f} values/s, "
        f"{echo_wall * len(request) / SERVED_BATCH / 1e6:,.0f} MB/s each way; "
        f"{echo_cpu:,.0f} values per server CPU second"
    )
    for what, wall, cpu in figures:
        print(
            f"{what}: {wall:,.0f} values/s; {cpu:,.0f} values per server CPU second "
            f"(target >= {BATCH_TARGET:,} values/s; the bare echo server: {echo_wall:,.0f} values/s, "
            f"{echo_cpu:,.0f} per server CPU second)"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--heaps", type=int, default=30)
    parser.add_argument("--max-states", type=int, default=MisereSettings().max_states)
    parser.add_argument("--no-census", action="store_true")
    parser.add_argument("--no-answers", action="store_true")
    parser.add_argument(
        "--no-server", action="store_true", help="skip the served batches and the echo server"
    )
    args = parser.parse_args(argv or [])
    if not args.no_answers:
        answers()
        walked_by_requests()
    if not args.no_server:
        served()
    if not args.no_census:
        census(args.heaps, Limits(max_order=512, max_states=args.max_states))


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
