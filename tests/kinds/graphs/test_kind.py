"""The `graph:NAME` kind (kinds.graphs.kind): values, ranked moves, statistics and refusals of an
uploaded graph, and its one solve against the retrograde kernels it combines."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidArgument, InvalidPosition, LimitExceeded
from engine.graphs import build_graph
from engine.kernels import retrograde as R
from engine.moves import move_rank
from engine.values import MoveValue
from kinds.graphs import kind as graph_game
from kinds.graphs.kind import GraphGame, GraphSolution
from nimbase.settings import Limits
from tests.engine.contexts import StoredWords, engine_context
from tests.engine.random_graphs import Graph, graphs


def uploaded_game(
    name: str,
    vertices: list[str],
    edges: list[tuple[str, str]],
    terminals: dict[str, str] | None = None,
) -> GraphGame:
    """The game of a graph uploaded as the service takes it (engine.graphs.build_graph checks it)."""
    return GraphGame.from_upload(build_graph(name, vertices, edges, terminals))


def test_graph_game_values_moves_and_stats() -> None:
    game = uploaded_game(
        "demo",
        ["a", "b", "c", "d", "e", "x", "y"],
        [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d"), ("a", "x"), ("x", "y"), ("y", "x"), ("a", "e")],
        {"e": "win"},
    )
    assert game.game_id == "graph:demo"
    ctx = engine_context()
    d = game.parse("d")
    assert game.value(d, ctx).as_dict() == {
        "game": "graph:demo", "position": "d", "outcome": "P", "remoteness": 0, "source": "live",
    }  # fmt: skip
    a = game.value(game.parse("a"), ctx)
    assert (a.outcome, a.remoteness, a.grundy) == ("N", 1, None)  # a terminal labelled win: not normal play
    moves = game.best_moves(game.parse("a"), None, ctx).moves
    assert [m.move for m in moves] == ["d", "b", "x", "e"]  # fastest win first, then the draw, the loss
    assert [m.value.outcome for m in moves] == ["P", "P", "D", "N"]
    assert [m.value.remoteness for m in moves] == [0, 2, None, 0]
    assert len(game.best_moves(game.parse("a"), 2, ctx).moves) == 2
    stats = game.stats(ctx)
    assert stats["wins"] == 3 and stats["losses"] == 2 and stats["draws"] == 2
    assert stats["longest_win"] == 1 and "kernel" not in stats and stats["acyclic"] is False
    with pytest.raises(InvalidPosition, match="'zz'"):
        game.parse("zz")


@settings(max_examples=150, deadline=None)
@given(graphs(max_n=14), st.integers(0, 16))
def test_moves_are_ranked_as_their_values_rank(g: Graph, wanted: int) -> None:
    """`ranked` (numpy keys on the packed solution, names only near the cut) lists what sorting every
    move's Value by `move_rank` lists, to any length."""
    labels = {-1: "loss", 0: "draw", 1: "win"}
    names = [f"v{(7 * i) % g.n:02}-{i}" for i in range(g.n)]  # name order is not index order
    movers = {a for a, _ in g.edges}
    terminals = {names[v]: labels[t] for v, t in enumerate(g.terminal) if v not in movers and t != -1}
    game = uploaded_game("g", names, [(names[a], names[b]) for a, b in g.edges], terminals)
    for vertex in range(g.n):
        targets = game.successors(vertex)
        every = sorted(
            (MoveValue(names[w], game.value_of(w)) for w in {b for a, b in g.edges if a == vertex}),
            key=move_rank,
        )
        assert sorted(targets.tolist()) == sorted({b for a, b in g.edges if a == vertex})
        assert [names[w] for w in game.ranked(targets, wanted).tolist()] == [m.move for m in every[:wanted]]


def test_graph_game_normal_play_grundy_and_kernel() -> None:
    # A subtraction game {1, 2} on heaps 0..6 as a graph: Grundy n mod 3, kernel = multiples of 3.
    names = [str(n) for n in range(7)]
    edges = [(str(n), str(n - s)) for n in range(7) for s in (1, 2) if n >= s]
    game = uploaded_game("sub12", names, edges)
    ctx = engine_context()
    assert [game.value(n, ctx).grundy for n in range(7)] == [n % 3 for n in range(7)]
    assert [game.value(n, ctx).remoteness for n in range(7)] == [0, 1, 1, 2, 3, 3, 4]
    stats = game.stats(ctx)
    assert stats["kernel"] == ["0", "3", "6"] and stats["acyclic"] is True and stats["max_grundy"] == 2
    # Loopy, normal play: infinite gamma is absent from `grundy`, given by `gamma`.
    loopy = uploaded_game("loop", ["p", "q", "t"], [("p", "q"), ("q", "p"), ("p", "t"), ("q", "q")])
    assert loopy.gamma(0) == (None, frozenset({0}))
    assert loopy.value(0, ctx).grundy is None and loopy.value(0, ctx).outcome == "N"
    assert "kernel" not in loopy.stats(ctx)


def test_graph_game_refusals_and_sizes() -> None:
    with pytest.raises(InvalidArgument, match="unknown vertex 'z'"):
        uploaded_game("g", ["a"], [("a", "z")])
    with pytest.raises(InvalidArgument, match="has a move"):
        uploaded_game("g", ["a", "b"], [("a", "b")], {"a": "win"})
    with pytest.raises(InvalidArgument, match="a terminal is 'win', 'loss' or 'draw'"):
        uploaded_game("g", ["a"], [], {"a": "tie"})
    big = uploaded_game("big", ["a", "b"], [("a", "b"), ("b", "a"), ("a", "a")])
    big.live_edges = 2
    with pytest.raises(LimitExceeded, match="worker"):
        big.value(0, engine_context())
    solution = big.solve()  # the worker's way, whatever the size
    assert big.with_solution(solution, "live").value(0, engine_context()).outcome == "D"
    again = GraphSolution.from_bytes(solution.to_bytes())
    assert again.acyclic == solution.acyclic
    assert again.gamma is not None and solution.gamma is not None
    assert (again.gamma == solution.gamma).all()
    assert (again.packed.codes == solution.packed.codes).all()


