"""Cheap lookups beside expensive live requests, with the live processes (service.isolation) and without.

The load of issue 23: 24 clients send expensive live requests (fresh octal and subtraction games, bicolor
positions, Lights Out boards up to 256x256, misère sums) with a 3 s deadline, beside 4 REST and 4 gRPC
clients of cheap lookups (formula values) and one client of /healthz. The same run serves it twice, from
a server computing in its threads (NIMBASE_LIMITS_LIVE_PROCESSES=0) and from one with two live processes,
and prints each figure beside its target: cheap p99 <= 100 ms, /healthz p99 <= 100 ms, and every expensive
request answered by its deadline + 250 ms. Each group of clients is its own process, so the clients do
not share a GIL with each other. With the live processes it then sends the request of defect 1 at full
size over both transports and prints its answer time, the server's resident growth against the live
memory cap, and the live processes replaced and killed by the kernel.

The load functions are shared with the soak (bench.soak_hostile), which runs them beside its own load.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import random
import statistics
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import NamedTuple

import httpx
from prometheus_client.parser import text_string_to_metric_families

from bench.common import Server, figure, fresh_database, process_tree, running_server
from bench.stamped_http import StampedConnection, StampedHttpError
from nimbase.client import NimbaseClient, NimbaseClientError
from nimbase.settings import Settings

SECONDS = 20.0
EXPENSIVE_CLIENTS = 24
#: The processes the expensive clients run in (threads of each).
EXPENSIVE_PROCESSES = 4
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
        cells = format(rng.getrandbits(side * side), f"0{side * side}b")  # not seconds of the client's CPU
        rows = "/".join(cells[row * side : (row + 1) * side] for row in range(side))
        return BATCH, {"game": f"lights-out:{side}x{side}", "position": rows}
    heaps = " ".join(str(rng.randrange(20, 45)) for _ in range(rng.randrange(4, 7)))  # misère sums
    route = rng.choice(("/v1/value", "/v1/best-move"))
    query: dict[str, str | int] = {"game": "subtraction:1,3,4:misere", "position": heaps}
    if route == "/v1/best-move":
        query["limit"] = 1
    return route, query


#: The request of defect 1 at full size: every move of this position built before `limit` was looked at.
RUNAWAY_GAME = "bicolor-nim"
RUNAWAY_POSITION = "9223372036854775807w"


class Sample(NamedTuple):
    """One request as its client saw it."""

    #: Wall-clock time it was sent.
    sent: float
    #: Seconds it took, from the client's send to the whole answer.
    took: float
    #: An HTTP status, a gRPC code name, "WRONG" for a cheap answer that is not the right value, or
    #: "CLIENT-<error>".
    outcome: str
    #: For a 5xx or a wrong value, the request and the answer's start; for an expensive request past its
    #: deadline + 250 ms, the request; else "".
    detail: str
    #: Seconds the server says it took (its Server-Timing, from the request's arrival to the answer's
    #: start), where it says: what the client's own time and the network added is `took` less this.
    server: float = math.nan
    #: Seconds from the send to the kernel's receipt of the answer's last segment (bench.stamped_http),
    #: where known: `took` less this is the client's thread waiting for a core, and reading.
    arrived: float = math.nan


def _threads(count: int, seconds: float, work: Callable[[int, float], list[Sample]]) -> list[Sample]:
    """`work(index, until)` in `count` threads; their samples together."""
    until = time.monotonic() + seconds
    results: list[list[Sample]] = [[] for _ in range(count)]

    def run(index: int) -> None:
        results[index] = work(index, until)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [sample for samples in results for sample in samples]


def _detail(route: str, query: dict[str, str | int], answer: str) -> str:
    return f"{route} {query['game']} {str(query['position'])[:40]!r}: {answer[:200]}"


def _rest(
    http: StampedConnection, route: str, query: dict[str, str | int], headers: dict[str, str]
) -> tuple[str, str, float, float]:
    """One expensive REST request's outcome, its detail for a 5xx, the seconds the server says it took
    and the seconds until its answer reached this machine's kernel (nan where unknown)."""
    try:
        if route == BATCH:
            body = {"game": query["game"], "positions": [query["position"]]}
            reply = http.post_json(route, body, headers)
        else:
            reply = http.get(route, query, headers)
    except StampedHttpError as exc:
        return f"CLIENT-{type(exc).__name__}", _detail(route, query, str(exc)), math.nan, math.nan
    detail = _detail(route, query, reply.text) if reply.status >= 500 else ""
    server = server_seconds(reply.headers.get("server-timing", ""))
    return str(reply.status), detail, server, reply.arrived - reply.sent


