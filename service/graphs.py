"""Uploaded graphs in the service: uploads checked and stored, stored graphs loaded and kept.

Transport-free, like service.core, which owns one `Graphs` and calls it for UploadGraph, GetGraph and
for the kinds that play on a graph (`GameKind.graph_name`). Uploads need the admin token (they write
data), checked by core before anything is read. A graph is checked as it arrives
(engine.graphs.GraphBuilder) and stored in one transaction (storage.graphs): a refused upload stores
nothing. Stored graphs never change (a name is taken for good), so a loaded one is kept for good too,
least recently used dropped first past their budget (`CacheSettings.graph_bytes`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from engine.graphs import GraphBuilder, UploadedGraph, check_graph_name
from engine.lru import LRU, Usage
from nimbase import schema
from nimbase.settings import DEFAULT_CACHE
from service.errors import AlreadyExists, NotFound, Unavailable
from service.gate import DatabaseGate
from storage.graphs import GraphExists, GraphInfo, GraphStore


@dataclass(frozen=True, slots=True)
class GraphSummary:
    """What an upload stored (UploadGraph's answer)."""

    name: str
    vertex_count: int
    edge_count: int
    terminal_count: int
    created_at: str

    @classmethod
    def of(cls, info: GraphInfo) -> GraphSummary:
        return cls(
            info.name, info.vertex_count, info.edge_count, info.terminal_count, info.created_at.isoformat()
        )

    def as_dict(self) -> schema.GraphSummary:
        return {
            "name": self.name,
            "vertex_count": self.vertex_count,
            "edge_count": self.edge_count,
            "terminal_count": self.terminal_count,
            "created_at": self.created_at,
        }


def graph_bytes(graph: UploadedGraph) -> int:
    """About what a loaded graph takes in memory: its names (with Python's cost per string) and arrays."""
    names = sum(len(v) for v in graph.vertices) + 56 * graph.vertex_count
    arrays = (graph.sources, graph.targets, graph.terminal_vertices, graph.terminal_labels)
    return names + sum(int(a.nbytes) for a in arrays)


class Graphs:
    """Uploads and loads of graphs, over `store` (None: a server without a database has none)."""

    def __init__(
        self, store: GraphStore | None, gate: DatabaseGate, cache_bytes: int = DEFAULT_CACHE.graph_bytes
    ) -> None:
        self._store = store
        self._gate = gate
        self._cache: LRU[str, UploadedGraph] = LRU(maxsize=cache_bytes, getsizeof=graph_bytes)
        self._lock = threading.Lock()

    def _require_store(self) -> GraphStore:
        if self._store is None:
            raise Unavailable("this server runs without a database; graphs are unavailable")
        return self._store

    def begin(self, name: object) -> GraphBuilder:
        """An upload of `name`: refused at once (before the graph is read) when the name is malformed or
        taken already."""
        builder = GraphBuilder(name)
        store = self._require_store()
        if self._gate.call(lambda: store.info(builder.name)) is not None:
            raise _taken(builder.name)
        return builder

    def store(self, builder: GraphBuilder) -> GraphSummary:
        """Check the whole upload and store it, all or nothing (ALREADY_EXISTS when the name was taken in
        the meantime)."""
        graph = builder.finish()
        store = self._require_store()
        try:
            info = self._gate.call(lambda: store.create(graph))
        except GraphExists:
            raise _taken(graph.name) from None
        self._keep(replace(graph, created_at=info.created_at.isoformat()))
        return GraphSummary.of(info)

    def upload(
        self,
        name: object,
        vertices: Iterable[object],
        edges: Sequence[Sequence[object]],
        terminals: Mapping[str, object] | None,
    ) -> GraphSummary:
        """A whole upload at once (the REST body)."""
        builder = self.begin(name)
        if terminals:
            builder.add_terminals(terminals)
        builder.add_vertices(vertices)
        builder.add_edge_pairs(edges)
        return self.store(builder)

    def hold(self, graph: UploadedGraph) -> None:
        """Keep `graph` as if it had been loaded (a warm-up's own graph, on a service without storage)."""
        self._keep(graph)

    def load(self, name: str) -> UploadedGraph:
        """The stored graph `name` (kept once loaded); NOT_FOUND naming it when there is none,
        INVALID_ARGUMENT quoting a name no graph may have."""
        check_graph_name(name)
        with self._lock:
            graph = self._cache.get(name)
        if graph is not None:
            return graph
        store = self._require_store()
        graph = self._gate.call(lambda: store.load(name))
        if graph is None:
            raise NotFound(f"no graph named {name!r}: upload it first (POST /v1/graphs, or UploadGraph)")
        self._keep(graph)
        return graph

    def usage(self) -> Usage:
        """The graphs kept, their bytes and the cache's budget, for the server's gauges."""
        with self._lock:
            return self._cache.usage()

    def _keep(self, graph: UploadedGraph) -> None:
        # A graph larger than the whole cache serves its request and is not kept.
        with self._lock:
            self._cache.keep(graph.name, graph)


def _taken(name: str) -> AlreadyExists:
    return AlreadyExists(
        f"a graph named {name!r} is stored already: names are taken for good, choose another"
    )
