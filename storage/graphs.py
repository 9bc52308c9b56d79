"""Stored graphs (UploadGraph, GetGraph): one row per graph and its parts in packed, checksummed chunks.

`graphs` holds a graph's name, counts and creation time; `graph_chunks` the graph itself (migration 0005):
- `vertices`: up to VERTEX_CHUNK names a chunk, joined by newlines (names hold none), UTF-8;
- `edges`: up to EDGE_CHUNK edges a chunk, their sources then their targets as little-endian int32
  vertex indices (upload order kept, repeats kept);
- `terminals`: up to EDGE_CHUNK terminals a chunk, their vertices as little-endian int32, then one byte
  each for their labels (engine.graphs.LABELS codes).
Every payload is deflated (zlib level 1: random edge lists hardly compress, and level 6 would take ten
times as long for a few percent) and carries a CRC32 over its identity, count and bytes, which every read
verifies: a damaged graph is never served (`CorruptGraph`).

A graph is written in one transaction, with its row first: a name already taken (even by an upload
still in progress elsewhere, which the primary key makes wait) stores nothing and raises `GraphExists`.
Graphs are never changed afterwards, so readers may cache them for good.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from engine.errors import NimbaseError
from engine.graphs import UploadedGraph
from storage.database import unavailable_on_disconnect
from storage.errors import StorageError
from storage.schema import graph_chunks, graphs

#: Vertex names a chunk (at most 1,000 characters each: 64 MiB at worst, about 1 MiB typically).
VERTEX_CHUNK = 1 << 16
#: Edges (and terminals) a chunk: 8 MiB of int32 pairs before compression.
EDGE_CHUNK = 1 << 20
#: zlib's level for every payload.
LEVEL = 1

PARTS = ("vertices", "edges", "terminals")


class GraphExists(StorageError):
    """A graph of that name is stored already (the service answers ALREADY_EXISTS)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"a graph named {name!r} is stored already: names are taken for good")
        self.name = name


class CorruptGraph(StorageError, NimbaseError):
    """A stored graph whose chunks do not verify: it is never served (INTERNAL, naming it)."""

    code = "INTERNAL"

    def __init__(self, name: str, detail: str) -> None:
        super().__init__(f"stored graph {name!r} is damaged: {detail}")
        self.name = name


@dataclass(frozen=True, slots=True)
class GraphInfo:
    """What `graphs` says of one graph."""

    name: str
    vertex_count: int
    edge_count: int
    terminal_count: int
    created_at: datetime


def checksum(name: str, part: str, index: int, count: int, payload: bytes) -> int:
    """CRC32 of a chunk's identity, count and payload."""
    return zlib.crc32(payload, zlib.crc32(f"{name}\x00{part}\x00{index}\x00{count}\x00".encode()))


def _chunk(name: str, part: str, index: int, count: int, raw: bytes) -> dict[str, Any]:
    payload = zlib.compress(raw, LEVEL)
    return {
        "graph_name": name,
        "part": part,
        "chunk_index": index,
        "count": count,
        "payload": payload,
        "checksum": checksum(name, part, index, count, payload),
    }


def chunk_rows(graph: UploadedGraph) -> Iterator[dict[str, Any]]:
    """The rows of `graph_chunks` for a graph, part by part, built lazily (one chunk in memory at once)."""
    name = graph.name
    for index, start in enumerate(range(0, graph.vertex_count, VERTEX_CHUNK)):
        names = graph.vertices[start : start + VERTEX_CHUNK]
        yield _chunk(name, "vertices", index, len(names), "\n".join(names).encode())
    for index, start in enumerate(range(0, graph.edge_count, EDGE_CHUNK)):
        sources = graph.sources[start : start + EDGE_CHUNK].astype("<i4")
        targets = graph.targets[start : start + EDGE_CHUNK].astype("<i4")
        yield _chunk(name, "edges", index, len(sources), sources.tobytes() + targets.tobytes())
    for index, start in enumerate(range(0, graph.terminal_count, EDGE_CHUNK)):
        vertices = graph.terminal_vertices[start : start + EDGE_CHUNK].astype("<i4")
        labels = graph.terminal_labels[start : start + EDGE_CHUNK].astype(np.uint8)
        yield _chunk(name, "terminals", index, len(vertices), vertices.tobytes() + labels.tobytes())


def _decoded(name: str, row: sa.Row[Any]) -> tuple[str, int, bytes]:
    """(part, count, raw bytes) of a verified chunk row."""
    m = row._mapping
    part, index, count = str(m["part"]), int(m["chunk_index"]), int(m["count"])
    payload = bytes(m["payload"])
    if checksum(name, part, index, count, payload) != int(m["checksum"]):
        raise CorruptGraph(name, f"chunk {index} of its {part}: checksum mismatch")
    try:
        return part, count, zlib.decompress(payload)
    except zlib.error as error:
        raise CorruptGraph(name, f"chunk {index} of its {part} does not inflate: {error}") from error