def server_seconds(timing: str) -> float:
    """The `app;dur=` milliseconds of a Server-Timing header, in seconds (nan when absent)."""
    for metric in timing.split(","):
        name, _, duration = metric.strip().partition(";dur=")
        if name == "app":
            try:
                return float(duration) / 1e3
            except ValueError:
                return math.nan
    return math.nan


def expensive_load(
    base: str, seconds: float, clients: int = EXPENSIVE_CLIENTS, deadline_s: float = DEADLINE_S, seed: int = 0
) -> list[Sample]:
    """`clients` clients of expensive live requests, each with a `deadline_s` deadline (x-deadline-ms),
    in `EXPENSIVE_PROCESSES` processes: two dozen threads of one interpreter would wait for its GIL, and
    that wait would be measured as the server's lateness."""
    spawn = multiprocessing.get_context("spawn")
    share = [
        clients // EXPENSIVE_PROCESSES + (i < clients % EXPENSIVE_PROCESSES)
        for i in range(EXPENSIVE_PROCESSES)
    ]
    firsts = [sum(share[:i]) for i in range(EXPENSIVE_PROCESSES)]
    with ProcessPoolExecutor(EXPENSIVE_PROCESSES, mp_context=spawn) as pool:
        parts = [
            pool.submit(_expensive_clients, base, seconds, first, count, deadline_s, seed)
            for first, count in zip(firsts, share, strict=True)
            if count
        ]
        return [sample for part in parts for sample in part.result()]


def _connect(http: StampedConnection) -> None:
    """Opens the client's connection (one /healthz) before its first timed request: two dozen clients
    connecting at once, their threads setting up beside each other, kept the first requests from
    reaching the server for up to 300 ms, time that no deadline of the server can count (it starts at
    a request's arrival) and that is not what the target measures."""
    with contextlib.suppress(StampedHttpError):
        http.request("GET", "/healthz", {}, None)


def _expensive_clients(
    base: str, seconds: float, first: int, count: int, deadline_s: float, seed: int
) -> list[Sample]:
    """Clients `first`.. `first + count - 1` of `expensive_load`, as threads of this process."""

    def work(index: int, until: float) -> list[Sample]:
        rng = random.Random(seed * 1000 + first + index)
        samples: list[Sample] = []
        headers = {"x-deadline-ms": str(int(deadline_s * 1000))}
        with StampedConnection(base) as http:
            _connect(http)
            while time.monotonic() < until:
                route, query = expensive_request(rng)
                sent, started = time.time(), time.monotonic()
                outcome, detail, server, arrived = _rest(http, route, query, headers)
                took = time.monotonic() - started
                if not detail and (took - deadline_s) * 1e3 > TARGET_PAST_MS:  # late: say which request
                    detail = _detail(route, query, outcome)
                samples.append(Sample(sent, took, outcome, detail, server, arrived))
        return samples

    return _threads(count, seconds, work)


