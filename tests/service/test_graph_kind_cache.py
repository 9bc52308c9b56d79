"""Games bound to an uploaded graph (graph:NAME, lights-out:graph:NAME) are kept within a byte budget
(NIMBASE_CACHE_GRAPH_GAME_BYTES), each counted as its `GameKind.memory_bytes()`.

Against the test PostgreSQL: a real `Nimbase` with a budget of about two and a half games binds several
graphs; the least recently used is dropped, the cache stays within its budget, and every answer stays
right (chains, whose values are known by hand), also for a game bound again after it was dropped or too
large to keep at all. The estimate covers what a bound game allocates.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import sqlalchemy as sa

from engine.graphs import GraphBuilder, UploadedGraph
from engine.kind import KIND_BYTES
from kinds.graphs.kind import StoredGraphGame, solution_bytes
from kinds.lights_out.kind import LightsOut
from kinds.lights_out.records import LightsOutValue
from kinds.lights_out.shape import Shape
from nimbase.settings import DEFAULT_CACHE, CacheSettings, Settings
from service.calls import GetValue, UploadGraph
from service.core import Nimbase

TOKEN = "graph-kind-cache-token"


def chain(name: str, n: int) -> tuple[list[str], list[list[str]]]:
    """name0 -> name1 -> ... -> name(n-1): vertex i is lost (P) when n - 1 - i is even, in n - 1 - i."""
    vertices = [f"{name}{i}" for i in range(n)]
    return vertices, [[vertices[i], vertices[i + 1]] for i in range(n - 1)]


def uploaded(name: str, n: int) -> UploadedGraph:
    vertices, edges = chain(name, n)
    builder = GraphBuilder(name)
    builder.add_vertices(vertices)
    builder.add_edges([a for a, _ in edges], [b for _, b in edges])
    return builder.finish()


def service(engine: sa.Engine, budget: int = DEFAULT_CACHE.graph_game_bytes) -> Nimbase:
    return Nimbase(Settings(admin_token=TOKEN, cache=CacheSettings(graph_game_bytes=budget)), engine)


def check_chain(nimbase: Nimbase, name: str, n: int) -> None:
    """Every few vertices of the chain valued as the rules give."""
    for i in range(0, n, 7):
        value = nimbase.get_value(GetValue(f"graph:{name}", f"{name}{i}"))
        left = n - 1 - i
        assert (value.outcome, value.remoteness) == ("P" if left % 2 == 0 else "N", left)


def kept(nimbase: Nimbase, game_id: str) -> bool:
    """Whether the game is in the cache (membership only: the order of use is left as it is)."""
    return game_id in nimbase._graph_games


def cached_bytes(nimbase: Nimbase) -> float:
    return nimbase._graph_games.currsize


def test_binding_graphs_past_the_budget_drops_the_oldest(clean_db: sa.Engine) -> None:
    lengths = {"ga": 60, "gb": 61, "gc": 62, "gd": 63}
    first = service(clean_db)
    for name, n in lengths.items():
        vertices, edges = chain(name, n)
        first.upload_graph(UploadGraph(name, vertices, edges, token=TOKEN))
    largest = max(first.game(f"graph:{name}").memory_bytes() for name in lengths)
    budget = largest * 5 // 2
    nimbase = service(clean_db, budget)
    bound = {}
    for name, n in lengths.items():
        check_chain(nimbase, name, n)
        bound[name] = nimbase.game(f"graph:{name}")
        assert nimbase.game(f"graph:{name}") is bound[name]  # kept while among the most recent
        assert cached_bytes(nimbase) <= budget
    assert [kept(nimbase, f"graph:{name}") for name in lengths] == [False, False, True, True]
    # Asked again, a dropped game is bound again and answers as before; the least recently used of
    # the kept ones (gc) makes room for it.
    check_chain(nimbase, "ga", lengths["ga"])
    assert nimbase.game("graph:ga") is not bound["ga"]
    assert [kept(nimbase, f"graph:{name}") for name in lengths] == [True, False, False, True]
    assert nimbase.game("graph:gd") is bound["gd"]
    assert cached_bytes(nimbase) <= budget


def test_lights_out_graphs_share_the_budget(clean_db: sa.Engine) -> None:
    first = service(clean_db)
    for name in ("la", "lb", "lc"):
        vertices, edges = chain(name, 40)
        first.upload_graph(UploadGraph(name, vertices, edges, token=TOKEN))
    size = first.game("lights-out:graph:la").memory_bytes()
    nimbase = service(clean_db, size * 2 + size // 2)
    for name in ("la", "lb", "lc"):
        # Pressing the first vertex of a path flips it and its one neighbour: one press solves that.
        value = nimbase.get_value(GetValue(f"lights-out:graph:{name}", "11" + "0" * 38))
        assert isinstance(value.kind, LightsOutValue) and (value.kind.solvable, value.remoteness) == (True, 1)
    assert [kept(nimbase, f"lights-out:graph:{name}") for name in ("la", "lb", "lc")] == [False, True, True]
    assert cached_bytes(nimbase) <= size * 2 + size // 2


def test_a_game_larger_than_the_budget_answers_and_is_not_kept(clean_db: sa.Engine) -> None:
    nimbase = service(clean_db, 1000)
    vertices, edges = chain("big", 30)
    nimbase.upload_graph(UploadGraph("big", vertices, edges, token=TOKEN))
    check_chain(nimbase, "big", 30)
    assert not kept(nimbase, "graph:big") and cached_bytes(nimbase) == 0
    assert nimbase.game("graph:big") is not nimbase.game("graph:big")


def test_the_estimate_covers_what_a_bound_game_allocates() -> None:
    """What binding and solving a game allocates beyond its upload (traced) is within what
    `memory_bytes` says of the kind and `solution_bytes` of its solution (which the keeper holds), so
    a kept game's count need not grow when it is solved."""
    graph = uploaded("traced", 20_000)
    rng = np.random.default_rng(1)
    extra = UploadedGraph(
        "traced",
        graph.vertices,
        np.concatenate([graph.sources, rng.integers(0, 20_000, 100_000, dtype=np.int32)]),
        np.concatenate([graph.targets, rng.integers(0, 20_000, 100_000, dtype=np.int32)]),
        graph.terminal_vertices,
        graph.terminal_labels,
    )
    StoredGraphGame.from_upload(uploaded("warm", 3)).solve()  # the kernels loaded outside the trace
    tracemalloc.start()
    try:
        game = StoredGraphGame.from_upload(extra)
        estimate = game.memory_bytes()
        solution = game.solve()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    names = sum(map(len, graph.vertices))
    # the solution is the keeper's (engine.keep), counted as `solution_bytes`; the kind's count stays
    assert held <= estimate + solution_bytes(solution) and game.memory_bytes() == estimate
    assert estimate >= names + game.indices.nbytes + game.indptr.nbytes
    lights = LightsOut.for_uploaded(graph)
    assert lights.memory_bytes() >= names + lights.shape.neighbourhoods()[1].nbytes
    assert LightsOut(Shape.grid(5, 5)).memory_bytes() == KIND_BYTES  # a grid holds its sides only


def test_the_budget_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings.from_env().cache.graph_game_bytes == DEFAULT_CACHE.graph_game_bytes == 256 << 20
    monkeypatch.setenv("NIMBASE_CACHE_GRAPH_GAME_BYTES", "4096")
    assert Settings.from_env().cache == CacheSettings(graph_game_bytes=4096)