@settings(max_examples=150, deadline=None)
@given(graphs(max_n=15), st.booleans())
def test_graph_solve_equals_the_separate_kernels(g: Graph, forward_only: bool) -> None:
    """The solve sharing one reverse graph and one topological order gives what `solve_graph`,
    `loopy_grundy` and `is_acyclic` give apart (cyclic and acyclic, normal play or not)."""
    if forward_only:
        g = Graph(g.n, [(a, b) for a, b in g.edges if a < b], g.terminal)
    indptr, indices = g.csr()
    terminal = np.array(g.terminal, dtype=np.int8)
    solution = graph_game.solve(indptr, indices, terminal)
    outcome, remoteness = R.solve_graph(indptr, indices, terminal)
    assert (solution.packed.codes == R.pack(outcome, remoteness).codes).all()
    assert solution.acyclic == R.is_acyclic(indptr, indices)
    degree = np.diff(indptr)
    if np.any((degree == 0) & (terminal != R.LOSS)):
        assert solution.gamma is None
    else:
        assert solution.gamma is not None
        assert solution.gamma.tolist() == R.loopy_grundy(indptr, indices).tolist()


@pytest.mark.parametrize("edges", [[(0, 1), (1, 2), (0, 2)], [(0, 1), (1, 0), (1, 2)]])
def test_graph_solve_reverses_and_sorts_once(edges: list[tuple[int, int]], monkeypatch: Any) -> None:
    calls = {"reverse": 0, "sort": 0}
    reverse, topological = R.reverse_csr, R._topological

    def counted_reverse(*args: Any) -> Any:
        calls["reverse"] += 1
        return reverse(*args)

    def counted_sort(*args: Any) -> Any:
        calls["sort"] += 1
        return topological(*args)

    monkeypatch.setattr(R, "reverse_csr", counted_reverse)
    monkeypatch.setattr(graph_game, "reverse_csr", counted_reverse)
    monkeypatch.setattr(R, "_topological", counted_sort)
    indptr, indices = Graph(3, edges, [-1] * 3).csr()
    solution = graph_game.solve(indptr, indices, np.full(3, R.LOSS, np.int8))
    assert calls == {"reverse": 1, "sort": 1}
    assert solution.acyclic == (edges[1] != (1, 0)) and solution.gamma is not None


def test_graph_game_from_upload() -> None:
    upload = SimpleNamespace(
        name="up",
        vertices=("s", "t", "u"),
        sources=np.array([0, 1], np.int32),
        targets=np.array([1, 2], np.int32),
        terminal_vertices=np.array([2], np.int32),
        terminal_labels=np.array([2], np.uint8),  # engine.graphs.LABELS: loss, win, draw
    )
    stored = uploaded_game("up", ["s", "t", "u"], [("s", "t"), ("t", "u")], {"u": "draw"}).solve()
    game = GraphGame.from_upload(cast(Any, upload), stored)
    ctx = engine_context()
    assert [game.value(v, ctx).outcome for v in range(3)] == ["D", "D", "D"]
    assert game.value(0, ctx).source == "table"
    # The upload's label codes (loss 0, win 1, draw 2) decoded, each solved afresh from the upload alone.
    for code, expected in ((0, ["P", "N", "P"]), (1, ["N", "P", "N"]), (2, ["D", "D", "D"])):
        upload.terminal_labels = np.array([code], np.uint8)
        fresh = GraphGame.from_upload(cast(Any, upload))
        assert [fresh.value_of(v).outcome for v in range(3)] == expected, code


@settings(max_examples=30, deadline=None)
@given(graph=graphs(), listed=st.integers(min_value=0, max_value=6))
def test_stats_stored_beside_a_solution_are_those_of_the_solution(graph: Graph, listed: int) -> None:
    """The solve job stores the solution's statistics beside it; GetStats answers from them (no solution
    read: none is stored here) what it answers from the stored solution, the kernel listed up to the
    request's limit."""
    labels = {-1: "loss", 0: "draw", 1: "win"}
    names = [f"v{i}" for i in range(graph.n)]
    movers = {a for a, _ in graph.edges}
    terminals = {names[v]: labels[t] for v, t in enumerate(graph.terminal) if v not in movers and t != -1}
    edges = [(names[a], names[b]) for a, b in graph.edges]
    upload = build_graph("stored", names, edges, terminals)
    served = graph_game.StoredGraphGame.from_upload(upload)
    kernel = served.kernel_for("solution")
    assert isinstance(kernel, graph_game.SolutionKernel)
    words = kernel.words()
    stats = kernel.stats_part(words, 0)
    assert stats is not None and kernel.stores_stats
    limits = Limits(stats_p_positions=max(listed, 1))
    with_solution = StoredWords()
    with_solution.words[(served.game_id, "solution")] = words
    expected = served.stats(engine_context(with_solution, limits=limits))
    assert expected["source"] == "table"
    only_stats = StoredWords()
    only_stats.stats[(served.game_id, "solution")] = stats
    assert served.stats(engine_context(only_stats, limits=limits)) == expected
