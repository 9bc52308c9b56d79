"""Cheap lookups beside expensive live requests, with the live processes (service.isolation) and without.

The load of issue 23: 24 clients send expensive live requests (fresh octal and subtraction games, bicolor
positions, Lights Out boards up to 256x256, misère sums) with a 3 s deadline, beside 4 REST and 4 gRPC
clients of cheap lookups (formula values) and one client of /healthz. The same run serves it twice, from
a server computing in its threads (NIMBASE_LIMITS_LIVE_PROCESSES=0) and from one with two live processes,
and prints each figure beside its target: cheap p99 <= 100 ms, /healthz p99 <= 100 ms, and every expensive
request answered by its deadline + 250 ms. Each group of clients is its own process, so the clients do
not share a GIL with each other.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import random
import statistics
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import httpx

from bench.common import figure, fresh_database, running_server
from nimbase.client import NimbaseClient, NimbaseClientError

SECONDS = 20.0
EXPENSIVE_CLIENTS = 24
CHEAP_CLIENTS = 4  # per transport
DEADLINE_S = 3.0
TARGET_P99_MS = 100.0
TARGET_PAST_MS = 250.0
MODES = (("threads", "0"), ("2 live processes", "2"))
BATCH = "/v1/values:batch"


def expensive_request(rng: random.Random) -> tuple[str, dict[str, str | int]]:
    """One request of the expensive kinds: a route and its query (a Lights Out board goes in a batch's
    body: 256 rows of 256 cells are longer than a query may be)."""
    kind = rng.randrange(5)
    if kind == 0:  # a fresh octal game, far heap
        code = "".join(rng.choice("01234567") for _ in range(rng.randrange(2, 5)))
        return "/v1/value", {"game": f"octal:0.{code}", "position": str(rng.randrange(10**5, 10**7))}
    if kind == 1:  # a fresh subtraction game, far heap
        moves = ",".join(map(str, sorted(rng.sample(range(1, 60), rng.randrange(3, 6)))))
        return "/v1/value", {"game": f"subtraction:{moves}", "position": str(rng.randrange(10**5, 10**8))}
    if kind == 2:  # bicolor positions
        heaps = " ".join(
            f"{rng.randrange(1, 40)}{rng.choice('wb')}{rng.randrange(1, 40)}{rng.choice('wb')}"
            for _ in range(6)
        )
        return "/v1/best-move", {"game": "bicolor-nim", "position": heaps, "limit": 5}
    if kind == 3:  # Lights Out boards up to 256x256
        side = rng.choice((32, 64, 128, 256))
        rows = "/".join("".join(rng.choice("01") for _ in range(side)) for _ in range(side))
        return BATCH, {"game": f"lights-out:{side}x{side}", "position": rows}
    heaps = " ".join(str(rng.randrange(20, 45)) for _ in range(rng.randrange(4, 7)))  # misère sums
    route = rng.choice(("/v1/value", "/v1/best-move"))
    query: dict[str, str | int] = {"game": "subtraction:1,3,4:misere", "position": heaps}
    if route == "/v1/best-move":
        query["limit"] = 1
    return route, query


def _threads(count: int, seconds: float, work: Callable[[int, float], list[float]]) -> list[float]:
    """`work(index, until)` in `count` threads; their samples together."""
    until = time.monotonic() + seconds
    results: list[list[float]] = [[] for _ in range(count)]

    def run(index: int) -> None:
        results[index] = work(index, until)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [sample for samples in results for sample in samples]


def expensive_load(base: str, seconds: float) -> list[float]:
    """Seconds past its deadline of each expensive request (negative: answered before it)."""

    def work(index: int, until: float) -> list[float]:
        rng = random.Random(index)
        past: list[float] = []
        with httpx.Client(base_url=base, timeout=60) as http:
            while time.monotonic() < until:
                route, query = expensive_request(rng)
                headers = {"x-deadline-ms": str(int(DEADLINE_S * 1000))}
                started = time.monotonic()
                with contextlib.suppress(httpx.HTTPError):
                    if route == BATCH:
                        body = {"game": query["game"], "positions": [query["position"]]}
                        http.post(route, json=body, headers=headers)
                    else:
                        http.get(route, params=query, headers=headers)
                past.append(time.monotonic() - started - DEADLINE_S)
        return past

    return _threads(EXPENSIVE_CLIENTS, seconds, work)


def cheap_rest(base: str, seconds: float) -> list[float]:
    def work(index: int, until: float) -> list[float]:
        rng = random.Random(1000 + index)
        samples: list[float] = []
        with httpx.Client(base_url=base, timeout=60) as http:
            while time.monotonic() < until:
                heaps = " ".join(str(rng.randrange(10**6, 10**12)) for _ in range(3))
                started = time.monotonic()
                http.get("/v1/value", params={"game": "nim", "position": heaps})
                samples.append(time.monotonic() - started)
        return samples

    return _threads(CHEAP_CLIENTS, seconds, work)


def cheap_grpc(target: str, seconds: float) -> list[float]:
    def work(index: int, until: float) -> list[float]:
        rng = random.Random(2000 + index)
        samples: list[float] = []
        with NimbaseClient(target, timeout=60) as client:
            while time.monotonic() < until:
                heaps = " ".join(str(rng.randrange(10**6, 10**12)) for _ in range(3))
                started = time.monotonic()
                with contextlib.suppress(NimbaseClientError):
                    client.get_value("nim", heaps)
                samples.append(time.monotonic() - started)
        return samples

    return _threads(CHEAP_CLIENTS, seconds, work)


def health(base: str, seconds: float) -> list[float]:
    def work(_index: int, until: float) -> list[float]:
        samples: list[float] = []
        with httpx.Client(base_url=base, timeout=60) as http:
            while time.monotonic() < until:
                started = time.monotonic()
                http.get("/healthz")
                samples.append(time.monotonic() - started)
                time.sleep(0.05)
        return samples

    return _threads(1, seconds, work)


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, int(len(ordered) * 0.99) - 1)] if ordered else float("nan")


def measure(url: str, live_processes: str) -> dict[str, float]:
    settings = {"NIMBASE_LIMITS_LIVE_PROCESSES": live_processes}
    spawn = multiprocessing.get_context("spawn")
    with running_server(url, settings=settings) as server, ProcessPoolExecutor(4, mp_context=spawn) as pool:
        expensive = pool.submit(expensive_load, server.base, SECONDS)
        time.sleep(2.0)  # the expensive load under way before the cheap requests are timed
        rest = pool.submit(cheap_rest, server.base, SECONDS - 4.0)
        grpc = pool.submit(cheap_grpc, server.target, SECONDS - 4.0)
        healthz = pool.submit(health, server.base, SECONDS - 4.0)
        rest_s, grpc_s, health_s, past = rest.result(), grpc.result(), healthz.result(), expensive.result()
    return {
        "cheap REST p50 (ms)": statistics.median(rest_s) * 1e3,
        "cheap REST p99 (ms)": p99(rest_s) * 1e3,
        "cheap gRPC p50 (ms)": statistics.median(grpc_s) * 1e3,
        "cheap gRPC p99 (ms)": p99(grpc_s) * 1e3,
        "/healthz p99 (ms)": p99(health_s) * 1e3,
        "expensive requests": float(len(past)),
        "worst expensive request past its deadline (ms)": max(past) * 1e3,
        "expensive requests past deadline + 250 ms": float(sum(p * 1e3 > TARGET_PAST_MS for p in past)),
    }


def main() -> None:
    figure("expensive clients (REST, 3 s deadline)", EXPENSIVE_CLIENTS, "clients")
    figure("cheap clients per transport (Nim from its formula), beside /healthz", CHEAP_CLIENTS, "clients")
    with fresh_database() as url:
        results = {name: measure(url, processes) for name, processes in MODES}
    for key in results[MODES[0][0]]:
        for name, _ in MODES:
            figure(f"{key}, {name}", results[name][key], "")
    print(
        f"targets: cheap p99 <= {TARGET_P99_MS:.0f} ms, /healthz p99 <= {TARGET_P99_MS:.0f} ms, every "
        f"expensive request answered by its deadline + {TARGET_PAST_MS:.0f} ms",
        flush=True,
    )


if __name__ == "__main__":
    main()
