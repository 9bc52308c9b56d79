"""The gRPC clients: `NimbaseClient` (blocking) and `AsyncNimbaseClient` (asyncio), method for method alike.

Answers are the typed records of `nimbase_client.records`, plain dicts equal to the REST JSON; an error
answer raises `NimbaseClientError` with its public code. Read calls are retried on UNAVAILABLE by gRPC
itself (`nimbase_client.channel`).
"""

from __future__ import annotations

from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import grpc

from nimbase_client import asks, calls, convert, records
from nimbase_client.asks import Ask
from nimbase_client.calls import Call
from nimbase_client.channel import DEFAULT_ATTEMPTS, DEFAULT_TIMEOUT, ChannelSettings
from nimbase_client.closing import AsyncClosing, Closing
from nimbase_client.errors import NimbaseClientError, from_rpc_error
from nimbase_client.v1 import nimbase_pb2_grpc

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["AsyncNimbaseClient", "NimbaseClient", "NimbaseClientError"]

T = TypeVar("T")
P = ParamSpec("P")
DEFAULT_TARGET = "localhost:50051"


class _Base:
    """What both clients keep: the target, the admin token, each call's deadline, and the channel (opened by
    the client's `_open`) with its stub. The arguments are `NimbaseClient`'s."""

    def __init__(
        self,
        target: str = DEFAULT_TARGET,
        token: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        *,
        tls: bool = False,
        root_certificates: bytes | None = None,
        call_credentials: grpc.CallCredentials | None = None,
        attempts: int = DEFAULT_ATTEMPTS,
        options: Sequence[tuple[str, Any]] = (),
    ) -> None:
        settings = ChannelSettings(tls, root_certificates, call_credentials, attempts, tuple(options))
        self.target = target
        self._token = token
        self._timeout = timeout
        self._channel = self._open(settings, target)
        self._stub: Any = nimbase_pb2_grpc.NimbaseStub(self._channel)  # type: ignore[no-untyped-call]

    def _open(self, settings: ChannelSettings, target: str) -> Any:
        """The channel to `target`: blocking or asyncio."""
        raise NotImplementedError

    def _metadata(self, call: Call[Any]) -> list[tuple[str, str]] | None:
        return self._token_metadata() if call.auth else None

    def _token_metadata(self) -> list[tuple[str, str]] | None:
        if self._token is not None:
            return [("authorization", f"Bearer {self._token}")]
        return None


