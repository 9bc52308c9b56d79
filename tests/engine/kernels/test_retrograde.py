"""Retrograde analysis of game graphs: the queue kernel against the naive fixed point, hand-built graphs
with known results, packing, the generalised Sprague-Grundy function of loopy graphs (against its
characterisation by sums with nim heaps), and kernels of acyclic graphs. The `graph:NAME` kind over them
is tested in tests/kinds/graphs/test_kind.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kernels import retrograde as R
from kinds.graphs.kind import gamma_text
from tests.engine.random_graphs import Graph, graphs


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
