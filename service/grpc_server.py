"""The gRPC transport: `nimbase.v1.Nimbase` over `grpc.aio`, plus health checking and reflection.

Service calls are synchronous (they may wait on the database or compute up to the deadline), so
each runs on a bounded thread pool while the event loop keeps serving other calls: the reads lane, and
for the calls the service sends to its live processes a compute lane of their own (service.pooled), so
that threads waiting for a process never hold the ones a read needs. Every handler
only translates: request message to service call, result to response message, NimbaseError to
its status code.

Each call's deadline travels to the service as a `Deadline`; when the call ends early (the client
cancels, or its gRPC deadline passes) grpc.aio cancels the handler, and the handler cancels the
`Deadline`, so the thread's work stops at its next check instead of running on for nobody. Lookups
answered from memory on the event loop (GetValue, IsPPosition on stored values) make none: nothing
there waits or computes.

GetValue and IsPPosition take their request as bytes (`RAW_METHODS`): a request asked before whose answer
stays the same is answered with the bytes sent the first time (service.answers), before anything is
parsed: what a bot asking for its hot positions over and over costs the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import grpc
import numpy as np
from google.protobuf.message import DecodeError, Message
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from engine.deadline import Deadline
from engine.errors import InvalidArgument, NimbaseError
from engine.graphs import GraphBuilder
from engine.values import Value
from nimbase.v1 import nimbase_pb2 as pb
from nimbase.v1 import nimbase_pb2_grpc
from service import batch_wire, columnar, convert
from service.call_hooks import BeforeEachCall, before_each_call
from service.calls import (
    BatchGetValues,
    BeginGraphUpload,
    BestMove,
    CancelJob,
    ColumnarValues,
    FinishGraphUpload,
    GetGraph,
    GetJob,
    GetSequence,
    GetStats,
    GetValue,
    IsPPosition,
    JobPage,
    Mainline,
    RetryJob,
    SubmitJob,
)
from service.client_peers import ClientInterceptor
from service.clients import ARRIVED, in_request_context
from service.core import NimbaseService
from service.limits import DEFAULT_LIMITS, Limits, check_batch_size
from service.metrics import Metrics
from service.pooled import Moved, compute_lane_threads, computing_only, reads_only
from service.rate_limit import RateLimiter, RateLimitInterceptor
from service.value_wire import ValueWire

log = logging.getLogger(__name__)

T = TypeVar("T")
Context = grpc.aio.ServicerContext[Any, Any]

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["Nimbase"].full_name
#: Largest request message accepted; larger ones get RESOURCE_EXHAUSTED naming this limit.
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
#: Largest response message sent (a full batch of values stays far below it).
MAX_SEND_BYTES = 64 * 1024 * 1024
#: StreamValues answers requests in chunks of at most this many, read ahead at most this far.
STREAM_CHUNK = 512
STREAM_READ_AHEAD = 4 * STREAM_CHUNK
#: Threads running service calls in the reads lane (they mostly wait on the database); the calls that wait
#: for a live process have a compute lane of their own (service.pooled.compute_lane_threads).
DEFAULT_WORKERS = 16
#: Lookups whose handlers take the request's bytes and may send bytes kept from an earlier answer.
RAW_METHODS = ("GetValue", "IsPPosition")
#: Calls of long messages, whose handlers take the request's bytes and answer bytes: grpc.aio parses and
#: serializes messages on the event loop (a million values: about 9 ms each way), these do it in the call's
#: thread.
BULK_METHODS = ("ColumnarValues", "GetSequence", "BatchGetValues")
#: Streams of long messages whose handlers yield bytes, written in the call's thread (service.batch_wire).
BULK_STREAMS = ("StreamBatches",)


def _add_part(upload: GraphBuilder, part: pb.GraphPart) -> None:
    """One part of an UploadGraph stream: its terminals, vertices, then edges (which may name them)."""
    if part.terminals:
        upload.add_terminals(dict(part.terminals))
    upload.add_vertices(part.vertices)
    if part.sources or part.targets:
        upload.add_edges(list(part.sources), list(part.targets))


M = TypeVar("M", bound=Message)


def _parse(message_type: type[M], request: bytes) -> M:
    """A request message from the bytes a raw method (`RAW_METHODS`) receives."""
    try:
        return message_type.FromString(request)
    except DecodeError:
        raise InvalidArgument(
            f"the request is not a valid {message_type.DESCRIPTOR.name} message ({len(request)} bytes)"
        ) from None


def _serialized(answer: bytes | Message) -> bytes:
    """What a raw method sends: the bytes it kept or made, or its message serialized."""
    return answer if isinstance(answer, bytes) else answer.SerializeToString()


class _Handlers:
    """Stands in for a server to collect the method handlers the generated code registers."""

    def __init__(self) -> None:
        self.handlers: dict[str, Any] = {}

    def add_generic_rpc_handlers(self, handlers: object) -> None:
        pass  # the same handlers as below, which are what the real server is given

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        self.handlers.update(handlers)


def add_servicer(
    servicer: NimbaseServicer, server: grpc.aio.Server, hooks: Sequence[BeforeEachCall] = ()
) -> None:
    """`add_NimbaseServicer_to_server`, except that the `RAW_METHODS` take the request's bytes and may
    answer with bytes: they key the answer cache (service.answers) by the request as received, so a
    repeated lookup is answered without parsing its request or serializing its answer. Each method
    awaits the `hooks` first (service.call_hooks: the client's address, the rate limit)."""
    collected = _Handlers()
    nimbase_pb2_grpc.add_NimbaseServicer_to_server(servicer, collected)  # type: ignore[no-untyped-call]
    handlers = collected.handlers
    for name in RAW_METHODS:  # bytes in, bytes out: grpc.aio sends them as they are
        handlers[name] = grpc.unary_unary_rpc_method_handler(getattr(servicer, name))
    for name in BULK_METHODS:
        handlers[name] = grpc.unary_unary_rpc_method_handler(
            getattr(servicer, name), request_deserializer=None, response_serializer=_serialized
        )
    for name in BULK_STREAMS:
        handlers[name] = grpc.stream_stream_rpc_method_handler(
            getattr(servicer, name),
            request_deserializer=handlers[name].request_deserializer,
            response_serializer=_serialized,
        )
    handlers = before_each_call(handlers, hooks)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    server.add_registered_method_handlers(SERVICE_NAME, handlers)  # type: ignore[attr-defined]


def status_code(code: str) -> grpc.StatusCode:
    """The gRPC status for a public error code name (INTERNAL for anything unknown)."""
    try:
        return grpc.StatusCode[code]
    except KeyError:
        return grpc.StatusCode.INTERNAL


def _metadata_value(context: Context, key: str) -> str | None:
    for item in context.invocation_metadata() or ():
        k, v = item[0], item[1]
        if k == key:
            return v if isinstance(v, str) else v.decode("utf-8", "replace")
    return None


class NimbaseServicer:
    """The RPC handlers; method names are the RPC names of `nimbase.v1.Nimbase`."""

    def __init__(
        self,
        service: NimbaseService,
        metrics: Metrics | None = None,
        workers: int = DEFAULT_WORKERS,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self._service = service
        self._limits = limits
        self._metrics = metrics if metrics is not None else Metrics()
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="nimbase-grpc")
        lane = compute_lane_threads(service)
        self._computing = (
            ThreadPoolExecutor(max_workers=lane, thread_name_prefix="nimbase-grpc-compute") if lane else None
        )
        self._answers = service.answers
        #: GetValue's answers from memory, written from pieces on the event loop (service.value_wire).
        self._wire = ValueWire()

    def close(self) -> None:
        """Stop the worker threads (after the server has stopped taking calls)."""
        self._executor.shutdown(wait=False, cancel_futures=True)
        if self._computing is not None:
            self._computing.shutdown(wait=False, cancel_futures=True)

    def _deadline(self, context: Context) -> Deadline:
        """The call's gRPC deadline, capped at `limits.request_seconds` (cancelled if the call ends)."""
        remaining: float | None = context.time_remaining()
        return Deadline.cancellable(convert.deadline_after(remaining, self._limits))

    async def _run(
        self,
        fn: Callable[..., T],
        *args: object,
        stop: Deadline | None = None,
        executor: ThreadPoolExecutor | None = None,
    ) -> T:
        """`fn(*args)` in a worker thread (of the reads lane unless told); if the call is cancelled
        meanwhile, so is `stop`."""
        loop = asyncio.get_running_loop()
        work = in_request_context(lambda: fn(*args))
        try:
            return await loop.run_in_executor(executor or self._executor, work)
        except asyncio.CancelledError:
            if stop is not None:
                stop.cancel()
            raise

    async def _run_laned(self, fn: Callable[..., T], *args: object, stop: Deadline | None = None) -> T:
        """`fn(*args)` in the reads lane, or in the compute lane if the service says it goes to its live
        processes (service.pooled): threads waiting for a process never hold the ones reads need."""
        if self._computing is None:
            return await self._run(fn, *args, stop=stop)
        read: T | Moved = await self._run(reads_only, lambda: fn(*args), stop=stop)
        if not isinstance(read, Moved):
            return read
        return await self._run(computing_only, lambda: fn(*args), stop=stop, executor=self._computing)

    async def _unary(
        self,
        method: str,
        context: Context,
        fn: Callable[[Deadline | None], T],
        *,
        timed: bool = False,
        memory_first: bool = False,
        keep: Callable[[T], None] | None = None,
    ) -> T:
        """Run one service call, `fn(deadline)`, record it, and turn its errors into the status code they
        name.

        `timed` calls run under the call's deadline (`_deadline`), cancelled when the call is; others
        get None. With `memory_first`, the call is first tried on the event loop answering from memory
        only, with no deadline (nothing done from memory waits or computes, and making the deadline
        would cost the hot path of lookups as much as the lookup), and runs in a worker thread only if
        that cannot be. `keep` is given what memory answered, to keep for the request if it stays the same
        (answers made in a worker thread are not kept: their deadline may have cut them short).
        """
        started = time.perf_counter()
        code = "OK"
        try:
            if memory_first:
                quick = self._service.in_memory(lambda: fn(None))
                if quick is not None:
                    if keep is not None:
                        keep(quick)
                    return quick
            stop = self._deadline(context) if timed else None
            ARRIVED.set(time.monotonic())  # the time it waits from here counts as the server's
            return await self._run_laned(fn, stop, stop=stop)
        except asyncio.CancelledError:
            code = "CANCELLED"
            raise
        except Exception as exc:
            code, message = convert.public_error(exc)
            await context.abort(status_code(code), message, convert.status_details(exc))
        finally:
            self._metrics.observe("grpc", method, code, time.perf_counter() - started)

    @contextlib.asynccontextmanager
    async def _observed(self, method: str, context: Context) -> AsyncIterator[None]:
        """A streaming call recorded, and its errors turned into the status code they name: what
        `_unary` does for the unary calls (which has it inline: an async context manager would cost the
        hot path of lookups a few microseconds a call)."""
        started = time.perf_counter()
        code = "OK"
        try:
            yield
        except asyncio.CancelledError:
            code = "CANCELLED"
            raise
        except Exception as exc:
            code, message = convert.public_error(exc)
            await context.abort(status_code(code), message, convert.status_details(exc))
        finally:
            self._metrics.observe("grpc", method, code, time.perf_counter() - started)

    def _kept(self, method: str, request: bytes) -> bytes | None:
        """The answer kept for this request (service.answers), the call recorded, or None."""
        started = time.perf_counter()
        kept = self._answers.get(method, request)
        if kept is not None:
            self._metrics.observe("grpc", method, "OK", time.perf_counter() - started)
        return kept

    async def ListGames(self, request: pb.ListGamesRequest, context: Context) -> pb.ListGamesResponse:
        def call(_: Deadline | None) -> pb.ListGamesResponse:
            games = [convert.game_info_to_pb(g) for g in self._service.list_games()]
            return pb.ListGamesResponse(games=games)

        return await self._unary("ListGames", context, call)

    async def GetValue(self, request: bytes, context: Context) -> bytes:
        """Takes the request's bytes (`RAW_METHODS`): asked again, an answer that stays the same comes from
        the service's answer cache without the request being parsed. Otherwise memory is tried first, as
        `_unary` does, inline (`value_in_memory`: the hot path of distinct lookups, with no closure or
        layer of its own; its answer written from pieces, service.value_wire), and a call memory cannot
        answer goes to `_unary` without it."""
        started = time.perf_counter()
        answers = self._answers
        kept = answers.get("GetValue", request)
        if kept is not None:
            self._metrics.observe("grpc", "GetValue", "OK", time.perf_counter() - started)
            return kept
        try:
            message = _parse(pb.GetValueRequest, request)
            value = self._service.value_in_memory(message.game, message.position)
        except Exception as exc:
            code, text = convert.public_error(exc)
            self._metrics.observe("grpc", "GetValue", code, time.perf_counter() - started)
            await context.abort(status_code(code), text, convert.status_details(exc))
        if value is not None:
            answer = self._wire.answer(value)
            answers.keep("GetValue", request, value.source, answer)
            self._metrics.observe("grpc", "GetValue", "OK", time.perf_counter() - started)
            return answer

        def call(deadline: Deadline | None) -> bytes:
            asked = GetValue(message.game, message.position, deadline=deadline)
            return convert.value_to_pb(self._service.get_value(asked)).SerializeToString()

        return await self._unary("GetValue", context, call, timed=True)

    async def BestMove(self, request: pb.BestMoveRequest, context: Context) -> pb.BestMoveResponse:
        limit = request.limit if request.HasField("limit") else None
        seed = request.seed if request.HasField("seed") else None

        def call(deadline: Deadline | None) -> pb.BestMoveResponse:
            asked = BestMove(request.game, request.position, limit, request.choose, seed, deadline=deadline)
            result = self._service.best_move(asked)
            return convert.best_move_to_pb(result)

        return await self._unary("BestMove", context, call, timed=True)

    async def Mainline(self, request: pb.MainlineRequest, context: Context) -> pb.MainlineResponse:
        max_plies = request.max_plies if request.HasField("max_plies") else None
        metric = request.metric if request.HasField("metric") else None

        def call(deadline: Deadline | None) -> pb.MainlineResponse:
            line = self._service.mainline(
                Mainline(request.game, request.position, max_plies, metric, deadline=deadline)
            )
            return convert.mainline_to_pb(line)

        return await self._unary("Mainline", context, call, timed=True)

    async def IsPPosition(self, request: bytes, context: Context) -> bytes:
        """Takes the request's bytes, as GetValue."""
        kept = self._kept("IsPPosition", request)
        if kept is not None:
            return kept

        def call(deadline: Deadline | None) -> tuple[str | None, bytes]:
            message = _parse(pb.IsPPositionRequest, request)
            value = self._service.is_p_position(
                IsPPosition(message.game, message.position, deadline=deadline)
            )
            answer = pb.IsPPositionResponse(p_position=value.outcome == "P", value=convert.value_to_pb(value))
            return value.source, answer.SerializeToString()

        def keep(answer: tuple[str | None, bytes]) -> None:
            self._answers.keep("IsPPosition", request, *answer)

        answer = await self._unary("IsPPosition", context, call, timed=True, memory_first=True, keep=keep)
        return answer[1]

    async def BatchGetValues(self, request: bytes, context: Context) -> bytes:
        """Takes and answers bytes (`BULK_METHODS`): a batch of long positions is megabytes each way, parsed
        and written (from pieces, service.batch_wire) in the call's thread."""

        def call(deadline: Deadline | None) -> bytes:
            message = _parse(pb.BatchGetValuesRequest, request)
            check_batch_size(len(message.positions), self._limits)
            items = self._service.batch_get_values(
                BatchGetValues(message.game, list(message.positions), deadline=deadline)
            )
            return batch_wire.batch_bytes(items)

        return await self._unary("BatchGetValues", context, call, timed=True)

    async def ColumnarValues(self, request: bytes, context: Context) -> bytes:
        """Takes and answers bytes (`BULK_METHODS`): the arrays are read and written in the call's thread."""

        def call(deadline: Deadline | None) -> bytes:
            message = _parse(pb.ColumnarValuesRequest, request)
            # A packed repeated field converts to numpy without a Python int per value.
            heaps = np.array(message.heaps, dtype=np.uint64)
            offsets = np.array(message.offsets, dtype=np.uint64) if len(message.offsets) else None
            grundy = self._service.columnar_values(
                ColumnarValues(message.game, heaps, offsets, deadline=deadline)
            )
            return columnar.grundy_message(grundy)

        return await self._unary("ColumnarValues", context, call, timed=True)

    async def GetSequence(self, request: bytes, context: Context) -> bytes:
        """Takes and answers bytes (`BULK_METHODS`): a million values are serialized in the call's thread."""

        def call(deadline: Deadline | None) -> bytes:
            message = _parse(pb.GetSequenceRequest, request)
            family = message.family if message.HasField("family") else None
            asked = GetSequence(message.game, family, message.start, message.stop, deadline=deadline)
            result = self._service.get_sequence(asked)
            return convert.sequence_to_pb(result).SerializeToString()

        return await self._unary("GetSequence", context, call, timed=True)

    async def GetStats(self, request: pb.GetStatsRequest, context: Context) -> pb.GetStatsResponse:
        def call(_: Deadline | None) -> pb.GetStatsResponse:
            return convert.stats_to_pb(self._service.get_stats(GetStats(request.game)))

        return await self._unary("GetStats", context, call)

    async def SubmitJob(self, request: pb.SubmitJobRequest, context: Context) -> pb.Job:
        token = convert.bearer_token(_metadata_value(context, "authorization"))

        def call(_: Deadline | None) -> pb.Job:
            asked = SubmitJob(
                request.game,
                request.upto if request.HasField("upto") else None,
                request.fill,
                request.family if request.HasField("family") else None,
                request.men if request.HasField("men") else None,
                token=token,
            )
            done = self._service.submit_job(asked)
            return convert.submission_to_pb(done)

        return await self._unary("SubmitJob", context, call)

    async def RetryJob(self, request: pb.RetryJobRequest, context: Context) -> pb.Job:
        token = convert.bearer_token(_metadata_value(context, "authorization"))

        def call(_: Deadline | None) -> pb.Job:
            return convert.submission_to_pb(self._service.retry_job(RetryJob(request.id, token=token)))

        return await self._unary("RetryJob", context, call)

    async def GetJob(self, request: pb.GetJobRequest, context: Context) -> pb.Job:
        def call(_: Deadline | None) -> pb.Job:
            return convert.job_to_pb(self._service.get_job(GetJob(request.id)))

        return await self._unary("GetJob", context, call)

    async def ListJobs(self, request: pb.ListJobsRequest, context: Context) -> pb.ListJobsResponse:
        def call(_: Deadline | None) -> pb.ListJobsResponse:
            cursor = request.cursor if request.HasField("cursor") else None
            asked = JobPage(request.limit, cursor) if request.HasField("limit") else JobPage(cursor=cursor)
            jobs, following = self._service.job_page(asked)
            return convert.job_list_to_pb(jobs, following)

        return await self._unary("ListJobs", context, call)

    async def CancelJob(self, request: pb.CancelJobRequest, context: Context) -> pb.Job:
        token = convert.bearer_token(_metadata_value(context, "authorization"))

        def call(_: Deadline | None) -> pb.Job:
            return convert.job_to_pb(self._service.cancel_job(CancelJob(request.id, token=token)))

        return await self._unary("CancelJob", context, call)

    async def UploadGraph(
        self, request_iterator: AsyncIterator[pb.GraphPart], context: Context
    ) -> pb.GraphSummary:
        """A graph in parts: the first names it (the token and the name are checked then, before the
        rest is read), each part is checked as it arrives (in a worker thread), and the whole is stored
        once the stream ends. Any error ends the call at once, and nothing is stored."""
        token = convert.bearer_token(_metadata_value(context, "authorization"))
        async with self._observed("UploadGraph", context):
            upload: GraphBuilder | None = None
            async for part in request_iterator:
                if upload is None:
                    upload = await self._run(
                        self._service.begin_graph_upload, BeginGraphUpload(part.name, token=token)
                    )
                elif part.name and part.name != upload.name:
                    raise InvalidArgument(
                        f"a part of the upload of graph {upload.name!r} names another graph, {part.name!r}"
                    )
                await self._run(_add_part, upload, part)
            if upload is None:
                raise InvalidArgument("an UploadGraph stream needs at least one message, naming the graph")
            return convert.graph_summary_to_pb(
                await self._run(self._service.finish_graph_upload, FinishGraphUpload(upload))
            )

    async def GetGraph(self, request: pb.GetGraphRequest, context: Context) -> AsyncIterator[pb.GraphPart]:
        """The stored graph: its name and terminals, then its vertices, then its edges, each message made
        in a worker thread as the client reads."""
        async with self._observed("GetGraph", context):
            graph = await self._run(self._service.get_graph, GetGraph(request.name))
            parts = convert.graph_to_pb(graph)
            while (part := await self._run(next, parts, None)) is not None:
                yield part

    async def StreamValues(
        self, request_iterator: AsyncIterator[pb.StreamValuesRequest], context: Context
    ) -> AsyncIterator[pb.ValueOrError]:
        """Answer in request order, a chunk of already-received requests per service call.

        A reader task keeps at most STREAM_READ_AHEAD requests waiting, so memory stays bounded
        whatever the stream's length; a bad item only gets an error in its own slot.
        """
        queue: asyncio.Queue[pb.StreamValuesRequest | None] = asyncio.Queue(maxsize=STREAM_READ_AHEAD)

        async def read() -> None:
            try:
                async for request in request_iterator:
                    await queue.put(request)
            except grpc.RpcError:
                pass  # the client went away; whatever arrived is still answered
            await queue.put(None)

        reader = asyncio.create_task(read())
        try:
            async with self._observed("StreamValues", context):
                finished = False
                while not finished:
                    first = await queue.get()
                    if first is None:
                        break
                    chunk = [first]
                    while len(chunk) < STREAM_CHUNK:
                        try:
                            item = queue.get_nowait()
                        except asyncio.QueueEmpty:
                            break
                        if item is None:
                            finished = True
                            break
                        chunk.append(item)
                    deadline = self._deadline(context)
                    answers = await self._run_laned(self._answer_chunk, chunk, deadline, stop=deadline)
                    for answer in answers:
                        yield answer
        finally:
            reader.cancel()

    async def StreamBatches(
        self, request_iterator: AsyncIterator[pb.BatchGetValuesRequest], context: Context
    ) -> AsyncIterator[bytes]:
        """One batch answer per request, in order, written in the call's thread (`BULK_STREAMS`); a bad
        batch (bad game) gets its error in every slot, one with more positions than a message may hold
        gets one slot with its error (not one copy per position), and the stream goes on."""
        async with self._observed("StreamBatches", context):
            async for request in request_iterator:
                deadline = self._deadline(context)
                yield await self._run_laned(self._answer_batch, request, deadline, stop=deadline)

    def _answer_batch(self, request: pb.BatchGetValuesRequest, deadline: Deadline) -> bytes:
        try:
            check_batch_size(len(request.positions), self._limits, streamed=True)
        except InvalidArgument as exc:
            return batch_wire.batch_bytes([exc])
        positions = list(request.positions)
        items: Sequence[Value | BaseException]
        try:
            items = self._service.batch_get_values(BatchGetValues(request.game, positions, deadline=deadline))
        except NimbaseError as exc:
            items = [exc] * len(positions)
        return batch_wire.batch_bytes(items)

    def _answer_chunk(
        self, chunk: Sequence[pb.StreamValuesRequest], deadline: Deadline
    ) -> list[pb.ValueOrError]:
        """One service batch per run of consecutive requests for the same game, answers in order."""
        answers: list[pb.ValueOrError] = []
        start = 0
        while start < len(chunk):
            game = chunk[start].game
            stop = start + 1
            while stop < len(chunk) and chunk[stop].game == game:
                stop += 1
            positions = [r.position for r in chunk[start:stop]]
            items: Sequence[Value | BaseException]
            try:
                items = self._service.batch_get_values(BatchGetValues(game, positions, deadline=deadline))
            except NimbaseError as exc:  # a bad game id: every item of the run gets the error
                items = [exc] * len(positions)
            except Exception:  # something broke on one item: find it, and answer the others
                items = [self._answer_one(game, p, deadline) for p in positions]
            answers.extend(convert.value_or_error_to_pb(item) for item in items)
            start = stop
        # Counted once the whole chunk is answered: a chunk moved to the compute lane runs again there.
        for answer in answers:
            self._metrics.stream_item(answer.error.code if answer.HasField("error") else "OK")
        return answers

    def _answer_one(self, game: str, position: str, deadline: Deadline) -> Value | BaseException:
        try:
            return self._service.get_value(GetValue(game, position, deadline=deadline))
        except Exception as exc:
            return exc


#: How often the gRPC health status follows the service's readiness (seconds).
READINESS_POLL_SECONDS = 0.5
#: The readiness watches running (a task is only weakly held by its loop).
_WATCHES: set[asyncio.Task[None]] = set()


async def _watch_readiness(service: NimbaseService, servicer: Any) -> None:
    """Keep the health status of "" and the nimbase service at NOT_SERVING while the service is not
    ready (GET /readyz: kernels compiling, live processes starting, no worker under `nimbase run`), at
    SERVING once it is; read from memory every READINESS_POLL_SECONDS, on the event loop."""
    status = None
    try:
        while True:
            try:
                ready = service.health().ready
            except Exception:  # a health read that fails reports nothing new
                ready = status == health_pb2.HealthCheckResponse.SERVING
            now = (
                health_pb2.HealthCheckResponse.SERVING
                if ready
                else health_pb2.HealthCheckResponse.NOT_SERVING
            )
            if now != status:
                for name in ("", SERVICE_NAME):
                    await servicer.set(name, now)
                status = now
            await asyncio.sleep(READINESS_POLL_SECONDS)
    finally:
        task = asyncio.current_task()
        if task is not None:
            _WATCHES.discard(task)


async def create_grpc_server(
    service: NimbaseService,
    metrics: Metrics | None = None,
    limits: Limits = DEFAULT_LIMITS,
    limiter: RateLimiter | None = None,
    reuse_port: bool = False,
) -> tuple[grpc.aio.Server, NimbaseServicer]:
    """A grpc.aio server (no port bound yet) serving nimbase, health checking and reflection;
    `limits` bounds each call's batch size and deadline (the settings' limits, as the service's),
    `limiter` (shared with the REST app) refuses clients over their rate limit.

    `reuse_port`: other processes may serve the same port (service.processes); otherwise a port another
    server holds is refused, not silently shared (gRPC would share it by default).

    Must be called inside the event loop that will run it.
    """
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_SEND_BYTES),
            ("grpc.so_reuseport", 1 if reuse_port else 0),
        ],
    )
    servicer = NimbaseServicer(service, metrics, limits=limits)
    hooks = [ClientInterceptor(), *([] if limiter is None else [RateLimitInterceptor(limiter, metrics)])]
    add_servicer(servicer, server, hooks)

    health_servicer = health.aio.HealthServicer()  # type: ignore[attr-defined]
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    # NOT_SERVING until the process is ready (as /readyz), then SERVING: it answers what needs no
    # database even when the database is down.
    _WATCHES.add(asyncio.create_task(_watch_readiness(service, health_servicer)))

    reflection.enable_server_reflection(
        (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
        server,
    )
    return server, servicer
