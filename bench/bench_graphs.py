"""Uploaded graphs (UploadGraph, GetGraph) at the largest size allowed: 10,000,000 edges on 100,000 vertices.

- the upload's checks (engine.graphs.GraphBuilder: names to indices, in parts of 1,000,000 edges),
- the write (storage.graphs: deflated int32 chunks in one transaction) and the bytes it takes,
- the read back (verified), and GetGraph's messages (service.convert.graph_to_pb),
- through a real server: the gRPC client's streamed upload and GetGraph of 1,000,000 edges,
- end to end (the issue's target: 10M edges uploaded, solved and stored in <= 60 s): the gRPC client's
  streamed upload of 10M edges (wall time, and the CPU it costs the client and the server), the solve
  job (`graph:NAME`, family "solution") run by one worker, the outcomes, and GetValue answering from the
  stored table (each answer checked against its successors').

Run: `python -m bench.bench_graphs` (a fresh database on DATABASE_URL, else the embedded one).
"""

from __future__ import annotations

import statistics
import time
from datetime import datetime
from typing import cast

import numpy as np
import sqlalchemy as sa
from numpy.typing import NDArray

from bench.common import ADMIN_TOKEN, cpu_seconds, figure, fresh_database, running_server
from engine.graphs import GraphBuilder
from engine.kernels.retrograde import LOSS, csr_from_edges
from engine.moves import move_rank
from engine.values import MoveValue
from kinds.graphs import kind as graph_game
from nimbase_client import NimbaseClient, records
from service.convert import graph_to_pb
from storage.database import create_engine
from storage.graphs import GraphStore
from storage.sequences import SequenceStore
from tests.engine.contexts import engine_context
from worker.runner import Worker

VERTICES = 100_000
EDGES = 10_000_000
PART = 1_000_000
#: The issue's target for a graph of EDGES edges: uploaded, solved and stored.
TARGET_SECONDS = 60.0
#: Vertices asked for (GetValue) once the solution is stored.
QUERIES = 20
#: Vertices with no move (losses for the player to move, normal play): with none, a random graph of
#: 100 moves a vertex is all draws and its solve has nothing to propagate.
MOVELESS = 1_000


def main() -> None:
    wide_vertex()
    rng = np.random.default_rng(2024)
    names = [f"v{i}" for i in range(VERTICES)]
    sources = rng.integers(0, VERTICES - MOVELESS, EDGES)  # the last MOVELESS vertices have no move
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
        messages = sum(1 for _ in graph_to_pb(loaded))
        figure(f"GetGraph messages of 10M edges ({messages} parts)", time.perf_counter() - started, "s")
        del graph, loaded

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
            del edges, back
            end_to_end(client, server.pid, engine, names, sources, targets)
        engine.dispose()


def end_to_end(
    client: NimbaseClient,
    server_pid: int,
    engine: sa.Engine,
    names: list[str],
    sources: NDArray[np.int64],
    targets: NDArray[np.int64],
) -> None:
    """The issue's target through a real server and a real worker: the 10M edges streamed by the gRPC
    client, the solve job submitted for `graph:NAME` and run by one worker (in this process, timed
    around its call), then GetValue answering from the stored solution."""
    warm_up()
    # What a caller holding its graph has: each edge a pair of names (the same 100,000 strings
    # referenced, not 20M copies). The client streams them, names and all, in parts of about 4 MiB.
    source_names = list(map(names.__getitem__, sources.tolist()))
    target_names = list(map(names.__getitem__, targets.tolist()))
    server_cpu, client_cpu = cpu_seconds(server_pid), time.process_time()
    began = time.perf_counter()
    summary = client.upload_graph("e2e", names, zip(source_names, target_names, strict=True))
    upload = time.perf_counter() - began
    server_cpu, client_cpu = cpu_seconds(server_pid) - server_cpu, time.process_time() - client_cpu
    assert (summary["vertex_count"], summary["edge_count"]) == (VERTICES, EDGES), summary
    del source_names, target_names
    started = time.perf_counter()
    job = client.submit_job("graph:e2e", 0)
    submit = time.perf_counter() - started
    assert (job["family"], job["status"]) == ("solution", "queued"), job
    worker_cpu = time.process_time()
    started = time.perf_counter()
    assert Worker(engine, poll_seconds=0.05).run_once()
    work = time.perf_counter() - started
    worker_cpu = time.process_time() - worker_cpu
    total = time.perf_counter() - began
    done = client.get_job(job["id"])
    assert done["status"] == "done" and done["started_at"] and done["finished_at"], done
    claimed = datetime.fromisoformat(done["finished_at"]) - datetime.fromisoformat(done["started_at"])
    figure("end to end: UploadGraph of 10M edges over gRPC, to stored", upload, "s")
    figure("end to end: upload, client CPU (names into messages)", client_cpu, "s")
    figure("end to end: upload, server CPU (parse, checks, store)", server_cpu, "s")
    figure("end to end: SubmitJob (the server binds the graph)", submit, "s")
    figure("end to end: worker's job (load, bind, solve, store)", work, "s")
    figure("end to end: worker's job, CPU", worker_cpu, "s")
    figure("end to end: worker's job, claim to done (jobs table)", claimed.total_seconds(), "s")
    figure("end to end: total (upload to solution stored)", total, "s")
    figure("end to end: target", TARGET_SECONDS, "s")
    figure(
        "end to end: stored bytes per vertex (the solution)",
        SequenceStore(engine).table_bytes() / VERTICES,
        "B",
    )
    stats = client.get_stats("graph:e2e")
    for outcome in ("wins", "losses", "draws"):
        figure(f"end to end: {outcome}", 100 * cast(int, stats.get(outcome)) / VERTICES, "%")
    query(client, names, sources, targets)


