"""Each unary RPC once: its request message and how its answer becomes a record.

The synchronous and the asyncio clients differ only in how they wait for an answer, so each of their
methods is one line that hands one of these `Call`s to its transport.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from google.protobuf.message import Message

from nimbase_client import convert, records
from nimbase_client.v1 import nimbase_pb2 as pb

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One unary call: the RPC, its request, the conversion of its answer, and whether it needs the
    admin token (sent as `authorization: Bearer TOKEN`)."""

    method: str
    request: Message
    answer: Callable[[Any], T]
    auth: bool = False


def list_games() -> Call[records.GameList]:
    return Call("ListGames", pb.ListGamesRequest(), convert.game_list_dict)


def get_value(game: str, position: str) -> Call[records.Value]:
    return Call("GetValue", pb.GetValueRequest(game=game, position=position), convert.value_dict)


def best_move(game: str, position: str, limit: int | None) -> Call[records.BestMove]:
    request = pb.BestMoveRequest(game=game, position=position)
    if limit is not None:
        request.limit = limit
    return Call("BestMove", request, convert.best_move_dict)


def is_p_position(game: str, position: str) -> Call[records.PPosition]:
    request = pb.IsPPositionRequest(game=game, position=position)
    return Call("IsPPosition", request, convert.p_position_dict)


def batch_get_values(game: str, positions: Iterable[str]) -> Call[records.Batch]:
    request = pb.BatchGetValuesRequest(game=game, positions=list(positions))
    return Call("BatchGetValues", request, convert.batch_dict)


def columnar_values(
    game: str, heaps: Sequence[int] | NDArray[np.uint64], offsets: Sequence[int] | NDArray[np.uint64] | None
) -> Call[NDArray[np.uint32]]:
    np = _numpy()  # before anything is sent
    request = pb.ColumnarValuesRequest(game=game)
    request.heaps.extend(_ints(heaps))
    if offsets is not None:
        request.offsets.extend(_ints(offsets))
    return Call("ColumnarValues", request, lambda reply: np.array(reply.grundy, dtype=np.uint32))


def get_sequence(game: str, start: int, stop: int, family: str | None) -> Call[records.Sequence]:
    request = pb.GetSequenceRequest(game=game, start=start, stop=stop)
    if family is not None:
        request.family = family
    return Call("GetSequence", request, convert.sequence_dict)


def get_stats(game: str) -> Call[records.Stats]:
    return Call("GetStats", pb.GetStatsRequest(game=game), convert.stats_dict)


def submit_job(game: str, upto: int, fill: bool, family: str | None) -> Call[records.Job]:
    request = pb.SubmitJobRequest(game=game, upto=upto, fill=fill)
    if family is not None:
        request.family = family
    return Call("SubmitJob", request, convert.job_dict, auth=True)


def get_job(job_id: int) -> Call[records.Job]:
    return Call("GetJob", pb.GetJobRequest(id=job_id), convert.job_dict)


def list_jobs(limit: int | None) -> Call[records.JobList]:
    request = pb.ListJobsRequest() if limit is None else pb.ListJobsRequest(limit=limit)
    return Call("ListJobs", request, convert.job_list_dict)


def cancel_job(job_id: int) -> Call[records.Job]:
    return Call("CancelJob", pb.CancelJobRequest(id=job_id), convert.job_dict, auth=True)


#: Bytes of vertex and edge names UploadGraph puts in one message (the server takes up to 16 MiB).
GRAPH_PART_BYTES = 4 << 20


def graph_parts(
    name: str,
    vertices: Iterable[str],
    edges: Iterable[Sequence[str]],
    terminals: Mapping[str, str] | None = None,
    part_bytes: int = GRAPH_PART_BYTES,
) -> Iterator[pb.GraphPart]:
    """The UploadGraph stream: the name and terminals first, then the vertices, then the edges, in
    messages of about `part_bytes` of names each. Built lazily: the input may be generators."""
    yield pb.GraphPart(name=name, terminals=dict(terminals or {}))
    part = pb.GraphPart()
    size = 0
    for vertex in vertices:
        part.vertices.append(vertex)
        size += len(vertex) + 4
        if size >= part_bytes:
            yield part
            part, size = pb.GraphPart(), 0
    for edge in edges:
        if len(edge) != 2:  # the server would refuse it; say which one
            raise ValueError(f"edge {edge!r} is not a pair of vertex names")
        source, target = edge
        part.sources.append(source)
        part.targets.append(target)
        size += len(source) + len(target) + 8
        if size >= part_bytes:
            yield part
            part, size = pb.GraphPart(), 0
    if size:
        yield part


def get_graph_request(name: str) -> pb.GetGraphRequest:
    return pb.GetGraphRequest(name=name)


def stream_value_request(item: tuple[str, str]) -> pb.StreamValuesRequest:
    """One StreamValues request: (game, position)."""
    return pb.StreamValuesRequest(game=item[0], position=item[1])


def stream_batch_request(item: tuple[str, Sequence[str]]) -> pb.BatchGetValuesRequest:
    """One StreamBatches request: (game, positions)."""
    return pb.BatchGetValuesRequest(game=item[0], positions=list(item[1]))


def _ints(values: Sequence[int] | NDArray[np.uint64]) -> Sequence[int]:
    """Plain ints for a repeated field (a numpy array converts in one call, not element by element)."""
    tolist = getattr(values, "tolist", None)
    return tolist() if callable(tolist) else values  # type: ignore[return-value]


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:  # the one method that needs numpy, which the client does not depend on
        raise ImportError("columnar_values answers a numpy array: install numpy to use it") from None
    return numpy
