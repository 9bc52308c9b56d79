"""The gRPC clients: `NimbaseClient` (blocking) and `AsyncNimbaseClient` (asyncio), method for method alike.

Answers are the typed records of `nimbase_client.records`, plain dicts equal to the REST JSON; an error
answer raises `NimbaseClientError` with its public code. Read calls are retried on UNAVAILABLE by gRPC
itself (`nimbase_client.channel`).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import grpc

from nimbase_client import calls, convert, records
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

    def list_games(self) -> records.GameList:
        """Every game family with its grammar and examples, and every game with a stored table."""
        return self._unary(calls.list_games())

    def get_value(self, game: str, position: str) -> records.Value:
        """The value of a position, e.g. `get_value("nim", "3 5 7")`."""
        return self._unary(calls.get_value(game, position))

    def best_move(
        self,
        game: str,
        position: str,
        limit: int | None = None,
        choose: str | None = None,
        seed: int | None = None,
    ) -> records.BestMove:
        """The value, every move (or the first `limit`) best first, and `best_move` unless terminal.

        Every move as good as the first says `best: True`; `choose="random"` puts one of them, drawn
        uniformly, first (the same `seed` at the same position draws the same move; no seed, a fresh draw).
        """
        return self._unary(calls.best_move(game, position, limit, choose, seed))

    def mainline(
        self, game: str, position: str, max_plies: int | None = None, metric: str | None = None
    ) -> records.Mainline:
        """Best play from the position: its value, the moves of the line (each with the value of the
        position it reaches) and why it ends (`end`), at most `max_plies` moves."""
        return self._unary(calls.mainline(game, position, max_plies, metric))

    def is_p_position(self, game: str, position: str) -> records.PPosition:
        """Whether the player to move loses with best play, plus the value."""
        return self._unary(calls.is_p_position(game, position))

    def batch_get_values(self, game: str, positions: Iterable[str]) -> records.Batch:
        """Up to 10,000 positions of one game; a bad one gets `{"error": {...}}` in its slot."""
        return self._unary(calls.batch_get_values(game, positions))

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

    def get_sequence(self, game: str, start: int, stop: int, family: str | None = None) -> records.Sequence:
        """The values of a one-parameter family (default: single heaps) for start <= n < stop."""
        return self._unary(calls.get_sequence(game, start, stop, family))

    def get_stats(self, game: str) -> records.Stats:
        """What is known of the game as a whole."""
        return self._unary(calls.get_stats(game))

    def submit_job(
        self,
        game: str,
        upto: int | None = None,
        fill: bool = False,
        family: str | None = None,
        men: int | None = None,
    ) -> records.Job:
        """Queues a precompute job of values 0..upto-1 (needs the admin token; `upto` may be left out
        where the job makes its object whole), or with `men` a family's whole set; `family` names one of
        the game's stored families where it has several (ListGames and GetStats name them). The answer's
        `queued` lists the jobs queued; `stored` says what was stored already."""
        return self._unary(calls.submit_job(game, upto, fill, family, men))

    def retry_job(self, job_id: int) -> records.Job:
        """Queues a failed job again, with the jobs that failed waiting for it (needs the admin token)."""
        return self._unary(calls.retry_job(job_id))

    def get_job(self, job_id: int) -> records.Job:
        return self._unary(calls.get_job(job_id))

    def list_jobs(self, limit: int | None = None, cursor: str | None = None) -> records.JobList:
        """The jobs, newest first, a page at a time (`cursor`: the last page's `next_cursor`)."""
        return self._unary(calls.list_jobs(limit, cursor))

    def cancel_job(self, job_id: int) -> records.Job:
        """Cancels a job (needs the admin token)."""
        return self._unary(calls.cancel_job(job_id))

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

    async def list_games(self) -> records.GameList:
        return await self._unary(calls.list_games())

    async def get_value(self, game: str, position: str) -> records.Value:
        return await self._unary(calls.get_value(game, position))

    async def best_move(
        self,
        game: str,
        position: str,
        limit: int | None = None,
        choose: str | None = None,
        seed: int | None = None,
    ) -> records.BestMove:
        return await self._unary(calls.best_move(game, position, limit, choose, seed))

    async def mainline(
        self, game: str, position: str, max_plies: int | None = None, metric: str | None = None
    ) -> records.Mainline:
        return await self._unary(calls.mainline(game, position, max_plies, metric))

    async def is_p_position(self, game: str, position: str) -> records.PPosition:
        return await self._unary(calls.is_p_position(game, position))

    async def batch_get_values(self, game: str, positions: Iterable[str]) -> records.Batch:
        return await self._unary(calls.batch_get_values(game, positions))

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

    async def get_sequence(
        self, game: str, start: int, stop: int, family: str | None = None
    ) -> records.Sequence:
        return await self._unary(calls.get_sequence(game, start, stop, family))

    async def get_stats(self, game: str) -> records.Stats:
        return await self._unary(calls.get_stats(game))

    async def submit_job(
        self,
        game: str,
        upto: int | None = None,
        fill: bool = False,
        family: str | None = None,
        men: int | None = None,
    ) -> records.Job:
        return await self._unary(calls.submit_job(game, upto, fill, family, men))

    async def retry_job(self, job_id: int) -> records.Job:
        return await self._unary(calls.retry_job(job_id))

    async def get_job(self, job_id: int) -> records.Job:
        return await self._unary(calls.get_job(job_id))

    async def list_jobs(self, limit: int | None = None, cursor: str | None = None) -> records.JobList:
        return await self._unary(calls.list_jobs(limit, cursor))

    async def cancel_job(self, job_id: int) -> records.Job:
        return await self._unary(calls.cancel_job(job_id))

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