def runaway_once(base: str, target: str, deadline_s: float = DEADLINE_S) -> tuple[Sample, Sample]:
    """The request of defect 1 at full size, over REST then gRPC, each with a `deadline_s` deadline."""
    query: dict[str, str | int] = {"game": RUNAWAY_GAME, "position": RUNAWAY_POSITION, "limit": 2}
    with StampedConnection(base) as http:
        sent, started = time.time(), time.monotonic()
        outcome, detail, server, arrived = _rest(
            http, "/v1/best-move", query, {"x-deadline-ms": str(int(deadline_s * 1000))}
        )
        rest = Sample(sent, time.monotonic() - started, outcome, detail, server, arrived)
    with NimbaseClient(target, timeout=deadline_s) as client:
        sent, started = time.time(), time.monotonic()
        try:
            client.best_move(RUNAWAY_GAME, RUNAWAY_POSITION, limit=2)
            code, detail = "OK", ""
        except NimbaseClientError as exc:
            code, detail = exc.code, _detail("BestMove", query, str(exc))
        grpc = Sample(sent, time.monotonic() - started, code, detail)
    return rest, grpc


def runaway_load(base: str, target: str, seconds: float, every_s: float = 10.0) -> list[Sample]:
    """The request of defect 1 over both transports every `every_s` seconds (a process past its memory
    cap is replaced: seconds of CPU each time)."""
    until = time.monotonic() + seconds
    samples: list[Sample] = []
    while time.monotonic() < until:
        began = time.monotonic()
        samples.extend(runaway_once(base, target))
        time.sleep(max(0.0, min(every_s - (time.monotonic() - began), until - time.monotonic())))
    return samples


def _nim_position(rng: random.Random) -> tuple[str, int]:
    heaps = [rng.randrange(10**6, 10**12) for _ in range(3)]
    return " ".join(map(str, heaps)), heaps[0] ^ heaps[1] ^ heaps[2]


def cheap_rest(base: str, seconds: float, clients: int = CHEAP_CLIENTS, seed: int = 0) -> list[Sample]:
    """Nim values (from the formula), checked against the nim-sum."""

    def work(index: int, until: float) -> list[Sample]:
        rng = random.Random(1000 + seed * 1000 + index)
        samples: list[Sample] = []
        with httpx.Client(base_url=base, timeout=60) as http:
            while time.monotonic() < until:
                position, grundy = _nim_position(rng)
                sent, started = time.time(), time.monotonic()
                query: dict[str, str | int] = {"game": "nim", "position": position}
                try:
                    reply = http.get("/v1/value", params=query)
                    outcome, detail = str(reply.status_code), ""
                    if reply.status_code != 200 or reply.json()["grundy"] != grundy:
                        outcome = "WRONG" if reply.status_code == 200 else outcome
                        detail = _detail("/v1/value", query, reply.text)
                except httpx.HTTPError as exc:
                    outcome, detail = f"CLIENT-{type(exc).__name__}", _detail("/v1/value", query, str(exc))
                samples.append(Sample(sent, time.monotonic() - started, outcome, detail))
        return samples

    return _threads(clients, seconds, work)


def cheap_grpc(target: str, seconds: float, clients: int = CHEAP_CLIENTS, seed: int = 0) -> list[Sample]:
    """Nim values over gRPC, checked as over REST."""

    def work(index: int, until: float) -> list[Sample]:
        rng = random.Random(2000 + seed * 1000 + index)
        samples: list[Sample] = []
        with NimbaseClient(target, timeout=60) as client:
            while time.monotonic() < until:
                position, grundy = _nim_position(rng)
                sent, started = time.time(), time.monotonic()
                query: dict[str, str | int] = {"game": "nim", "position": position}
                try:
                    answer = client.get_value("nim", position)
                    ok = answer.get("grundy") == grundy
                    outcome, detail = ("OK", "") if ok else ("WRONG", _detail("GetValue", query, str(answer)))
                except NimbaseClientError as exc:
                    outcome, detail = exc.code, _detail("GetValue", query, str(exc))
                samples.append(Sample(sent, time.monotonic() - started, outcome, detail))
        return samples

    return _threads(clients, seconds, work)


