"""A unary RPC as the gRPC clients send it (`Call`: its request message and how its answer becomes a
record), and the requests of the calls that are gRPC's only: columnar lookups and the streams.

The calls both transports have are declared in `nimbase_client.asks`, which makes their `Call`s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from google.protobuf.message import Message

from nimbase_client.channel import SERVICE
from nimbase_client.v1 import nimbase_pb2 as pb

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One unary call: the RPC, its request, the conversion of its answer, and whether it needs the
    admin token (sent as `authorization: Bearer TOKEN`). A request given as the message's bytes (encoded
    here without a message, as the columnar call's arrays are) names the `reply` type to parse."""

    method: str
    request: Message | bytes
    answer: Callable[[Any], T]
    auth: bool = False
    reply: type[Message] | None = None

    def multi_callable(self, stub: Any, channel: Any) -> Any:
        """What sends this call: the stub's method, or for a request of bytes the channel's own."""
        if isinstance(self.request, Message):
            return getattr(stub, self.method)
        assert self.reply is not None
        return channel.unary_unary(
            f"/{SERVICE}/{self.method}", request_serializer=None, response_deserializer=self.reply.FromString
        )


def columnar_values(
    game: str, heaps: Sequence[int] | NDArray[np.uint64], offsets: Sequence[int] | NDArray[np.uint64] | None
) -> Call[NDArray[np.uint32]]:
    np = _numpy()  # before anything is sent
    from nimbase_client import packed

    # The message's bytes straight from the arrays (its fields in number order, as protobuf writes them).
    request = packed.field(1, game.encode()) + packed.uint_field(2, np.asarray(heaps, dtype=np.uint64))
    if offsets is not None:
        request += packed.uint_field(3, np.asarray(offsets, dtype=np.uint64))
    return Call(
        "ColumnarValues",
        request,
        lambda reply: np.array(reply.grundy, dtype=np.uint32),
        reply=pb.ColumnarValuesResponse,
    )


#: Bytes of vertex and edge names UploadGraph puts in one message (the server takes up to 16 MiB).
GRAPH_PART_BYTES = 4 << 20
#: Bytes counted for each vertex and each edge beyond its names' UTF-8: the fields' tags and lengths.
VERTEX_OVERHEAD = 4
EDGE_OVERHEAD = 8
#: A terminal's map entry: its own tag and length, and its name's and label's.
TERMINAL_OVERHEAD = 8
#: Vertices or edges taken from the input at a time.
GRAPH_BATCH = 4096


def graph_parts(
    name: str,
    vertices: Iterable[str],
    edges: Iterable[Sequence[str]],
    terminals: Mapping[str, str] | None = None,
    part_bytes: int = GRAPH_PART_BYTES,
) -> Iterator[pb.GraphPart]:
    """The UploadGraph stream: the name and terminals first (`terminal_parts`), then the vertices, then
    the edges, in messages of at most `part_bytes` of names each (counted as UTF-8 plus VERTEX_OVERHEAD
    or EDGE_OVERHEAD; more only for a single name that long). Built lazily, the input may be generators,
    and a batch at a time: filling the fields a slice at a time takes less than half the CPU of
    appending one name at a time."""
    yield from terminal_parts(name, terminals or {}, part_bytes)
    parts = _Parts(part_bytes)
    for batch in _batches(vertices):
        yield from parts.add(("vertices",), (batch,), VERTEX_OVERHEAD)
    for pairs in _batches(edges):
        yield from parts.add(("sources", "targets"), _split_edges(pairs), EDGE_OVERHEAD)
    if parts.size:
        yield parts.part


def terminal_parts(
    name: str, terminals: Mapping[str, str], part_bytes: int = GRAPH_PART_BYTES
) -> Iterator[pb.GraphPart]:
    """The first messages of a graph's stream (UploadGraph, and GetGraph's answer): its name, and its
    terminals in messages of at most `part_bytes` (names and labels in UTF-8 plus TERMINAL_OVERHEAD
    each), the name's message holding the first. A graph may label every one of its vertices: in one
    message, so many terminals would pass any message limit."""
    part, size = pb.GraphPart(name=name), 0
    for vertex, label in terminals.items():
        cost = _utf8_bytes((vertex, label)) + TERMINAL_OVERHEAD
        if size and size + cost > part_bytes:
            yield part
            part, size = pb.GraphPart(), 0
        part.terminals[vertex] = label
        size += cost
    yield part


class _Parts:
    """The GraphPart being filled, and its size in bytes."""

    def __init__(self, part_bytes: int) -> None:
        self.part_bytes = part_bytes
        self.part = pb.GraphPart()
        self.size = 0

    def add(
        self, fields: tuple[str, ...], columns: Sequence[Sequence[str]], overhead: int
    ) -> Iterator[pb.GraphPart]:
        """Put a batch's columns (parallel, one per field) in the part, yielding it first if they would
        take it past `part_bytes`; a batch larger than a whole part goes in halves."""
        count = len(columns[0])
        cost = sum(map(_utf8_bytes, columns)) + overhead * count
        if cost > self.part_bytes and count > 1:
            half = count // 2
            yield from self.add(fields, [column[:half] for column in columns], overhead)
            yield from self.add(fields, [column[half:] for column in columns], overhead)
            return
        if self.size and self.size + cost > self.part_bytes:
            yield self.part
            self.part, self.size = pb.GraphPart(), 0
        for field, column in zip(fields, columns, strict=True):
            getattr(self.part, field).extend(column)
        self.size += cost


def _batches(items: Iterable[T]) -> Iterator[list[T]]:
    iterator = iter(items)
    while batch := list(islice(iterator, GRAPH_BATCH)):
        yield batch


def _split_edges(edges: list[Sequence[str]]) -> tuple[list[str], list[str]]:
    """Sources and targets of a batch of [source, target] pairs: ValueError naming the first edge that
    is not a pair (the server would refuse it)."""
    for edge in edges:
        if len(edge) != 2:
            raise ValueError(f"edge {edge!r} is not a pair of vertex names")
    return [source for source, _ in edges], [target for _, target in edges]


def _utf8_bytes(names: Sequence[str]) -> int:
    """UTF-8 bytes of the names, joined at once: far cheaper than a length per name."""
    try:
        joined = "".join(names)
    except TypeError:  # bytes among them, which protobuf takes as well
        return sum(len(n) if isinstance(n, bytes) else len(n.encode()) for n in names)
    return len(joined) if joined.isascii() else len(joined.encode())


def get_graph_request(name: str) -> pb.GetGraphRequest:
    return pb.GetGraphRequest(name=name)


def stream_value_request(item: tuple[str, str]) -> pb.StreamValuesRequest:
    """One StreamValues request: (game, position)."""
    return pb.StreamValuesRequest(game=item[0], position=item[1])


def stream_batch_request(item: tuple[str, Sequence[str]]) -> pb.BatchGetValuesRequest:
    """One StreamBatches request: (game, positions)."""
    return pb.BatchGetValuesRequest(game=item[0], positions=list(item[1]))


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:  # the one method that needs numpy, which the client does not depend on
        raise ImportError("columnar_values answers a numpy array: install numpy to use it") from None
    return numpy
