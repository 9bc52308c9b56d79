"""GetValue latency and throughput over gRPC and REST; bulk values per second (batch, stream and
columnar, side by side in one run)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from urllib.parse import quote

import grpc
import httpx
import numpy as np
from numpy.typing import NDArray

from bench.common import (
    Server,
    cpu_seconds,
    figure,
    free_port,
    fresh_database,
    latency_figures,
    process_tree,
    running_server,
)
from nimbase.client import NimbaseClient
from nimbase.settings import Settings
from nimbase.v1 import nimbase_pb2 as pb
from nimbase.v1 import nimbase_pb2_grpc as pb_grpc
from service import convert
from service.calls import GetValue
from service.core import Nimbase
from storage.database import create_engine
from storage.jobs import JobQueue
from worker.runner import Worker

GAME = "subtraction:1,3,4"
STORED = 1_000_000
SECONDS = 5.0


def sequential_grpc(target: str, game: str, heaps: list[int]) -> list[float]:
    samples = []
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.NimbaseStub(channel)
        for heap in heaps:
            started = time.perf_counter()
            stub.GetValue(pb.GetValueRequest(game=game, position=str(heap)))
            samples.append(time.perf_counter() - started)
    return samples


async def concurrent_grpc(target: str, game: str, heaps: list[int], in_flight: int) -> float:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.NimbaseStub(channel)
        queue = iter(heaps)
        count = 0

        async def one_client() -> None:
            nonlocal count
            for heap in queue:
                await stub.GetValue(pb.GetValueRequest(game=game, position=str(heap)))
                count += 1

        started = time.perf_counter()
        await asyncio.gather(*(one_client() for _ in range(in_flight)))
        return count / (time.perf_counter() - started)


def sequential_rest(base: str, game: str, heaps: list[int]) -> list[float]:
    samples = []
    with httpx.Client(base_url=base) as client:
        for heap in heaps:
            started = time.perf_counter()
            client.get("/v1/value", params={"game": game, "position": str(heap)}).raise_for_status()
            samples.append(time.perf_counter() - started)
    return samples


def bulk_batch(target: str, heaps: list[int]) -> float:
    with grpc.insecure_channel(target, options=[("grpc.max_receive_message_length", 64 << 20)]) as channel:
        stub = pb_grpc.NimbaseStub(channel)
        positions = [str(h) for h in heaps]
        stub.BatchGetValues(pb.BatchGetValuesRequest(game=GAME, positions=positions[:10_000]))
        started = time.perf_counter()
        for i in range(0, len(positions), 10_000):
            answer = stub.BatchGetValues(
                pb.BatchGetValuesRequest(game=GAME, positions=positions[i : i + 10_000])
            )
            assert len(answer.values) == len(positions[i : i + 10_000])
        return len(positions) / (time.perf_counter() - started)


def columnar_grpc(target: str, heaps: NDArray[np.uint64], calls: int = 5) -> float:
    """ColumnarValues through the Python client, client to client: array in, array out."""
    with NimbaseClient(target, timeout=60) as client:
        client.columnar_values(GAME, heaps[:10_000])  # the connection and the chunk cache
        started = time.perf_counter()
        for _ in range(calls):
            values = client.columnar_values(GAME, heaps)
            assert len(values) == len(heaps)
        return calls * len(heaps) / (time.perf_counter() - started)


def columnar_rest(base: str, heaps: NDArray[np.uint64], calls: int = 5) -> float:
    """POST /v1/values:columnar with httpx, client to client: the array packed, sent, and read back."""
    headers = {"content-type": "application/octet-stream"}
    with httpx.Client(base_url=base, timeout=60) as client:
        url = f"/v1/values:columnar?game={GAME}"
        client.post(url, content=heaps[:10_000].astype("<u8").tobytes(), headers=headers).raise_for_status()
        started = time.perf_counter()
        for _ in range(calls):
            reply = client.post(url, content=heaps.astype("<u8").tobytes(), headers=headers)
            reply.raise_for_status()
            values = np.frombuffer(reply.content, dtype="<u4")
            assert len(values) == len(heaps)
        return calls * len(heaps) / (time.perf_counter() - started)


def bulk_stream(target: str, heaps: list[int]) -> float:
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.NimbaseStub(channel)
        requests = (pb.StreamValuesRequest(game=GAME, position=str(h)) for h in heaps)
        started = time.perf_counter()
        count = sum(1 for _ in stub.StreamValues(requests))
        assert count == len(heaps)
        return count / (time.perf_counter() - started)


def grpc_frame(message: bytes) -> bytes:
    """One gRPC length-prefixed message, as h2load sends it."""
    return b"\x00" + struct.pack(">I", len(message)) + message


def h2load_rate(url: str, body: bytes, requests: int = 20_000) -> float | None:
    """Calls per second a C HTTP/2 load generator gets from a gRPC method (None without h2load)."""
    run = h2load_run(url, body, requests)
    return None if run is None else run[0]


def h2load_run(
    url: str, body: bytes, requests: int = 20_000, connections: int = 4
) -> tuple[float, float] | None:
    """(calls per second, h2load's own CPU share: 1.0 = one core) of a C HTTP/2 load generator on a gRPC
    method (None without h2load)."""
    if shutil.which("h2load") is None:
        return None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with tempfile.NamedTemporaryFile(suffix=".bin") as data:
        data.write(grpc_frame(body))
        data.flush()
        out = subprocess.run(
            [
                "h2load",
                "-n",
                str(requests),
                "-c",
                str(connections),
                "-m",
                "16",
                "-d",
                data.name,
                "-H",
                "content-type: application/grpc",
                "-H",
                "te: trailers",
                url,
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert f"{requests} succeeded" in out, out
    rate = float(re.search(r"finished in [\d.]+m?s, ([\d.]+) req/s", out).group(1))  # type: ignore[union-attr]
    return rate, cpu / wall


def wrk_rate(url: str, seconds: float = 8.0) -> float | None:
    """Requests per second wrk (a C HTTP/1.1 load generator) gets from a route (None without wrk)."""
    if shutil.which("wrk") is None:
        return None
    out = subprocess.run(
        ["wrk", "-t", "1", "-c", "16", "-d", f"{seconds:g}s", url], capture_output=True, text=True, check=True
    ).stdout
    assert "Non-2xx" not in out, out
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]


@contextlib.contextmanager
def echo_server() -> Iterator[tuple[str, int]]:
    """A bare grpc.aio echo server (bench.layer_server's `echo`) on loopback: what Python gRPC itself allows
    here. Yields the URL of its method and its process id."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "bench.layer_server", "echo", str(port), "-"])
    try:
        time.sleep(2)
        yield f"http://127.0.0.1:{port}/bench.Echo/Echo", process.pid
    finally:
        process.terminate()
        process.wait()


@contextlib.contextmanager
def bare_rest_server(base: str, asked: list[tuple[str, str]]) -> Iterator[str]:
    """A bare one-process FastAPI app (bench.bare_rest) answering GET /v1/value with the very JSON the
    nimbase server at `base` answers for each of `asked`: the REST yardstick. Yields its base URL."""
    with httpx.Client(base_url=base, timeout=60) as client:
        answers = []
        for game, position in asked:
            reply = client.get("/v1/value", params={"game": game, "position": position})
            reply.raise_for_status()
            answers.append([game, position, reply.json()])
    port = free_port()
    with tempfile.NamedTemporaryFile("w", suffix=".json") as file:
        json.dump(answers, file)
        file.flush()
        process = subprocess.Popen([sys.executable, "-m", "bench.bare_rest", str(port), file.name])
        bare = f"http://127.0.0.1:{port}"
        try:
            until = time.monotonic() + 60
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    game, position = asked[0]
                    if httpx.get(f"{bare}/v1/value", params={"game": game, "position": position}).is_success:
                        break
                assert time.monotonic() < until and process.poll() is None, "the bare app did not start"
                time.sleep(0.2)
            yield bare
        finally:
            process.terminate()
            process.wait()


@contextlib.contextmanager
def servers_together(url: str, settings: list[dict[str, str] | None]) -> Iterator[list[Server]]:
    """Several `nimbase serve` at once, started side by side (each takes a while to start its live
    processes on a busy machine), stopped on leaving."""
    managers = [running_server(url, settings=each) for each in settings]
    started: list[Server | BaseException] = [RuntimeError("not started")] * len(managers)

    def enter(index: int) -> None:
        try:
            started[index] = managers[index].__enter__()
        except BaseException as error:  # raised again below, in the caller's thread
            started[index] = error

    threads = [threading.Thread(target=enter, args=(i,)) for i in range(len(managers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        for each in started:
            if isinstance(each, BaseException):
                raise each
        yield [each for each in started if isinstance(each, Server)]
    finally:
        for manager, each in zip(managers, started, strict=True):
            if isinstance(each, Server):
                manager.__exit__(None, None, None)


#: Rounds of the capacity comparisons: nimbase and its yardstick take turns, and each keeps its best
#: round, so a burst of other work on the machine during one round does not decide the ratio.
CAPACITY_ROUNDS = 3
#: Calls of each h2load round, and seconds of each wrk round.
H2LOAD_CALLS = 10_000
WRK_SECONDS = 4.0
#: A formula answer (Nim) and a stored heap (GAME's table), as the capacity figures ask them.
FORMULA = ("nim", "1 3 5 7")
STORED_HEAP = (GAME, "123457")


#: A server whose answer cache keeps nothing (no answer fits its one byte): every call looked up.
NO_ANSWER_CACHE = {"NIMBASE_CACHE_ANSWER_BYTES": "1"}


def in_turns(runs: dict[str, Callable[[], float | None]], rounds: int = CAPACITY_ROUNDS) -> dict[str, float]:
    """Each run's best round, the runs taking turns round after round."""
    best: dict[str, float] = dict.fromkeys(runs, 0.0)
    for _ in range(rounds):
        for name, run in runs.items():
            best[name] = max(best[name], run() or 0.0)
    return best


def grpc_capacity(server: Server, uncached: Server, echo_url: str) -> None:
    """gRPC GetValue capacity beside the bare grpc.aio echo server, measured in turns with it (h2load
    against each in alternation, best round of each).

    h2load sends one request over and over: the server answers it from its answer cache, as it does a
    bot's hot positions. A server with that cache off, in the same turns, shows what a call costs when
    each is looked up (distinct positions)."""
    request = pb.GetValueRequest(game=STORED_HEAP[0], position=STORED_HEAP[1]).SerializeToString()
    method = "nimbase.v1.Nimbase/GetValue"
    urls = {
        "repeated": f"http://{server.target}/{method}",
        "looked up": f"http://{uncached.target}/{method}",
        "echo": echo_url,
    }
    bodies = {"repeated": request, "looked up": request, "echo": b"x" * 32}
    for name, server_url in urls.items():
        h2load_rate(server_url, bodies[name], 2_000)  # warm each up
    rates = in_turns(
        {name: lambda name=name: h2load_rate(urls[name], bodies[name], H2LOAD_CALLS) for name in urls}  # type: ignore[misc]
    )
    echo = rates["echo"]
    figure("gRPC GetValue, one stored heap repeated, h2load 4x16", rates["repeated"], "calls/s")
    figure("gRPC GetValue, answer cache off: each call looked up", rates["looked up"], "calls/s")
    figure("bare grpc.aio echo server, in turns with them", echo, "calls/s")
    figure("  ... repeated / echo (target >= 0.85)", rates["repeated"] / echo, "x")
    figure("  ... looked up (distinct stored heaps) / echo (target >= 0.8)", rates["looked up"] / echo, "x")


def cpu_per_call(url: str, body: bytes, pid: int) -> float:
    """CPU seconds of a server (its process and those below it, the live processes) per call of h2load."""
    h2load_rate(url, body, 2_000)
    tree = process_tree(pid)
    before = sum(cpu_seconds(each) for each in tree)
    h2load_rate(url, body, 2 * H2LOAD_CALLS)
    return (sum(cpu_seconds(each) for each in tree) - before) / (2 * H2LOAD_CALLS)


def formula_cpu(server: Server, uncached: Server, echo: tuple[str, int]) -> None:
    """Server CPU (the server process and its live processes) per GetValue of a formula answer, under
    h2load: asked again (the answer cache) and looked up each time (the cache off); beside the bare echo
    server's per call, the floor of a Python gRPC call on this machine now."""
    request = pb.GetValueRequest(game=FORMULA[0], position=FORMULA[1]).SerializeToString()
    for name, each in (("asked again", server), ("looked up", uncached)):
        path = f"http://{each.target}/nimbase.v1.Nimbase/GetValue"
        target = " (target <= 0.1)" if name == "asked again" else ""
        per_call = cpu_per_call(path, request, each.pid)
        figure(f"server CPU per formula GetValue, {name}{target}", per_call * 1e3, "ms")
    floor = cpu_per_call(echo[0], b"x" * 32, echo[1])
    figure("  ... bare grpc.aio echo server's CPU per call, same run", floor * 1e3, "ms")


def rest_capacity(server: Server, bare: str) -> None:
    """REST GetValue of a formula answer and of a stored heap (wrk 16 connections) beside a bare
    one-process FastAPI app answering the same JSON, in turns, best round of each."""
    if shutil.which("wrk") is None:
        print("wrk not installed (Debian package wrk): REST capacity not measured")
        return
    for label, (game, position) in (("Nim", FORMULA), ("stored heap", STORED_HEAP)):
        query = f"/v1/value?game={quote(game)}&position={quote(position)}"
        wrk_rate(f"{server.base}{query}", 1.0)
        wrk_rate(f"{bare}{query}", 1.0)
        rates = in_turns(
            {
                "ours": lambda q=query: wrk_rate(f"{server.base}{q}", WRK_SECONDS),  # type: ignore[misc]
                "bare": lambda q=query: wrk_rate(f"{bare}{q}", WRK_SECONDS),  # type: ignore[misc]
            }
        )
        figure(f"REST GetValue, {label}, wrk 16 connections", rates["ours"], "calls/s")
        figure("  ... bare FastAPI app, same JSON, in turns", rates["bare"], "calls/s")
        figure("  ... nimbase / bare (target >= 0.8)", rates["ours"] / rates["bare"], "x")


def capacity(url: str, server: Server, uncached: Server) -> None:
    """The capacity figures of the service, each beside its yardstick measured in the same run."""
    if shutil.which("h2load") is None:
        print("h2load not installed (Debian package nghttp2-client): gRPC capacity not measured")
    else:
        with echo_server() as echo:
            grpc_capacity(server, uncached, echo[0])
            formula_cpu(server, uncached, echo)
    with bare_rest_server(server.base, [FORMULA, STORED_HEAP]) as bare:
        rest_capacity(server, bare)


def service_path(url: str, heaps: list[int]) -> None:
    """GetValue's own work in process, no transport (the lookup, the Value, its protobuf): what of a
    call's cost the service layer accounts for, beside the transport's share measured above."""
    service = Nimbase(Settings.from_env(), create_engine(url))
    service.get_value(GetValue(GAME, "1"))  # the game resolved, its chunks read

    def call(heap: int) -> pb.Value:
        # The transports' hot path: from memory with no deadline (a chunk not yet read needs a thread).
        answer = service.in_memory(lambda: convert.value_to_pb(service.get_value(GetValue(GAME, str(heap)))))
        if answer is None:
            answer = convert.value_to_pb(
                service.get_value(GetValue(GAME, str(heap), deadline=time.monotonic() + 10))
            )
        return answer

    for heap in heaps:
        call(heap)
    started = time.perf_counter()
    for heap in heaps:
        call(heap)
    figure(
        "GetValue through the service layer alone (in process)",
        (time.perf_counter() - started) / len(heaps) * 1e6,
        "µs/call",
    )


def processes_scaling(url: str) -> None:
    """GetValue capacity of `nimbase serve --processes N` for N = 1 and 2, with h2load's own CPU share
    and the servers' (all processes), so the ratio can be judged on a machine h2load shares."""
    request = pb.GetValueRequest(game=GAME, position="123457").SerializeToString()
    rates: list[float] = []
    for processes in (1, 2):
        with running_server(url, processes) as server:
            path = f"http://{server.target}/nimbase.v1.Nimbase/GetValue"
            h2load_run(path, request, 2_000, connections=8)  # warm every process's chunk cache
            tree = process_tree(server.pid)
            cpu_before = sum(cpu_seconds(pid) for pid in tree)
            started = time.perf_counter()
            run = h2load_run(path, request, 40_000, connections=8)
            if run is None:
                print("h2load not installed (Debian package nghttp2-client): process scaling not measured")
                return
            server_cores = (sum(cpu_seconds(pid) for pid in tree) - cpu_before) / (
                time.perf_counter() - started
            )
            name = f"gRPC GetValue, {processes} server process{'es' if processes > 1 else ''}, h2load 8x16"
            figure(name, run[0], "calls/s")
            rates.append(run[0])
            figure("  ... h2load's own CPU (1.0 = one core)", run[1], "cores")
            figure("  ... the server's CPU, all processes", server_cores, "cores")
    figure("2 processes / 1 (the cores h2load leaves: 2 minus its share)", rates[1] / rates[0], "x")


def bulk_stream_batches(target: str, heaps: list[int]) -> float:
    with grpc.insecure_channel(target, options=[("grpc.max_receive_message_length", 64 << 20)]) as channel:
        stub = pb_grpc.NimbaseStub(channel)
        positions = [str(h) for h in heaps]
        requests = (
            pb.BatchGetValuesRequest(game=GAME, positions=positions[i : i + 10_000])
            for i in range(0, len(positions), 10_000)
        )
        started = time.perf_counter()
        count = sum(len(reply.values) for reply in stub.StreamBatches(requests))
        assert count == len(heaps)
        return count / (time.perf_counter() - started)


@contextlib.contextmanager
def stored_database() -> Iterator[str]:
    """A fresh database holding GAME's values below STORED, stored by a worker: what the service benches
    look up."""
    with fresh_database() as url:
        engine = create_engine(url)
        JobQueue(engine).submit(GAME, "heap", STORED, fill=True)
        Worker(engine).run_once()
        engine.dispose()
        yield url


def main(argv: list[str] | None = None) -> None:
    """Every figure; with `--capacity`, only the capacity figures (the ratios and their targets)."""
    only_capacity = "--capacity" in (sys.argv[1:] if argv is None else argv)
    rng = random.Random(7)
    with stored_database() as url:
        with servers_together(url, [None, NO_ANSWER_CACHE]) as (server, uncached):
            target, base = server.target, server.base
            heaps = [rng.randrange(STORED) for _ in range(20_000)]
            sequential_grpc(target, GAME, heaps[:2000])  # warm the chunk cache and the connection
            if not only_capacity:
                samples = sequential_grpc(target, GAME, heaps[:5000])
                latency_figures("gRPC GetValue, stored subtraction heap", samples)
                figure(
                    "gRPC GetValue, stored heap, one client in sequence",
                    len(samples) / sum(samples),
                    "calls/s",
                )
                nim = sequential_grpc(target, "nim", heaps[:5000])
                latency_figures("gRPC GetValue, Nim formula (same run)", nim)
                rate = asyncio.run(concurrent_grpc(target, GAME, heaps, in_flight=32))
                figure("gRPC GetValue, stored heap, Python client 32 in flight", rate, "calls/s")
                rest = sequential_rest(base, GAME, heaps[:3000])
                latency_figures("REST GetValue, stored subtraction heap", rest)
                figure("REST GetValue, stored heap, one client in sequence", len(rest) / sum(rest), "calls/s")
            capacity(url, server, uncached)
            if only_capacity:
                return
            bulk = [rng.randrange(STORED) for _ in range(200_000)]
            batch = bulk_batch(target, bulk)
            figure("BatchGetValues (10,000 a call), single heaps", batch, "values/s")
            million = np.random.default_rng(7).integers(0, STORED, 1_000_000, dtype=np.uint64)
            columnar = columnar_grpc(target, million)
            figure(
                "ColumnarValues gRPC, 1,000,000 stored heaps a call (target >= 10,000,000)",
                columnar,
                "values/s",
            )
            figure("  ... times BatchGetValues, same run (target >= 10)", columnar / batch, "x")
            columnar = columnar_rest(base, million)
            figure(
                "POST /v1/values:columnar, 1,000,000 heaps a call (target >= 10,000,000)",
                columnar,
                "values/s",
            )
            figure("  ... times BatchGetValues, same run (target >= 10)", columnar / batch, "x")
            cpu_before, started = cpu_seconds(server.pid), time.perf_counter()
            figure(
                "StreamValues (one message a value), single heaps",
                bulk_stream(target, bulk[:30_000]),
                "values/s",
            )
            figure(
                "StreamValues: server CPU while streaming (1.0 = one core)",
                (cpu_seconds(server.pid) - cpu_before) / (time.perf_counter() - started),
                "cores",
            )
            figure(
                "StreamBatches (10,000 a message), single heaps",
                bulk_stream_batches(target, bulk),
                "values/s",
            )
        service_path(url, [rng.randrange(STORED) for _ in range(20_000)])
        processes_scaling(url)


if __name__ == "__main__":
    main()
