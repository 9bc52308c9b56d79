"""engine.graphs: an upload's checks (each quoting what is wrong), the parts an upload may come in, and
the unbound kind of a game id naming a graph."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import InvalidArgument, InvalidGameId
from engine.graphs import MAX_NAME_CHARS, GraphBuilder, build_graph, check_graph_name
from engine.needs_graph import NeedsGraph
from engine.positions import quote_token
from engine.registry import parse_game_id
from kinds.lights_out.kind import LightsOut
from tests.engine.contexts import StoredWords, engine_context


def test_names() -> None:
    for name in ("g", "petersen", "K_5", "a.b-c~d", "x" * MAX_NAME_CHARS):
        assert check_graph_name(name) == name
    for bad in ("", ".", "..", "a b", "a/b", "a:b", "x" * (MAX_NAME_CHARS + 1), "é", "a\x00", 3):
        with pytest.raises(InvalidArgument):
            check_graph_name(bad)
    with pytest.raises(InvalidGameId, match="'a b'"):
        check_graph_name("a b", error=InvalidGameId)


@pytest.mark.parametrize(
    ("vertices", "edges", "terminals", "message"),
    [
        (["a", "b"], [["a", "z"]], None, "unknown vertex 'z'"),
        (["a", "b", "a"], [], None, "duplicate vertex name 'a'"),
        (["a", ""], [], None, "vertex name ''"),
        (["a", " b"], [], None, "vertex name ' b'"),
        (["a", "b\tc"], [], None, "vertex name 'b\\tc'"),
        (["a", 7], [], None, "vertex '7'"),
        (["a", "b"], [["a", "b", "a"]], None, "not a pair"),
        (["a", "b"], [["a", "b"]], {"b": "tie"}, "label 'tie'"),
        (["a", "b"], [["a", "b"]], {"c": "win"}, "terminal 'c'"),
        (["a", "b"], [["a", "b"]], {"a": "win"}, "terminal 'a' of graph 'g' has a move"),
        ([], [], None, "no vertex"),
    ],
)
def test_bad_uploads_quote_what_is_wrong(
    vertices: list[object], edges: list[list[str]], terminals: dict[str, object] | None, message: str
) -> None:
    with pytest.raises(InvalidArgument) as info:
        build_graph("g", vertices, edges, terminals)
    assert message in str(info.value)


def test_an_upload_keeps_order_repeats_and_self_loops() -> None:
    edges = [["b", "a"], ["a", "b"], ["b", "a"], ["c", "c"]]
    graph = build_graph("g", ["a", "b", "c", "end"], edges, {"end": "draw"})
    assert graph.edge_names() == edges
    assert graph.sources.dtype == np.int32 and graph.terminals() == {"end": "draw"}
    assert list(graph.edge_batches(3)) == [(0, 3), (3, 4)]


def test_parts_and_terminals_given_twice() -> None:
    builder = GraphBuilder("g")
    builder.add_terminals({"b": "win"})
    builder.add_terminals({"b": "win"})  # the same again is no conflict
    with pytest.raises(InvalidArgument, match="given twice"):
        builder.add_terminals({"b": "loss"})
    builder.add_vertices(["a", "b"])
    builder.add_edges(["a"], ["b"])
    assert builder.finish().terminals() == {"b": "win"}


def test_a_lights_out_graph_id_needs_its_graph() -> None:
    kind = parse_game_id("lights-out:graph:triangle")
    assert isinstance(kind, NeedsGraph) and kind.graph_name == "triangle"
    assert kind.game_id == "lights-out:graph:triangle"
    with pytest.raises(InvalidArgument, match="not loaded"):
        kind.parse("111")
    bound = kind.bind_graph(build_graph("triangle", ["a", "b", "c"], [["a", "b"], ["b", "c"], ["c", "a"]]))
    assert isinstance(bound, LightsOut) and bound.game_id == "lights-out:graph:triangle"
    assert bound.solve(bound.parse("111"), engine_context(StoredWords())).remoteness == 1
    assert parse_game_id("lights-out:5x5").graph_name is None
    with pytest.raises(InvalidArgument, match="self-loop"):
        kind.bind_graph(build_graph("triangle", ["a", "b"], [["a", "b"], ["b", "b"]]))


def _fresh(names: list[str]) -> list[str]:
    """Equal strings that are new objects, as a decoded message gives them."""
    return [name.encode().decode() for name in names]


def test_large_batches_map_names_as_small_ones_do() -> None:
    """Batches of every size, with vertices coming between them, map names (new string objects, as a
    decoded message gives them) to the vertices the dict names."""
    rng = np.random.default_rng(5)
    builder = GraphBuilder("g")
    vertices: list[str] = []
    sources: list[str] = []
    targets: list[str] = []
    for step, (new, edges) in enumerate([(3, 2000), (5000, 1), (20_000, 70_000), (10, 1024), (40_000, 1023)]):
        batch = [f"v{step}.{i}" + ("é" if i % 7 == 0 else "") for i in range(new)]
        builder.add_vertices(batch)
        vertices += batch
        picks = rng.integers(0, len(vertices), (2, edges)).tolist()
        batch_sources = [vertices[i] for i in picks[0]]
        batch_targets = [vertices[i] for i in picks[1]]
        builder.add_edges(_fresh(batch_sources), tuple(batch_targets))
        sources += batch_sources
        targets += batch_targets
    graph = builder.finish()
    assert graph.edge_names() == [list(edge) for edge in zip(sources, targets, strict=True)]


@pytest.mark.parametrize("edges", [1, 5000])
@pytest.mark.parametrize("unknown", ["zz", ["a", "list"], 7])
@pytest.mark.parametrize("fresh", [True, False])
def test_an_unknown_name_is_quoted_in_batches_of_any_size(edges: int, unknown: object, fresh: bool) -> None:
    builder = GraphBuilder("g")
    vertices = [f"v{i}" for i in range(3000)]
    builder.add_vertices(vertices)
    names = [vertices[i % 3000] for i in range(edges)]
    sources: list[object] = [*(_fresh(names) if fresh else names)]
    targets: list[object] = list(reversed(sources))
    targets[edges // 2 if fresh else min(3, edges - 1)] = unknown  # among the first, looked at first
    if edges > 1:
        sources[-1] = "later"  # an unknown name in a later edge is not the one quoted
    with pytest.raises(InvalidArgument) as info:
        builder.add_edges(sources, targets)
    assert f"names an unknown vertex {quote_token(str(unknown))}" in str(info.value)
    assert "later" not in str(info.value)


def test_edge_pairs_quote_the_first_that_is_not_a_pair() -> None:
    for bad in ("ab", ["a"], ("a", "b", "a"), 3):
        edges: list[object] = [["a", "b"], ("b", "a"), bad, ["a"]]
        with pytest.raises(InvalidArgument, match="not a pair") as info:
            GraphBuilder("g").add_edge_pairs(edges)  # type: ignore[arg-type]
        assert quote_token(repr(bad)) in str(info.value)