def health(base: str, seconds: float) -> list[Sample]:
    def work(_index: int, until: float) -> list[Sample]:
        samples: list[Sample] = []
        with httpx.Client(base_url=base, timeout=60) as http:
            while time.monotonic() < until:
                sent, started = time.time(), time.monotonic()
                try:
                    outcome, detail = str(http.get("/healthz").status_code), ""
                except httpx.HTTPError as exc:
                    outcome, detail = f"CLIENT-{type(exc).__name__}", f"/healthz: {exc}"
                samples.append(Sample(sent, time.monotonic() - started, outcome, detail))
                time.sleep(0.05)
        return samples

    return _threads(1, seconds, work)


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, int(len(ordered) * 0.99) - 1)] if ordered else float("nan")


def _median(samples: list[float]) -> float:
    return statistics.median(samples) if samples else float("nan")


def late_text(sample: Sample, deadline_s: float = DEADLINE_S) -> str:
    """How late an expensive request was as its client saw it, and by the server's own clock."""
    text = f"{(sample.took - deadline_s) * 1e3:.0f} ms"
    if not math.isnan(sample.arrived):
        text += f" (its answer here {(sample.arrived - deadline_s) * 1e3:.0f} ms past)"
    if not math.isnan(sample.server):
        text += f" (by the server's clock {(sample.server - deadline_s) * 1e3:.0f} ms)"
    return text


def figures(
    rest: list[Sample], grpc: list[Sample], healthz: list[Sample], expensive: list[Sample], deadline_s: float
) -> dict[str, float]:
    """The figures of the targets from the samples of one run."""
    past = [sample.took - deadline_s for sample in expensive]
    server_past = [sample.server - deadline_s for sample in expensive if not math.isnan(sample.server)]
    rest_s, grpc_s = [sample[1] for sample in rest], [sample[1] for sample in grpc]
    return {
        "cheap REST p50 (ms)": _median(rest_s) * 1e3,
        "cheap REST p99 (ms)": p99(rest_s) * 1e3,
        "cheap gRPC p50 (ms)": _median(grpc_s) * 1e3,
        "cheap gRPC p99 (ms)": p99(grpc_s) * 1e3,
        "/healthz p99 (ms)": p99([sample[1] for sample in healthz]) * 1e3,
        "expensive requests": float(len(past)),
        "worst expensive request past its deadline (ms)": max(past, default=float("nan")) * 1e3,
        "expensive requests past deadline + 250 ms": float(sum(p * 1e3 > TARGET_PAST_MS for p in past)),
        "worst expensive answer's arrival past its deadline (kernel stamp, ms)": max(
            (sample.arrived - deadline_s for sample in expensive if not math.isnan(sample.arrived)),
            default=math.nan,
        )
        * 1e3,
        "worst expensive request past its deadline by the server's clock (ms)": max(
            server_past, default=math.nan
        )
        * 1e3,
    }


def loop_lag_figures(base: str) -> dict[str, float]:
    """The server's event loop since it started, from its `/metrics` (service.loop_lag): how many of its
    timer's ticks ran more than 100 ms and 250 ms late (a request read in such a moment waited as long
    before its arrival, which no deadline or Server-Timing counts). Empty if unreadable."""
    with contextlib.suppress(httpx.HTTPError):
        reply = httpx.get(f"{base}/metrics", timeout=10)
        buckets: dict[float, float] = {}
        for family in text_string_to_metric_families(reply.text):
            if family.name == "nimbase_event_loop_lag_seconds":
                for sample in family.samples:
                    if sample.name.endswith("_bucket"):
                        buckets[float(sample.labels["le"])] = sample.value
        if buckets:
            ticks = buckets[math.inf]
            return {
                "event loop ticks": ticks,
                "event loop ticks more than 100 ms late": ticks - buckets[0.1],
                "event loop ticks more than 250 ms late": ticks - buckets[0.25],
            }
    return {}


def targets_line() -> str:
    return (
        f"targets: cheap p99 <= {TARGET_P99_MS:.0f} ms, /healthz p99 <= {TARGET_P99_MS:.0f} ms, every "
        f"expensive request answered by its deadline + {TARGET_PAST_MS:.0f} ms"
    )