def query(
    client: NimbaseClient, names: list[str], sources: NDArray[np.int64], targets: NDArray[np.int64]
) -> None:
    """GetValue of a few vertices from the stored table, each checked against its successors' values:
    a loss has only winning successors (the slowest one ply nearer), a win a losing one (the fastest one
    ply nearer), a draw a drawn one and no losing one."""
    game = "graph:e2e"
    started = time.perf_counter()
    first = client.get_value(game, names[0])
    while first["source"] != "table" and time.perf_counter() - started < 10:  # a header read just before
        time.sleep(0.1)
        first = client.get_value(game, names[0])
    figure("end to end: first GetValue (binds, reads the solution)", time.perf_counter() - started, "s")
    assert first["source"] == "table", first
    rng = np.random.default_rng(7)
    latencies = []
    for vertex in rng.integers(0, VERTICES, QUERIES).tolist():
        started = time.perf_counter()
        answer = client.get_value(game, names[vertex])
        latencies.append(time.perf_counter() - started)
        assert answer["source"] == "table", answer
        moves = targets[sources == vertex].tolist()
        batch = client.batch_get_values(game, [names[w] for w in moves])["values"]
        after = [cast(records.Value, v) for v in batch if "outcome" in v]
        assert len(after) == len(moves)
        outcome, remoteness = answer.get("outcome"), answer.get("remoteness")
        losing = [v.get("remoteness", 0) for v in after if v.get("outcome") == "P"]
        if outcome == "P":
            assert all(v.get("outcome") == "N" for v in after), (vertex, answer)
            assert remoteness == 1 + max((v.get("remoteness", 0) for v in after), default=-1), answer
        elif outcome == "N":
            assert remoteness is not None and remoteness - 1 == min(losing), (vertex, answer)
        else:
            assert outcome == "D" and not losing, (vertex, answer)
            assert any(v.get("outcome") == "D" for v in after), (vertex, answer)
    figure(
        f"end to end: GetValue from the table, median of {QUERIES}", statistics.median(latencies) * 1e3, "ms"
    )


#: Moves of the vertex `wide_vertex` ranks.
WIDE = 1_000_000


def wide_vertex() -> None:
    """BestMove with a limit of 10 at a vertex of WIDE moves (to vertices of every outcome and many
    remoteness values), beside valuing and ranking every move, as BestMove did before (same run)."""
    rng = np.random.default_rng(11)
    n = WIDE + 1
    # Leaves chained in short paths of random length: their values are wins and losses at many depths.
    targets = np.arange(1, n, dtype=np.int64)
    nxt = np.where(rng.random(n - 1) < 0.8, np.minimum(targets + 1, n - 1), 0)
    sources = np.concatenate([np.zeros(n - 1, dtype=np.int64), targets[nxt > 0]])
    ends = np.concatenate([targets, nxt[nxt > 0]])
    indptr, indices = csr_from_edges(n, sources.tolist(), ends.tolist())
    names = [f"v{i}" for i in range(n)]
    wide = graph_game.GraphGame("wide", names, indptr, indices, np.full(n, LOSS, dtype=np.int8))
    game = wide.with_solution(wide.solve(), "live")
    ctx = engine_context()
    started = time.perf_counter()
    best = game.best_moves(0, 10, ctx).moves
    figure(f"BestMove limit 10 at a vertex of {WIDE:,} moves", (time.perf_counter() - started) * 1e3, "ms")
    started = time.perf_counter()
    every = sorted(
        (MoveValue(names[w], game.value_of(w)) for w in game.successors(0).tolist()), key=move_rank
    )
    figure(
        "  ... every move valued and ranked (the previous BestMove)",
        (time.perf_counter() - started) * 1e3,
        "ms",
    )
    assert [m.move for m in best] == [m.move for m in every[:10]]


def warm_up() -> None:
    """Load (or compile) the solve's numba kernels once, so the worker's figure is of the work."""
    indptr, indices = csr_from_edges(3, [0, 1, 1], [1, 0, 2])
    graph_game.solve(indptr, indices, np.full(3, LOSS, dtype=np.int8))


if __name__ == "__main__":
    main()
