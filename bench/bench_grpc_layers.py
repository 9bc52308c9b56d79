"""Where a gRPC GetValue's time goes: h2load against one server per layer (bench.layer_server), each layer
adding one piece of nimbase to a bare grpc.aio echo server, in turns, best of CAPACITY_ROUNDS rounds each.

Prints each layer's calls/s, its ratio to the echo server, and what it adds per call over the layer
before it (µs of the server's time, from the rates). `nimbase` is nimbase's own GetValue: its ratio is
the one bench.bench_service judges (target >= 0.8), h2load's one request answered from the answer cache;
`uncached` shows what a call costs when it is looked up, `minimal` what a lookup costs that does only what
any lookup must.

Run: `python -m bench.bench_grpc_layers` (a fresh database on DATABASE_URL, else the embedded one).
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator

from bench.bench_service import CAPACITY_ROUNDS, GAME, h2load_rate, stored_database
from bench.common import figure, free_port
from bench.layer_server import LAYERS
from nimbase.v1 import nimbase_pb2 as pb


@contextlib.contextmanager
def layer_servers(url: str) -> Iterator[dict[str, str]]:
    """One server per layer on loopback; yields each layer's method URL."""
    ports = {layer: free_port() for layer in LAYERS}
    processes = [
        subprocess.Popen([sys.executable, "-m", "bench.layer_server", layer, str(port), url])
        for layer, port in ports.items()
    ]
    try:
        time.sleep(5)
        yield {
            layer: f"http://127.0.0.1:{port}/"
            + ("bench.Echo/Echo" if layer == "echo" else "nimbase.v1.Nimbase/GetValue")
            for layer, port in ports.items()
        }
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait()


def main() -> None:
    if shutil.which("h2load") is None:
        print("h2load not installed (Debian package nghttp2-client): the layers are not measured")
        return
    request = pb.GetValueRequest(game=GAME, position="123457").SerializeToString()
    with stored_database() as url, layer_servers(url) as urls:
        bodies = {layer: b"x" * 32 if layer == "echo" else request for layer in LAYERS}
        for layer in LAYERS:
            h2load_rate(urls[layer], bodies[layer], 5_000)  # warm up: connections, chunks, live prefix
        rates: dict[str, list[float]] = {layer: [] for layer in LAYERS}
        for _ in range(CAPACITY_ROUNDS):
            for layer in LAYERS:
                rates[layer].append(h2load_rate(urls[layer], bodies[layer]) or 0.0)
    best = {layer: max(found) for layer, found in rates.items()}
    before = best["echo"]
    for layer in LAYERS:
        figure(f"gRPC layer {layer}: best of {CAPACITY_ROUNDS} rounds", best[layer], "calls/s")
        figure(f"  ... {layer} / echo", best[layer] / best["echo"], "x")
        if layer != "echo":
            added = (1 / best[layer] - 1 / before) * 1e6
            figure(f"  ... {layer}: adds over the layer before", added, "µs/call")
        before = best[layer]


if __name__ == "__main__":
    main()
