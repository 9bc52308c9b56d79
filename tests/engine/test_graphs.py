"""engine.graphs: an upload's checks (each quoting what is wrong), the parts an upload may come in, and
the unbound kind of a game id naming a graph."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import InvalidArgument, InvalidGameId
from engine.games.lights_out import LightsOut
from engine.games.registry import parse_game_id
from engine.graphs import MAX_NAME_CHARS, GraphBuilder, NeedsGraph, build_graph, check_graph_name


def test_names() -> None:
    for name in ("g", "petersen", "K_5", "a.b-c~d", "x" * MAX_NAME_CHARS):
        assert check_graph_name(name) == name
    for bad in ("", "a b", "a/b", "a:b", "x" * (MAX_NAME_CHARS + 1), "é", "a\x00", 3):
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
    assert bound.solve(bound.parse("111")).remoteness == 1
    assert parse_game_id("lights-out:5x5").graph_name is None
    with pytest.raises(InvalidArgument, match="self-loop"):
        kind.bind_graph(build_graph("triangle", ["a", "b"], [["a", "b"], ["b", "b"]]))
