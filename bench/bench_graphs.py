"""Uploaded graphs (UploadGraph, GetGraph) at the largest size allowed: 10,000,000 edges on 100,000 vertices.

- the upload's checks (engine.graphs.GraphBuilder: names to indices, in parts of 1,000,000 edges),
- the write (storage.graphs: deflated int32 chunks in one transaction) and the bytes it takes,
- the read back (verified), and GetGraph's messages (service.convert.graph_to_pb),
- through a real server: the gRPC client's streamed upload and GetGraph of 1,000,000 edges.

Run: `python -m bench.bench_graphs` (a fresh database on DATABASE_URL, else the embedded one).
"""

from __future__ import annotations

import time

import numpy as np

from bench.common import ADMIN_TOKEN, figure, fresh_database, running_server
from engine.graphs import GraphBuilder
from nimbase_client import NimbaseClient
from service.convert import graph_to_pb
from storage.database import create_engine
from storage.graphs import GraphStore

VERTICES = 100_000
EDGES = 10_000_000
PART = 1_000_000


def main() -> None:
    rng = np.random.default_rng(2024)
    names = [f"v{i}" for i in range(VERTICES)]
    sources = rng.integers(0, VERTICES, EDGES)
    targets = rng.integers(0, VERTICES, EDGES)

    parts = [
        (
            [names[i] for i in sources[lo : lo + PART].tolist()],
            [names[i] for i in targets[lo : lo + PART].tolist()],
        )
        for lo in range(0, EDGES, PART)
    ]
    started = time.perf_counter()
    builder = GraphBuilder("big")
    builder.add_vertices(names)
    for part_sources, part_targets in parts:
        builder.add_edges(part_sources, part_targets)
    graph = builder.finish()
    figure("upload checks, 10M edges (names to indices)", time.perf_counter() - started, "s")
    del parts

    with fresh_database() as url:
        engine = create_engine(url)
        store = GraphStore(engine)
        started = time.perf_counter()
        store.create(graph)
        figure("store 10M edges (one transaction)", time.perf_counter() - started, "s")
        figure("stored bytes per edge", store.table_bytes() / EDGES, "B")
        started = time.perf_counter()
        loaded = store.load("big")
        figure("load 10M edges (verified)", time.perf_counter() - started, "s")
        assert loaded is not None and np.array_equal(loaded.targets, graph.targets)
        started = time.perf_counter()
        parts = sum(1 for _ in graph_to_pb(loaded))
        figure(f"GetGraph messages of 10M edges ({parts} parts)", time.perf_counter() - started, "s")
        engine.dispose()

        with (
            running_server(url) as server,
            NimbaseClient(server.target, token=ADMIN_TOKEN, timeout=600) as client,
        ):
            edges = [
                [names[a], names[b]]
                for a, b in zip(sources[:PART].tolist(), targets[:PART].tolist(), strict=True)
            ]
            started = time.perf_counter()
            client.upload_graph("million", names, edges)
            figure("UploadGraph over gRPC, 1M edges", time.perf_counter() - started, "s")
            started = time.perf_counter()
            back = client.get_graph("million")
            figure("GetGraph over gRPC, 1M edges", time.perf_counter() - started, "s")
            assert back["edges"] == edges


if __name__ == "__main__":
    main()