def unary(ask: Callable[P, Ask[T]]) -> Callable[Concatenate[NimbaseClient, P], T]:
    """`NimbaseClient`'s method for the call `ask`, taking its fields."""

    def call(self: NimbaseClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._unary(ask(*args, **kwargs).grpc())

    asks.method(call, ask)  # type: ignore[arg-type]
    return call


def unary_async(ask: Callable[P, Ask[T]]) -> Callable[Concatenate[AsyncNimbaseClient, P], Awaitable[T]]:
    """`AsyncNimbaseClient`'s method for the call `ask`, taking its fields."""

    async def call(self: AsyncNimbaseClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._unary(ask(*args, **kwargs).grpc())

    asks.method(call, ask)  # type: ignore[arg-type]
    return call


class NimbaseClient(_Base, Closing):
    """Blocking client of a nimbase server's gRPC API.

    `target` is `host:port`. `token` is the admin token sent with SubmitJob and CancelJob. `timeout`
    (seconds) is the deadline of each call, retries included; None leaves it to the server's maximum.
    TLS: `tls=True` trusts the system's CAs, `root_certificates` (PEM bytes) the given ones instead;
    `call_credentials` (e.g. `grpc.access_token_call_credentials`) are sent with every call, over TLS.
    `attempts` is how often a read call is tried when the server is UNAVAILABLE (1: no retry).
    """

    _channel: grpc.Channel

    def _open(self, settings: ChannelSettings, target: str) -> grpc.Channel:
        return settings.channel(target)

    def close(self) -> None:
        self._channel.close()

    def _unary(self, call: Call[T]) -> T:
        try:
            reply = call.multi_callable(self._stub, self._channel)(
                call.request, timeout=self._timeout, metadata=self._metadata(call)
            )
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from None
        return call.answer(reply)

    list_games = unary(asks.ListGames)
    get_value = unary(asks.GetValue)
    best_move = unary(asks.BestMove)
    mainline = unary(asks.Mainline)
    is_p_position = unary(asks.IsPPosition)
    batch_get_values = unary(asks.BatchGetValues)
    get_sequence = unary(asks.GetSequence)
    get_stats = unary(asks.GetStats)
    submit_job = unary(asks.SubmitJob)
    retry_job = unary(asks.RetryJob)
    get_job = unary(asks.GetJob)
    list_jobs = unary(asks.ListJobs)
    cancel_job = unary(asks.CancelJob)

    def columnar_values(
        self,
        game: str,
        heaps: Sequence[int] | NDArray[np.uint64],
        offsets: Sequence[int] | NDArray[np.uint64] | None = None,
    ) -> NDArray[np.uint32]:
        """Normal-play Grundy values of many positions of one heap game in one call (ColumnarValues):
        each heap a position of its own, or with `offsets` the sums heaps[offsets[i]:offsets[i+1]]
        (from 0 to len(heaps)). All or nothing: a heap that cannot be answered raises its error.
        Up to NIMBASE_LIMITS_COLUMNAR_VALUES (1,048,576 by default) heaps a call. Needs numpy."""
        return self._unary(calls.columnar_values(game, heaps, offsets))

    def stream_values(self, requests: Iterable[tuple[str, str]]) -> Iterator[records.ValueOrError]:
        """One answer per (game, position), in order: a value or `{"error": {...}}` for a bad item.

        Requests are sent lazily as the server reads them, so the input may be an endless generator.
        """
        try:
            for reply in self._stub.StreamValues(map(calls.stream_value_request, requests), timeout=None):
                yield convert.value_or_error_dict(reply)
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from None

    def stream_batches(self, batches: Iterable[tuple[str, Sequence[str]]]) -> Iterator[records.Batch]:
        """One `{"values": [...]}` per (game, positions) batch, in order, over one stream."""
        try:
            for reply in self._stub.StreamBatches(map(calls.stream_batch_request, batches), timeout=None):
                yield convert.batch_dict(reply)
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from None

    def upload_graph(
        self,
        name: str,
        vertices: Iterable[str],
        edges: Iterable[Sequence[str]] = (),
        terminals: Mapping[str, str] | None = None,
    ) -> records.GraphSummary:
        """Stores a graph under a new name (needs the admin token): `edges` are [from, to] vertex names,
        `terminals` vertex -> "win" | "loss" | "draw". Streamed in parts (UploadGraph), so any size that
        the server's limits allow goes; the inputs may be generators. Not retried, and not bounded by
        `timeout`: a large graph takes a while."""
        parts = calls.graph_parts(name, vertices, edges, terminals)
        try:
            reply = self._stub.UploadGraph(parts, timeout=None, metadata=self._token_metadata())
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from None
        return convert.graph_summary_dict(reply)

    def get_graph(self, name: str) -> records.Graph:
        """A stored graph, gathered from its stream (GetGraph): the REST JSON of GET /v1/graphs/{name}."""
        try:
            return convert.graph_dict(self._stub.GetGraph(calls.get_graph_request(name), timeout=None))
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from None


class AsyncNimbaseClient(_Base, AsyncClosing):
    """The asyncio client (grpc.aio): the same methods and arguments as `NimbaseClient`, awaited.

    Create it inside the event loop that uses it; `async with` (or `await close()`) closes its channel.
    """

    _channel: grpc.aio.Channel

    def _open(self, settings: ChannelSettings, target: str) -> grpc.aio.Channel:
        return settings.aio_channel(target)

    async def close(self) -> None:
        await self._channel.close(grace=None)

    async def _unary(self, call: Call[T]) -> T:
        try:
            reply = await call.multi_callable(self._stub, self._channel)(
                call.request, timeout=self._timeout, metadata=self._metadata(call)
            )
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from None
        return call.answer(reply)

    list_games = unary_async(asks.ListGames)
    get_value = unary_async(asks.GetValue)
    best_move = unary_async(asks.BestMove)
    mainline = unary_async(asks.Mainline)
    is_p_position = unary_async(asks.IsPPosition)
    batch_get_values = unary_async(asks.BatchGetValues)
    get_sequence = unary_async(asks.GetSequence)
    get_stats = unary_async(asks.GetStats)
    submit_job = unary_async(asks.SubmitJob)
    retry_job = unary_async(asks.RetryJob)
    get_job = unary_async(asks.GetJob)
    list_jobs = unary_async(asks.ListJobs)
    cancel_job = unary_async(asks.CancelJob)

    async def columnar_values(
        self,
        game: str,
        heaps: Sequence[int] | NDArray[np.uint64],
        offsets: Sequence[int] | NDArray[np.uint64] | None = None,
    ) -> NDArray[np.uint32]:
        return await self._unary(calls.columnar_values(game, heaps, offsets))

    async def stream_values(
        self, requests: Iterable[tuple[str, str]] | AsyncIterable[tuple[str, str]]
    ) -> AsyncIterator[records.ValueOrError]:
        """One answer per (game, position), in order; `requests` may be an async iterable too."""
        async for reply in self._stream("StreamValues", _requests(requests, calls.stream_value_request)):
            yield convert.value_or_error_dict(reply)

    async def stream_batches(
        self, batches: Iterable[tuple[str, Sequence[str]]] | AsyncIterable[tuple[str, Sequence[str]]]
    ) -> AsyncIterator[records.Batch]:
        """One `{"values": [...]}` per (game, positions) batch, in order, over one stream."""
        async for reply in self._stream("StreamBatches", _requests(batches, calls.stream_batch_request)):
            yield convert.batch_dict(reply)

    async def _stream(self, method: str, requests: object) -> AsyncIterator[Any]:
        """The replies of a streaming RPC (`requests`: an async iterator of messages, or one message)."""
        try:
            async for reply in getattr(self._stub, method)(requests, timeout=None):
                yield reply
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from None

    async def upload_graph(
        self,
        name: str,
        vertices: Iterable[str],
        edges: Iterable[Sequence[str]] = (),
        terminals: Mapping[str, str] | None = None,
    ) -> records.GraphSummary:
        parts = calls.graph_parts(name, vertices, edges, terminals)
        try:
            reply = await self._stub.UploadGraph(parts, timeout=None, metadata=self._token_metadata())
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from None
        return convert.graph_summary_dict(reply)

    async def get_graph(self, name: str) -> records.Graph:
        replies = [part async for part in self._stream("GetGraph", calls.get_graph_request(name))]
        return convert.graph_dict(replies)


async def _requests(items: Iterable[T] | AsyncIterable[T], build: Callable[[T], Any]) -> AsyncIterator[Any]:
    """Request messages built lazily from a plain or an async iterable."""
    if isinstance(items, AsyncIterable):
        async for item in items:
            yield build(item)
    else:
        for item in items:
            yield build(item)
