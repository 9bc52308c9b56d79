"""Uploaded graphs (UploadGraph, GetGraph): what one is and the checks an upload passes.

A graph is a name, its vertices (names, in upload order), its edges (pairs of vertex indices, in upload
order, repeats kept) and its terminals: the result ("win", "loss" or "draw") for the player to move at
a vertex with no move, "loss" where not given. The same upload serves two families: `graph:NAME` reads
the edges as moves (directed; self-loops and cycles allowed), `lights-out:graph:NAME` reads them as
undirected (self-loops refused there).

A kind that plays on an uploaded graph gets it through `engine.needs_graph.NeedsGraph`.

Limits: names of 1 to 200 characters (letters, digits, '.', '_', '~', '-'), 1 to 1,000,000 vertices of
1 to 1,000 printable characters each (no tab, newline or other control character, no space at either
end), at most 10,000,000 edges. An upload that breaks a rule is refused whole (INVALID_ARGUMENT quoting
what was wrong) and nothing of it is kept.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np
from numpy.typing import NDArray

from engine.errors import InvalidArgument, InvalidGameId
from engine.positions import quote_token

I32 = NDArray[np.int32]
U8 = NDArray[np.uint8]

MAX_NAME_CHARS = 200
MAX_VERTEX_CHARS = 1000
MAX_VERTICES = 1_000_000
MAX_EDGES = 10_000_000
#: Terminal labels, by their stored code (the index).
LABELS: tuple[str, ...] = ("loss", "win", "draw")
LABEL_CODES: dict[str, int] = {label: code for code, label in enumerate(LABELS)}

NAME_PATTERN = re.compile(r"[A-Za-z0-9._~-]+")
_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)


#: Names that a URL path cannot carry as themselves (RFC 3986 removes them as dot-segments).
DOT_SEGMENTS = frozenset({".", ".."})


def check_graph_name(name: object, *, error: type[InvalidArgument | InvalidGameId] = InvalidArgument) -> str:
    """The name, if a graph may have it; `error` quoting it otherwise."""
    if (
        not isinstance(name, str)
        or not name
        or len(name) > MAX_NAME_CHARS
        or not NAME_PATTERN.fullmatch(name)
    ):
        raise error(
            f"graph name {quote_token(str(name))} must be 1 to {MAX_NAME_CHARS} characters, each a letter, "
            "a digit, '.', '_', '~' or '-'"
        )
    if name in DOT_SEGMENTS:  # GET /v1/graphs/.. is read as the parent path by clients that normalise it
        raise error(f"graph name {name!r} is a path segment ('.' or '..'), which URLs cannot carry as a name")
    return name


def _check_vertex(name: object, graph: str) -> str:
    if not isinstance(name, str):
        raise InvalidArgument(f"vertex {quote_token(repr(name))} of graph {graph!r} is not a string")
    if not 1 <= len(name) <= MAX_VERTEX_CHARS or not name.isprintable() or name != name.strip():
        raise InvalidArgument(
            f"vertex name {quote_token(name)} of graph {graph!r} must be 1 to {MAX_VERTEX_CHARS} printable "
            "characters (no tab, newline or control character), without spaces at either end"
        )
    return name


@dataclass(frozen=True, eq=False)
class UploadedGraph:
    """One uploaded graph, checked. `sources[i] -> targets[i]` is edge i (vertex indices); the terminals
    are `terminal_vertices` (ascending) with their `terminal_labels` (codes of LABELS)."""

    name: str
    vertices: tuple[str, ...]
    sources: I32 = field(repr=False)
    targets: I32 = field(repr=False)
    terminal_vertices: I32 = field(repr=False)
    terminal_labels: U8 = field(repr=False)
    #: When it was stored (ISO 8601), where it comes from storage.
    created_at: str | None = None

    @property
    def vertex_count(self) -> int:
        return len(self.vertices)

    @property
    def edge_count(self) -> int:
        return int(self.sources.shape[0])

    @property
    def terminal_count(self) -> int:
        return int(self.terminal_vertices.shape[0])

    def terminals(self) -> dict[str, str]:
        """Vertex name -> label, in vertex order."""
        return {
            self.vertices[int(v)]: LABELS[int(code)]
            for v, code in zip(self.terminal_vertices, self.terminal_labels, strict=True)
        }

    def edge_names(self, start: int = 0, stop: int | None = None) -> list[list[str]]:
        """Edges start..stop-1 as [from, to] vertex names."""
        names = self.vertices
        sources = self.sources[start:stop].tolist()
        targets = self.targets[start:stop].tolist()
        return [[names[a], names[b]] for a, b in zip(sources, targets, strict=True)]

    def edge_batches(self, size: int) -> Iterator[tuple[int, int]]:
        """(start, stop) of consecutive batches of at most `size` edges."""
        for start in range(0, self.edge_count, size):
            yield start, min(start + size, self.edge_count)


class GraphBuilder:
    """An upload as it arrives: the name first, then vertices, edges and terminals in any number of
    batches (an edge may name only vertices sent before it; terminals may come at any time and are
    checked at the end). Each batch is checked as it comes, so a bad upload is refused before the rest of
    it is read; `finish` gives the graph."""

    def __init__(self, name: object) -> None:
        self.name = check_graph_name(name)
        self._vertices: list[str] = []
        self._index: dict[str, int] = {}
        self._sources: list[I32] = []
        self._targets: list[I32] = []
        self._edges = 0
        self._terminals: dict[str, int] = {}

    @property
    def vertex_count(self) -> int:
        return len(self._vertices)

    @property
    def edge_count(self) -> int:
        return self._edges

    def add_vertices(self, names: Iterable[object]) -> None:
        for name in names:
            vertex = _check_vertex(name, self.name)
            if vertex in self._index:
                raise InvalidArgument(f"duplicate vertex name {quote_token(vertex)} in graph {self.name!r}")
            if len(self._vertices) >= MAX_VERTICES:
                raise InvalidArgument(f"graph {self.name!r} has more than {MAX_VERTICES} vertices, the limit")
            self._index[vertex] = len(self._vertices)
            self._vertices.append(vertex)

    def add_edges(self, sources: Sequence[object], targets: Sequence[object]) -> None:
        """Edges sources[i] -> targets[i], by vertex name."""
        if len(sources) != len(targets):
            raise InvalidArgument(
                f"graph {self.name!r}: {len(sources)} edge sources but {len(targets)} edge targets"
            )
        if self._edges + len(sources) > MAX_EDGES:
            raise InvalidArgument(f"graph {self.name!r} has more than {MAX_EDGES} edges, the limit")
        try:
            a, b = self._indices(sources), self._indices(targets)
        except (KeyError, TypeError):
            for s, t in zip(sources, targets, strict=True):
                self._check_edge(s, t)
            raise  # pragma: no cover - _check_edge raised
        self._sources.append(a)
        self._targets.append(b)
        self._edges += len(sources)

    def _indices(self, names: Sequence[object]) -> I32:
        """The vertex indices of `names`: KeyError or TypeError when one is not a vertex name."""
        if len(names) < 2:  # itemgetter answers one name with a scalar, and takes no zero
            return np.array([self._index[name] for name in names], dtype=np.int32)  # type: ignore[index]
        # One itemgetter call looks them all up, faster than mapping the dict's __getitem__ over them.
        indices = operator.itemgetter(*names)(self._index)
        return np.fromiter(indices, dtype=np.int32, count=len(names))

    def add_edge_pairs(self, edges: Sequence[Sequence[object]]) -> None:
        """Edges as [from, to] pairs of vertex names (the REST shape)."""
        pair = (list, tuple)
        if not all(map(isinstance, edges, repeat(pair))) or any(map((2).__ne__, map(len, edges))):
            for edge in edges:  # quote the first that is not a pair
                if not isinstance(edge, pair) or len(edge) != 2:
                    raise InvalidArgument(
                        f"edge {quote_token(repr(edge))} of graph {self.name!r} is not a pair of vertex names"
                    )
        self.add_edges(list(map(_FIRST, edges)), list(map(_SECOND, edges)))

    def _check_edge(self, source: object, target: object) -> None:
        for end in (source, target):
            if not isinstance(end, str) or end not in self._index:
                raise InvalidArgument(
                    f"edge {quote_token(repr([source, target]))} of graph {self.name!r} names an unknown "
                    f"vertex {quote_token(str(end))} (an edge may name only vertices sent before it)"
                )

    def add_terminals(self, terminals: Mapping[str, object]) -> None:
        for vertex, label in terminals.items():
            if not isinstance(vertex, str):
                raise InvalidArgument(
                    f"terminal {quote_token(repr(vertex))} of graph {self.name!r} is not a name"
                )
            if not isinstance(label, str) or label not in LABEL_CODES:
                raise InvalidArgument(
                    f"terminal {quote_token(vertex)} of graph {self.name!r} has the label "
                    f"{quote_token(str(label))}: a terminal is 'win', 'loss' or 'draw'"
                )
            if vertex in self._terminals and self._terminals[vertex] != LABEL_CODES[label]:
                raise InvalidArgument(f"terminal {quote_token(vertex)} of graph {self.name!r} is given twice")
            self._terminals[vertex] = LABEL_CODES[label]

    def finish(self) -> UploadedGraph:
        """The graph: InvalidArgument when it has no vertex, a terminal names an unknown vertex, or labels
        a vertex that has a move."""
        if not self._vertices:
            raise InvalidArgument(f"graph {self.name!r} has no vertex: a graph has 1 to {MAX_VERTICES}")
        sources = np.concatenate(self._sources) if self._sources else np.zeros(0, np.int32)
        targets = np.concatenate(self._targets) if self._targets else np.zeros(0, np.int32)
        terminal_vertices = np.zeros(len(self._terminals), dtype=np.int32)
        terminal_labels = np.zeros(len(self._terminals), dtype=np.uint8)
        for i, (vertex, code) in enumerate(self._terminals.items()):
            if vertex not in self._index:
                raise InvalidArgument(
                    f"terminal {quote_token(vertex)} of graph {self.name!r} names an unknown vertex"
                )
            terminal_vertices[i] = self._index[vertex]
            terminal_labels[i] = code
        order = np.argsort(terminal_vertices, kind="stable")
        terminal_vertices, terminal_labels = terminal_vertices[order], terminal_labels[order]
        if terminal_vertices.size:
            moves = np.bincount(sources, minlength=len(self._vertices))[terminal_vertices]
            if moves.any():
                vertex = self._vertices[int(terminal_vertices[int(np.argmax(moves > 0))])]
                raise InvalidArgument(
                    f"terminal {quote_token(vertex)} of graph {self.name!r} has a move (an edge from it): "
                    "terminals label only vertices with no move"
                )
        return UploadedGraph(
            self.name, tuple(self._vertices), sources, targets, terminal_vertices, terminal_labels
        )


def build_graph(
    name: object,
    vertices: Iterable[object],
    edges: Sequence[Sequence[object]] = (),
    terminals: Mapping[str, object] | None = None,
) -> UploadedGraph:
    """A whole upload at once (the REST shape): InvalidArgument quoting the first thing wrong."""
    builder = GraphBuilder(name)
    if terminals:
        builder.add_terminals(terminals)
    builder.add_vertices(vertices)
    builder.add_edge_pairs(edges)
    return builder.finish()