class GraphStore:
    """Reads and writes of stored graphs."""

    def __init__(self, engine: sa.Engine) -> None:
        self._engine = engine

    def create(self, graph: UploadedGraph) -> GraphInfo:
        """Store `graph` under its name, all or nothing: GraphExists when the name is taken."""
        insert = (
            postgresql.insert(graphs)
            .values(
                name=graph.name,
                vertex_count=graph.vertex_count,
                edge_count=graph.edge_count,
                terminal_count=graph.terminal_count,
            )
            .on_conflict_do_nothing(index_elements=[graphs.c.name])
            .returning(graphs.c.created_at)
        )
        with unavailable_on_disconnect(), self._engine.begin() as conn:
            created_at = conn.execute(insert).scalar()
            if created_at is None:
                raise GraphExists(graph.name)
            batch: list[dict[str, Any]] = []
            batch_bytes = 0
            for row in chunk_rows(graph):
                batch.append(row)
                batch_bytes += len(row["payload"])
                if batch_bytes >= 32 << 20:
                    conn.execute(graph_chunks.insert(), batch)
                    batch, batch_bytes = [], 0
            if batch:
                conn.execute(graph_chunks.insert(), batch)
        return GraphInfo(graph.name, graph.vertex_count, graph.edge_count, graph.terminal_count, created_at)

    def info(self, name: str) -> GraphInfo | None:
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            row = conn.execute(sa.select(graphs).where(graphs.c.name == name)).first()
        if row is None:
            return None
        m = row._mapping
        return GraphInfo(
            m["name"], int(m["vertex_count"]), int(m["edge_count"]), int(m["terminal_count"]), m["created_at"]
        )

    def load(self, name: str) -> UploadedGraph | None:
        """The stored graph (verified), or None when no graph has that name."""
        stmt = (
            sa.select(graph_chunks)
            .where(graph_chunks.c.graph_name == name)
            .order_by(graph_chunks.c.part, graph_chunks.c.chunk_index)
        )
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            head = conn.execute(sa.select(graphs).where(graphs.c.name == name)).first()
            if head is None:
                return None
            rows = conn.execute(stmt).all()
        info = head._mapping
        vertices: list[str] = []
        sources: list[np.ndarray[Any, np.dtype[np.int32]]] = []
        targets: list[np.ndarray[Any, np.dtype[np.int32]]] = []
        terminal_vertices: list[np.ndarray[Any, np.dtype[np.int32]]] = []
        terminal_labels: list[np.ndarray[Any, np.dtype[np.uint8]]] = []
        for row in rows:
            part, count, raw = _decoded(name, row)
            if part == "vertices":
                names = raw.decode().split("\n")
                if len(names) != count:
                    raise CorruptGraph(name, f"a chunk of {count} vertices holds {len(names)} names")
                vertices.extend(names)
            elif part == "edges":
                if len(raw) != 8 * count:
                    raise CorruptGraph(name, f"a chunk of {count} edges holds {len(raw)} bytes")
                sources.append(np.frombuffer(raw, "<i4", count).astype(np.int32))
                targets.append(np.frombuffer(raw, "<i4", count, 4 * count).astype(np.int32))
            else:
                if len(raw) != 5 * count:
                    raise CorruptGraph(name, f"a chunk of {count} terminals holds {len(raw)} bytes")
                terminal_vertices.append(np.frombuffer(raw, "<i4", count).astype(np.int32))
                terminal_labels.append(np.frombuffer(raw, np.uint8, count, 4 * count).copy())
        graph = UploadedGraph(
            name,
            tuple(vertices),
            _joined(sources, np.int32),
            _joined(targets, np.int32),
            _joined(terminal_vertices, np.int32),
            _joined(terminal_labels, np.uint8),
            info["created_at"].isoformat(),
        )
        expected = (int(info["vertex_count"]), int(info["edge_count"]), int(info["terminal_count"]))
        if (graph.vertex_count, graph.edge_count, graph.terminal_count) != expected:
            raise CorruptGraph(
                name,
                f"it holds {graph.vertex_count} vertices, {graph.edge_count} edges and "
                f"{graph.terminal_count} terminals, not the {expected[0]}, {expected[1]} and {expected[2]} "
                "stored with it",
            )
        n = graph.vertex_count
        for array in (graph.sources, graph.targets, graph.terminal_vertices):
            if array.size and (int(array.min()) < 0 or int(array.max()) >= n):
                raise CorruptGraph(name, "a vertex index is out of range")
        return graph

    def table_bytes(self) -> int:
        """Bytes the chunks take in PostgreSQL, TOAST and indexes included."""
        with unavailable_on_disconnect(), self._engine.connect() as conn:
            size = conn.execute(sa.text("SELECT pg_total_relation_size('graph_chunks')")).scalar_one()
        return int(size)


def _joined(parts: list[Any], dtype: type[np.generic]) -> Any:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)
