"""Stored graphs: round trips (a million edges included), names taken for good, nothing stored by a
refused write, damage detected on read, and the layout (no row per edge)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import sqlalchemy as sa

from engine.errors import InvalidArgument
from engine.graphs import LABEL_CODES, GraphBuilder, UploadedGraph, build_graph
from storage.graphs import EDGE_CHUNK, VERTEX_CHUNK, CorruptGraph, GraphExists, GraphStore


def same(a: UploadedGraph, b: UploadedGraph) -> bool:
    return (
        a.name == b.name
        and a.vertices == b.vertices
        and np.array_equal(a.sources, b.sources)
        and np.array_equal(a.targets, b.targets)
        and np.array_equal(a.terminal_vertices, b.terminal_vertices)
        and np.array_equal(a.terminal_labels, b.terminal_labels)
    )


def rows(engine: sa.Engine) -> tuple[int, int]:
    with engine.connect() as conn:
        return (
            int(conn.execute(sa.text("SELECT count(*) FROM graphs")).scalar_one()),
            int(conn.execute(sa.text("SELECT count(*) FROM graph_chunks")).scalar_one()),
        )


def test_a_small_graph_round_trips(clean_db: sa.Engine) -> None:
    graph = build_graph(
        "kite",
        ["a", "b", "c", "é ü", "tip"],
        [["a", "b"], ["b", "c"], ["c", "a"], ["c", "é ü"], ["é ü", "tip"], ["a", "b"], ["b", "b"]],
        {"tip": "draw"},
    )
    store = GraphStore(clean_db)
    info = store.create(graph)
    assert (info.name, info.vertex_count, info.edge_count, info.terminal_count) == ("kite", 5, 7, 1)
    loaded = store.load("kite")
    assert loaded is not None and same(loaded, graph)
    assert loaded.created_at == info.created_at.isoformat()
    assert loaded.terminals() == {"tip": "draw"}
    assert loaded.edge_names(5, 7) == [["a", "b"], ["b", "b"]]  # repeats and self-loops kept
    assert store.info("kite") == info
    assert store.load("other") is None and store.info("other") is None


def test_a_graph_without_edges_or_terminals(clean_db: sa.Engine) -> None:
    store = GraphStore(clean_db)
    graph = build_graph("lonely", ["x"])
    store.create(graph)
    loaded = store.load("lonely")
    assert loaded is not None and same(loaded, graph) and loaded.edge_count == 0
    assert rows(clean_db) == (1, 1)  # its row and one chunk of vertices


def test_a_million_edges_round_trip_in_a_few_chunks(clean_db: sa.Engine) -> None:
    n, m = 150_000, 1_000_000
    rng = np.random.default_rng(7)
    vertices = tuple(f"v{i}" for i in range(n))
    sources = rng.integers(0, n, m).astype(np.int32)
    targets = rng.integers(0, n, m).astype(np.int32)
    terminal_vertices = np.arange(0, n, 1000, dtype=np.int32)
    terminal_labels = (terminal_vertices % 3).astype(np.uint8)
    graph = UploadedGraph("million", vertices, sources, targets, terminal_vertices, terminal_labels)
    store = GraphStore(clean_db)
    store.create(graph)
    loaded = store.load("million")
    assert loaded is not None and same(loaded, graph)
    chunks = -(-n // VERTEX_CHUNK) + -(-m // EDGE_CHUNK) + 1
    assert rows(clean_db) == (1, chunks)  # no row per edge
    assert store.table_bytes() < 16 * m  # packed: int32 pairs, deflated


def test_the_builder_reads_parts(clean_db: sa.Engine) -> None:
    builder = GraphBuilder("parts")
    builder.add_terminals({"c": "win"})
    builder.add_vertices(["a", "b"])
    builder.add_edges(["a"], ["b"])
    builder.add_vertices(["c"])
    builder.add_edges(["b", "a"], ["c", "c"])
    graph = builder.finish()
    assert graph.edge_names() == [["a", "b"], ["b", "c"], ["a", "c"]]
    assert graph.terminals() == {"c": "win"} and graph.terminal_labels.tolist() == [LABEL_CODES["win"]]
    with pytest.raises(InvalidArgument, match="unknown vertex 'd'"):
        builder.add_edges(["a"], ["d"])
    with pytest.raises(InvalidArgument, match="2 edge sources but 1"):
        builder.add_edges(["a", "b"], ["c"])


def test_a_name_is_taken_for_good_and_a_refused_write_stores_nothing(clean_db: sa.Engine) -> None:
    store = GraphStore(clean_db)
    store.create(build_graph("once", ["a", "b"], [["a", "b"]]))
    before = rows(clean_db)
    with pytest.raises(GraphExists, match="'once'"):
        store.create(build_graph("once", ["x"]))
    assert rows(clean_db) == before
    loaded = store.load("once")
    assert loaded is not None and loaded.vertices == ("a", "b")


def test_concurrent_writes_of_one_name_store_one(clean_db: sa.Engine) -> None:
    store = GraphStore(clean_db)
    outcomes: list[str] = []

    def write(i: int) -> None:
        try:
            store.create(build_graph("race", [f"w{i}_{k}" for k in range(50_000)]))
            outcomes.append(f"w{i}")
        except GraphExists:
            outcomes.append("taken")

    threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("taken") == 3
    [winner] = [o for o in outcomes if o != "taken"]
    loaded = store.load("race")
    assert loaded is not None and loaded.vertices[0] == f"{winner}_0" and loaded.vertex_count == 50_000
    assert rows(clean_db) == (1, 1)


def test_damage_is_never_served(clean_db: sa.Engine) -> None:
    store = GraphStore(clean_db)
    store.create(build_graph("fragile", ["a", "b", "c"], [["a", "b"], ["b", "c"]]))
    with clean_db.begin() as conn:
        conn.execute(
            sa.text(
                "UPDATE graph_chunks SET payload = set_byte(payload, 3, get_byte(payload, 3) # 1) "
                "WHERE graph_name = 'fragile' AND part = 'edges'"
            )
        )
    with pytest.raises(CorruptGraph, match=r"'fragile'.*edges: checksum mismatch"):
        store.load("fragile")
    with clean_db.begin() as conn:
        conn.execute(sa.text("DELETE FROM graph_chunks WHERE graph_name = 'fragile' AND part = 'edges'"))
    with pytest.raises(CorruptGraph, match="0 edges"):
        store.load("fragile")


def test_removing_a_graph_removes_its_chunks(clean_db: sa.Engine) -> None:
    store = GraphStore(clean_db)
    store.create(build_graph("gone", ["a", "b"], [["a", "b"]], {"b": "loss"}))
    assert rows(clean_db) == (1, 3)
    with clean_db.begin() as conn:
        conn.execute(sa.text("DELETE FROM graphs WHERE name = 'gone'"))
    assert rows(clean_db) == (0, 0)
