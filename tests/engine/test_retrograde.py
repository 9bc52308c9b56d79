"""Retrograde analysis of game graphs: the queue kernel against the naive fixed point, hand-built graphs
with known results, packing, the generalised Sprague-Grundy function of loopy graphs (against its
characterisation by sums with nim heaps), kernels of acyclic graphs, and the `graph:NAME` kind."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from engine.errors import InvalidArgument, InvalidPosition, LimitExceeded
from engine.games import graph_game
from engine.games.graph_game import GraphGame, GraphSolution, gamma_text
from engine.graphs import build_graph
from engine.kernels import retrograde as R
from engine.moves import move_rank
from engine.values import MoveValue
from tests.engine import engine_context


@dataclass
class Graph:
    n: int
    edges: list[tuple[int, int]]
    terminal: list[int]

    def csr(self) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
        return R.csr_from_edges(self.n, [a for a, _ in self.edges], [b for _, b in self.edges])


@st.composite
def graphs(draw: st.DrawFn, max_n: int = 12, labels: bool = True) -> Graph:
    n = draw(st.integers(1, max_n))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    terminal = draw(st.lists(st.sampled_from([-1, -1, 0, 1] if labels else [-1]), min_size=n, max_size=n))
    return Graph(n, edges, terminal)


def solve(g: Graph) -> tuple[list[int], list[int]]:
    indptr, indices = g.csr()
    outcome, remoteness = R.solve_graph(indptr, indices, np.array(g.terminal, dtype=np.int8))
    return outcome.tolist(), remoteness.tolist()


# -- win / loss / draw and remoteness -----------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_kernel_matches_naive_fixed_point(g: Graph) -> None:
    indptr, indices = g.csr()
    assert solve(g) == R.solve_graph_reference(indptr.tolist(), indices.tolist(), g.terminal)


@settings(max_examples=60, deadline=None)
@given(graphs(max_n=40), st.integers(1, 5))
def test_progress_chunks_do_not_change_the_result(g: Graph, chunk: int) -> None:
    indptr, indices = g.csr()
    old = R.PROGRESS_CHUNK
    calls: list[tuple[int, int]] = []
    try:
        R.PROGRESS_CHUNK = chunk  # many resumptions of the kernel
        outcome, remoteness = R.solve_graph(
            indptr, indices, np.array(g.terminal, np.int8), progress=lambda d, t: calls.append((d, t))
        )
    finally:
        R.PROGRESS_CHUNK = old
    assert (outcome.tolist(), remoteness.tolist()) == solve(g)
    assert calls and all(t == g.n for _, t in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_cycle_without_exit_is_a_draw() -> None:
    assert solve(Graph(2, [(0, 1), (1, 0)], [-1, -1])) == ([0, 0], [-1, -1])
    assert solve(Graph(1, [(0, 0)], [-1])) == ([0], [-1])
    # A cycle with an exit to a lost vertex: whoever can take it wins.
    assert solve(Graph(3, [(0, 1), (1, 0), (1, 2)], [-1, -1, -1])) == ([-1, 1, -1], [2, 1, 0])


def test_mate_in_n_is_found_as_n_and_the_loser_delays() -> None:
    # 0 -> 1 -> 2 -> ... -> 9 (no move at 9: lost there). Vertex k has remoteness 9 - k.
    line = Graph(10, [(k, k + 1) for k in range(9)], [-1] * 10)
    outcome, remoteness = solve(line)
    assert remoteness == [9 - k for k in range(10)]
    assert outcome == [1 if (9 - k) % 2 else -1 for k in range(10)]
    # The winner takes the quickest win: 0 can go to 1 (lost in 2) or to 3 (lost in 0).
    g = Graph(4, [(0, 1), (1, 2), (2, 3), (0, 3)], [-1] * 4)
    assert solve(g)[1][0] == 1
    # The loser takes the slowest loss: 0's moves lead to wins in 1 and in 3.
    g = Graph(7, [(0, 1), (1, 2), (0, 3), (3, 4), (4, 5), (5, 6)], [-1] * 7)
    outcome, remoteness = solve(g)
    assert (outcome[0], remoteness[0]) == (-1, 4)


def test_terminal_labels() -> None:
    # 0 -> {1 (a won end), 2 (a drawn end)}: taking the draw beats moving into the opponent's win.
    assert solve(Graph(3, [(0, 1), (0, 2)], [-1, 1, 0])) == ([0, 1, 0], [-1, 0, -1])
    # 0 -> 1 (won end for the player there): 0 is lost in 1.
    assert solve(Graph(2, [(0, 1)], [-1, 1])) == ([-1, 1], [1, 0])


def test_a_long_line_does_not_recurse() -> None:
    n = 300_000
    indptr, indices = R.csr_from_edges(n, np.arange(n - 1), np.arange(1, n))
    outcome, remoteness = R.solve_graph(indptr, indices)
    assert remoteness[0] == n - 1 and outcome[0] == (1 if (n - 1) % 2 else -1)
    assert R.loopy_grundy(indptr, indices)[:4].tolist() == [(n - 1 - k) % 2 for k in range(4)]


@settings(max_examples=150, deadline=None)
@given(graphs(max_n=10), st.data())
def test_external_moves_equal_explicit_sinks(g: Graph, data: st.DataObject) -> None:
    """Moves out of the graph to positions of known value act like vertices holding those values."""
    sinks = data.draw(st.lists(st.tuples(st.sampled_from([-1, 0, 1]), st.integers(0, 6)), max_size=6))
    links = data.draw(
        st.lists(st.tuples(st.integers(0, g.n - 1), st.integers(0, max(0, len(sinks) - 1))), max_size=12)
        if sinks
        else st.just([])
    )
    # Explicit: each sink (o, r) as a line of r vertices ending in a terminal labelled so that the
    # head holds (o, r).
    n = g.n
    edges = list(g.edges)
    terminal = list(g.terminal)
    heads = []
    for o, r in sinks:
        if o == 0:
            heads.append(n)
            terminal.append(0)
            n += 1
            continue
        label = o if r % 2 == 0 else -o
        chain = list(range(n, n + r + 1))
        edges += [(chain[i], chain[i + 1]) for i in range(r)]
        terminal += [-1] * r + [label]
        heads.append(n)
        n += r + 1
    edges += [(v, heads[s]) for v, s in links]
    explicit = solve(Graph(n, edges, terminal))
    # Summarised external moves.
    count = np.zeros(g.n, np.int32)
    lost_min = np.full(g.n, -1, np.int32)
    won_count = np.zeros(g.n, np.int32)
    won_max = np.zeros(g.n, np.int32)
    for v, s in links:
        o, r = sinks[s]
        count[v] += 1
        if o < 0:
            lost_min[v] = r if lost_min[v] < 0 else min(lost_min[v], r)
        elif o > 0:
            won_count[v] += 1
            won_max[v] = max(won_max[v], r)
    indptr, indices = g.csr()
    outcome, remoteness = R.solve_graph(
        indptr, indices, np.array(g.terminal, np.int8), R.ExternalMoves(count, lost_min, won_count, won_max)
    )
    assert outcome.tolist() == explicit[0][: g.n]
    assert remoteness.tolist() == explicit[1][: g.n]


# -- packing ------------------------------------------------------------------------------------------


def test_pack_round_trip_with_escapes_and_broken_slots() -> None:
    rng = np.random.default_rng(5)
    n = 5000
    outcome = rng.choice(np.array([-1, 0, 1], np.int8), n)
    remoteness = np.where(outcome == 0, -1, rng.integers(0, 400, n)).astype(np.int32)
    broken = rng.random(n) < 0.1
    outcome[broken] = 0
    remoteness[broken] = -1
    packed = R.pack(outcome, remoteness, broken)
    assert packed.codes.dtype == np.uint8 and len(packed) == n
    o, r, b = packed.unpack()
    assert (o == outcome).all() and (r == remoteness).all() and (b == broken).all()
    for i in range(0, n, 37):
        expected = None if broken[i] else (int(outcome[i]), int(remoteness[i]))
        assert packed.lookup(i) == expected
    index = rng.integers(0, n, 300)
    o2, r2, b2 = packed.lookup_many(index)
    assert (o2 == outcome[index]).all() and (r2 == remoteness[index]).all() and (b2 == broken[index]).all()
    for compress in (True, False):
        again = R.Packed.from_bytes(packed.to_bytes(compress))
        assert (again.codes == packed.codes).all() and (again.escape_index == packed.escape_index).all()
        assert again.unpack()[1].tolist() == remoteness.tolist()
    with pytest.raises(ValueError):
        R.Packed.from_bytes(b"XXXX" + packed.to_bytes()[4:])
    # Up to remoteness 125 everything fits the byte.
    small = R.pack(np.ones(126, np.int8), np.arange(126, dtype=np.int32))
    assert small.escape_index.size == 0 and small.nbytes == 126


# -- generalised Sprague-Grundy function, sums, kernels ---------------------------------------------------


def gammas(g: Graph) -> list[R.Gamma]:
    indptr, indices = g.csr()
    gamma = R.loopy_grundy(indptr, indices)
    return [
        (int(x), frozenset()) if x >= 0 else (None, R.infinity_set(indptr, indices, gamma, v))
        for v, x in enumerate(gamma)
    ]


@settings(max_examples=200, deadline=None)
@given(graphs(max_n=9, labels=False))
def test_loopy_grundy_matches_its_characterisation(g: Graph) -> None:
    indptr, indices = g.csr()
    assert gammas(g) == R.loopy_grundy_reference(indptr.tolist(), indices.tolist())


@settings(max_examples=100, deadline=None)
@given(graphs(max_n=30, labels=False))
def test_gamma_gives_the_outcome(g: Graph) -> None:
    outcome, _ = solve(g)
    letters = {1: "N", -1: "P", 0: "D"}
    assert [R.gamma_outcome(x) for x in gammas(g)] == [letters[o] for o in outcome]


@settings(max_examples=100, deadline=None)
@given(graphs(max_n=25, labels=False))
def test_level_algorithm_agrees_with_mex_on_acyclic_graphs(g: Graph) -> None:
    acyclic = Graph(g.n, [(a, b) for a, b in g.edges if a > b], g.terminal)
    indptr, indices = acyclic.csr()
    assert R.is_acyclic(indptr, indices)
    fast = R.loopy_grundy(indptr, indices)
    rev_indptr, rev_indices = R.reverse_csr(indptr, indices)
    label = np.full(g.n, -1, np.int32)
    R._gsg_levels(indptr, indices, rev_indptr, rev_indices, label)
    assert fast.tolist() == label.tolist()
    kernel = set(R.kernel_of_acyclic(indptr, indices).tolist())
    for v in range(g.n):
        followers = set(indices[indptr[v] : indptr[v + 1]].tolist())
        # independent (no move inside the kernel) and absorbing (every vertex outside has a move into it)
        assert (v in kernel) == (not followers & kernel)


def test_kernel_of_a_cyclic_graph_is_refused() -> None:
    indptr, indices = Graph(2, [(0, 1), (1, 0)], [-1, -1]).csr()
    assert not R.is_acyclic(indptr, indices)
    with pytest.raises(ValueError):
        R.kernel_of_acyclic(indptr, indices)


@settings(max_examples=80, deadline=None)
@given(graphs(max_n=6, labels=False), graphs(max_n=6, labels=False))
def test_sums_classify_from_gamma(g: Graph, h: Graph) -> None:
    """The outcome of G + H by retrograde analysis of the product graph equals sum_outcome."""
    edges = [(a * h.n + y, b * h.n + y) for a, b in g.edges for y in range(h.n)]
    edges += [(x * h.n + a, x * h.n + b) for a, b in h.edges for x in range(g.n)]
    outcome, _ = solve(Graph(g.n * h.n, edges, [-1] * (g.n * h.n)))
    gg, gh = gammas(g), gammas(h)
    letters = {1: "N", -1: "P", 0: "D"}
    for x in range(g.n):
        for y in range(h.n):
            assert R.sum_outcome([gg[x], gh[y]]) == letters[outcome[x * h.n + y]]


def test_gamma_of_known_loopy_graph() -> None:
    # Fraenkel's example shape: a 2-cycle with an exit to a terminal. 2 is terminal (0); 1 -> {0, 2}
    # has value 1; 0 -> {1} ... gamma(0) = 0 (its only follower has value 1, which has a follower 0).
    g = Graph(3, [(0, 1), (1, 0), (1, 2)], [-1, -1, -1])
    assert gammas(g) == [(0, frozenset()), (1, frozenset()), (0, frozenset())]
    # A bare 2-cycle: both infinite with K empty (draws).
    assert gammas(Graph(2, [(0, 1), (1, 0)], [-1, -1])) == [(None, frozenset())] * 2
    # A cycle vertex with an exit to a P-position: infinity({0}), an N-position.
    g = Graph(3, [(0, 1), (1, 0), (0, 2), (1, 1)], [-1, -1, -1])
    assert gammas(g)[0] == (None, frozenset({0}))
    assert gamma_text((None, frozenset({0, 2}))) == "∞(0,2)" and gamma_text((3, frozenset())) == "3"


# -- graph:NAME ----------------------------------------------------------------------------------------


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
