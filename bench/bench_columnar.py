"""ColumnarValues over gRPC and REST, 1,000,000 stored single heaps a call, client to client, each beside
its target (issue 31: 10M values/s on both transports).

Beside each rate: the CPU a call takes in the server process and in this client, so that a rate measured on
a machine busy with other work can be read for what the call itself costs (a million values over the CPU
seconds of both sides is what one idle core each would allow).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
import numpy as np
from numpy.typing import NDArray

from bench.bench_service import GAME, STORED, stored_database
from bench.common import cpu_seconds, figure, running_server
from nimbase.client import NimbaseClient

#: Values per second a columnar call of a million stored heaps must reach on each transport.
TARGET = 10_000_000
CALLS = 5
OCTET = {"content-type": "application/octet-stream"}


def measured(name: str, pid: int, call: Callable[[], int]) -> None:
    """`CALLS` calls, after one to warm up: the rate of the fastest, the mean CPU of a call on each side."""
    call()
    walls, server, client = [], 0.0, 0.0
    for _ in range(CALLS):
        server_before, client_before, started = cpu_seconds(pid), time.process_time(), time.perf_counter()
        count = call()
        walls.append(time.perf_counter() - started)
        server += cpu_seconds(pid) - server_before
        client += time.process_time() - client_before
    rate = count / min(walls)
    figure(f"{name}, {count:,} stored heaps a call (fastest of {CALLS})", rate, "values/s")
    figure(f"  ... target >= {TARGET:,}: rate / target", rate / TARGET, "x")
    figure("  ... server CPU a call (mean)", server / CALLS * 1e3, "ms")
    figure("  ... client CPU a call (mean)", client / CALLS * 1e3, "ms")
    figure("  ... values per CPU second of server and client", count * CALLS / (server + client), "values/s")


def main() -> None:
    with stored_database() as url, running_server(url) as server:
        heaps: NDArray[np.uint64] = np.random.default_rng(7).integers(0, STORED, 1_000_000, dtype=np.uint64)
        with (
            NimbaseClient(server.target, timeout=120) as client,
            httpx.Client(base_url=server.base, timeout=120) as http,
        ):

            def grpc_call() -> int:
                return len(client.columnar_values(GAME, heaps))

            def rest_call() -> int:
                body = heaps.astype("<u8").tobytes()
                reply = http.post(f"/v1/values:columnar?game={GAME}", content=body, headers=OCTET)
                reply.raise_for_status()
                return len(np.frombuffer(reply.content, dtype="<u4"))

            measured("ColumnarValues gRPC", server.pid, grpc_call)
            measured("POST /v1/values:columnar", server.pid, rest_call)


if __name__ == "__main__":
    main()