def measure(url: str, live_processes: str) -> dict[str, float]:
    settings = {"NIMBASE_LIMITS_LIVE_PROCESSES": live_processes}
    spawn = multiprocessing.get_context("spawn")
    with running_server(url, settings=settings) as server, ProcessPoolExecutor(4, mp_context=spawn) as pool:
        expensive = pool.submit(expensive_load, server.base, SECONDS)
        time.sleep(2.0)  # the expensive load under way before the cheap requests are timed
        rest = pool.submit(cheap_rest, server.base, SECONDS - 4.0)
        grpc = pool.submit(cheap_grpc, server.target, SECONDS - 4.0)
        healthz = pool.submit(health, server.base, SECONDS - 4.0)
        samples = expensive.result()
        results = figures(rest.result(), grpc.result(), healthz.result(), samples, DEADLINE_S)
        for sample in samples:
            if (sample.took - DEADLINE_S) * 1e3 > TARGET_PAST_MS:
                late = f"late by {late_text(sample)}: {sample.outcome} {sample.detail}"
                print(f"  {live_processes} live processes: {late}", flush=True)
        results.update(loop_lag_figures(server.base))
        if live_processes != "0":  # with threads, the request grows the server until the kernel kills it
            results.update(runaway_figures(server))
    return results


def _resident(pid: int) -> int:
    """A process's resident bytes (VmRSS); 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _kernel_kills(pids: set[int]) -> int | None:
    """How many of `pids` the kernel's log says it killed (out of memory); None if it cannot be read."""
    try:
        log = subprocess.run(["dmesg"], capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return sum(f"Killed process {pid} " in log for pid in pids)


def runaway_figures(server: Server) -> dict[str, float]:
    """The request of defect 1 at full size over both transports: its answer time against its deadline,
    the server's resident growth against the live memory cap, the live processes replaced, kernel kills."""
    before = set(process_tree(server.pid))
    base_rss = _resident(server.pid)
    peak = base_rss
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.wait(0.02):
            peak = max(peak, _resident(server.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        rest, grpc = runaway_once(server.base, server.target)
    finally:
        done.set()
        sampler.join()
    time.sleep(1.0)  # a process past its cap is replaced by now
    after = set(process_tree(server.pid))
    kills = _kernel_kills(before | after)
    print(f"defect 1 at full size: REST answered {rest[2]}, gRPC answered {grpc[2]}", flush=True)
    if kills is None:
        print("defect 1 at full size: the kernel's log (dmesg) is not readable here", flush=True)
    return {
        "defect 1, REST: answered past its deadline (ms)": (rest[1] - DEADLINE_S) * 1e3,
        "defect 1, gRPC: answered past its deadline (ms)": (grpc[1] - DEADLINE_S) * 1e3,
        "defect 1: server resident growth, peak (MiB)": (peak - base_rss) / 2**20,
        "defect 1: live memory cap, each process (MiB)": Settings.from_env().limits.live_memory_bytes / 2**20,
        "defect 1: live processes replaced": float(len(before - after)),
        "defect 1: processes the kernel killed (dmesg)": float("nan") if kills is None else float(kills),
    }


def main() -> None:
    figure("expensive clients (REST, 3 s deadline)", EXPENSIVE_CLIENTS, "clients")
    figure("cheap clients per transport (Nim from its formula), beside /healthz", CHEAP_CLIENTS, "clients")
    with fresh_database() as url:
        results = {name: measure(url, processes) for name, processes in MODES}
    for key in results[MODES[-1][0]]:
        for name, _ in MODES:
            if key in results[name]:
                figure(f"{key}, {name}", results[name][key], "")
    print(targets_line(), flush=True)
    print(
        "target for defect 1: answered (or refused) by its deadline, the server growing by less than the "
        "cap, no process killed by the kernel",
        flush=True,
    )


if __name__ == "__main__":
    main()
