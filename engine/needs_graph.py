"""A kind that plays on an uploaded graph, before the service has loaded that graph.

Such a kind parses from its game id alone (the engine does no I/O): it is a `NeedsGraph`, whose
`graph_name` tells the service which graph to load, and whose `bind_graph` gives the playable kind once
the service has loaded it (NOT_FOUND naming the graph when there is none). It lives apart from
`engine.graphs` because it is a kind: the graph itself sits below `engine.kind`, this above it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.errors import InvalidArgument
from engine.graphs import GraphBuilder, UploadedGraph
from engine.kind import Context, GameKind
from engine.values import BestMoveResult, GameInfo, Value

#: The graph of a warm-up (`NeedsGraph.warm_up_graph`).
WARM_UP_VERTICES = ("a", "b", "c", "d", "e")
WARM_UP_EDGES = (("a", "b"), ("b", "c"), ("c", "b"), ("b", "d"), ("d", "e"), ("a", "e"))


class NeedsGraph(GameKind[Any]):
    """A kind playing on the uploaded graph `graph_name`, before the service has loaded it.

    The service loads the graph (`graph_name`) and asks `bind_graph` for the playable kind, once per
    game id; this placeholder answers nothing itself.
    """

    def __init__(self, game_id: str, graph_name: str, bind: Callable[[UploadedGraph], GameKind[Any]]) -> None:
        self.game_id = game_id
        self.graph_name = graph_name
        self._bind = bind

    def bind_graph(self, graph: UploadedGraph) -> GameKind[Any]:
        return self._bind(graph)

    def warm_up_graph(self) -> UploadedGraph | None:
        """A small graph with a cycle (draws), a dead end and vertices named as the examples are (`a`,
        `b`): what a warm-up plays on, so that the kernels of graphs are compiled before a request."""
        builder = GraphBuilder(self.graph_name)
        builder.add_vertices(WARM_UP_VERTICES)
        builder.add_edge_pairs(WARM_UP_EDGES)
        return builder.finish()

    def _unbound(self) -> InvalidArgument:
        return InvalidArgument(
            f"{self.game_id!r} plays on the uploaded graph {self.graph_name!r}, not loaded"
        )

    def info(self) -> GameInfo:
        raise self._unbound()

    def parse(self, text: str) -> Any:
        raise self._unbound()

    def format(self, position: Any) -> str:
        raise self._unbound()

    def value(self, position: Any, ctx: Context) -> Value:
        raise self._unbound()

    def best_moves(self, position: Any, limit: int | None, ctx: Context) -> BestMoveResult:
        raise self._unbound()

    def stats(self, ctx: Context) -> dict[str, object]:
        raise self._unbound()
