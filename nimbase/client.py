"""A plain Python client of the nimbase gRPC API.

Answers come back as plain dicts in exactly the JSON shapes of the REST routes (each declared once
in `nimbase.schema`, the types these methods return), so a program can switch transports without
touching its data handling; errors raise `NimbaseClientError` carrying the public error code.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast

import grpc
from google.protobuf import json_format
from grpc_status import rpc_status

from nimbase import schema
from nimbase.v1 import nimbase_pb2 as pb
from nimbase.v1 import nimbase_pb2_grpc

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: Largest message the client sends or receives (the server accepts requests up to 16 MiB).
MAX_MESSAGE_BYTES = 64 * 1024 * 1024


class NimbaseClientError(Exception):
    """An error answer: `code` is the gRPC status code name, e.g. "INVALID_ARGUMENT".

    `job` is set on a RESOURCE_EXHAUSTED refusal for which the server queued (or found) the precompute
    job that will make the answer possible: ask again once `get_job(job["id"])` says it is done.
    """

    def __init__(self, code: str, message: str, job: schema.Job | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.job = job


def value_dict(msg: pb.Value) -> schema.Value:
    """A Value message as the REST JSON has it (same keys, same order)."""
    outcome = cast(schema.Outcome, msg.outcome)
    source = cast(schema.Source, msg.source)
    if msg.HasField("grundy_black"):  # bicolor-nim only
        out: dict[str, object] = {"game": msg.game, "position": msg.position, "outcome": outcome}
        if msg.HasField("grundy"):
            out["grundy"] = msg.grundy
        out["grundy_black"] = msg.grundy_black
        if msg.HasField("remoteness"):
            out["remoteness"] = msg.remoteness
        out["source"] = source
        return cast(schema.Value, out)
    if msg.HasField("grundy"):
        if msg.HasField("remoteness"):
            return {
                "game": msg.game,
                "position": msg.position,
                "outcome": outcome,
                "grundy": msg.grundy,
                "remoteness": msg.remoteness,
                "source": source,
            }
        return {
            "game": msg.game,
            "position": msg.position,
            "outcome": outcome,
            "grundy": msg.grundy,
            "source": source,
        }
    if msg.HasField("remoteness"):
        return {
            "game": msg.game,
            "position": msg.position,
            "outcome": outcome,
            "remoteness": msg.remoteness,
            "source": source,
        }
    return {"game": msg.game, "position": msg.position, "outcome": outcome, "source": source}


def value_or_error_dict(msg: pb.ValueOrError) -> schema.ValueOrError:
    if msg.HasField("error"):
        body: schema.ErrorBody = {"error": {"code": msg.error.code, "message": msg.error.message}}
        if msg.error.HasField("job"):
            body["error"]["job"] = job_dict(msg.error.job)
        return body
    return value_dict(msg.value)


def move_dict(msg: pb.Move) -> schema.Move:
    """A Move message as the REST JSON has it: `to` comes with `heap` (heap games), `pair` (Wythoff) or
    `colored_heap` (bicolor-nim), and is kept when empty (a heap that vanishes)."""
    out: schema.Move = {
        "move": msg.move,
        "position": msg.position,
        "outcome": cast(schema.Outcome, msg.outcome),
    }
    if msg.HasField("grundy"):
        out["grundy"] = msg.grundy
    if msg.HasField("grundy_black"):
        out["grundy_black"] = msg.grundy_black
    if msg.HasField("remoteness"):
        out["remoteness"] = msg.remoteness
    if msg.HasField("heap"):
        out["heap"] = msg.heap
        out["to"] = list(msg.to)
    elif msg.pair:
        out["pair"] = list(msg.pair)
        out["to"] = list(msg.to)
    elif msg.colored_heap:
        out["colored_heap"] = list(msg.colored_heap)
        out["to"] = list(msg.to)
        out["white_taken"] = msg.white_taken
        out["black_taken"] = msg.black_taken
    return out


def best_move_dict(msg: pb.BestMoveResponse) -> schema.BestMove:
    moves: schema.Moves = {"moves": [move_dict(m) for m in msg.moves]}
    if msg.HasField("best_move"):
        moves["best_move"] = move_dict(msg.best_move)
    return {**value_dict(msg.value), **moves}


def game_info_dict(msg: pb.GameInfo) -> schema.GameInfo:
    out: schema.GameInfo = {
        "id": msg.id,
        "name": msg.name,
        "description": msg.description,
        "position_syntax": msg.position_syntax,
        "examples": list(msg.examples),
    }
    if msg.HasField("period"):
        out["period"] = period_dict(msg.period)
    return out


def period_dict(msg: pb.Period) -> schema.Period:
    return {
        "preperiod": msg.preperiod,
        "period": msg.period,
        "saltus": msg.saltus,
        "certified": msg.certified,
    }


def sequence_dict(msg: pb.GetSequenceResponse) -> schema.Sequence:
    return {
        "game": msg.game,
        "family": msg.family,
        "start": msg.start,
        "stop": msg.stop,
        "values": list(msg.values),
        "period": period_dict(msg.period) if msg.HasField("period") else None,
        "source": cast(schema.Source, msg.source),
    }


def stats_dict(msg: pb.GetStatsResponse) -> schema.Stats:
    """The stats Struct as the REST JSON has it (whole numbers back as ints)."""
    stats = _whole_numbers(json_format.MessageToDict(msg.stats))
    return cast(schema.Stats, stats if isinstance(stats, dict) else {})


def job_dict(msg: pb.Job) -> schema.Job:
    return {
        "id": msg.id,
        "game": msg.game,
        "family": msg.family,
        "upto": msg.upto,
        "fill": msg.fill,
        "status": cast(schema.JobStatus, msg.status),
        "progress": {"done": msg.progress.done, "total": msg.progress.total},
        "error": msg.error if msg.HasField("error") else None,
        "created_at": msg.created_at,
        "started_at": msg.started_at if msg.HasField("started_at") else None,
        "finished_at": msg.finished_at if msg.HasField("finished_at") else None,
    }


def _whole_numbers(obj: object) -> object:
    """Struct numbers travel as doubles; give integral ones back as ints, as the REST JSON has them."""
    if isinstance(obj, float) and obj.is_integer():
        return int(obj)
    if isinstance(obj, dict):
        return {k: _whole_numbers(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_whole_numbers(v) for v in obj]
    return obj


class NimbaseClient:
    """Synchronous client; `token` is the admin token sent with SubmitJob and CancelJob.

    `timeout` (seconds) is the deadline of each call; None leaves it to the server's maximum.
    """

    def __init__(
        self, target: str = "localhost:50051", token: str | None = None, timeout: float | None = 30.0
    ) -> None:
        self.target = target
        self._token = token
        self._timeout = timeout
        self._channel = grpc.insecure_channel(
            target,
            options=[
                ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ],
        )
        self._stub: Any = nimbase_pb2_grpc.NimbaseStub(self._channel)  # type: ignore[no-untyped-call]

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> NimbaseClient:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _call(self, method: str, request: object, *, auth: bool = False) -> Any:
        metadata = [("authorization", f"Bearer {self._token}")] if auth and self._token is not None else None
        try:
            return getattr(self._stub, method)(request, timeout=self._timeout, metadata=metadata)
        except grpc.RpcError as exc:
            raise _client_error(exc) from None

    def list_games(self) -> schema.GameList:
        reply: pb.ListGamesResponse = self._call("ListGames", pb.ListGamesRequest())
        return {"games": [game_info_dict(g) for g in reply.games]}

    def get_value(self, game: str, position: str) -> schema.Value:
        return value_dict(self._call("GetValue", pb.GetValueRequest(game=game, position=position)))

    def best_move(self, game: str, position: str, limit: int | None = None) -> schema.BestMove:
        """The value, every move (or the first `limit`) best first, and `best_move` unless terminal."""
        request = pb.BestMoveRequest(game=game, position=position)
        if limit is not None:
            request.limit = limit
        return best_move_dict(self._call("BestMove", request))

    def is_p_position(self, game: str, position: str) -> schema.PPosition:
        reply: pb.IsPPositionResponse = self._call(
            "IsPPosition", pb.IsPPositionRequest(game=game, position=position)
        )
        return {"p_position": reply.p_position, **value_dict(reply.value)}

    def batch_get_values(self, game: str, positions: Iterable[str]) -> schema.Batch:
        request = pb.BatchGetValuesRequest(game=game, positions=list(positions))
        reply: pb.BatchGetValuesResponse = self._call("BatchGetValues", request)
        return {"values": [value_or_error_dict(v) for v in reply.values]}

    def columnar_values(
        self,
        game: str,
        heaps: Sequence[int] | NDArray[np.uint64],
        offsets: Sequence[int] | NDArray[np.uint64] | None = None,
    ) -> NDArray[np.uint32]:
        """Normal-play Grundy values of many positions of one heap game in one call (ColumnarValues):
        each heap a position of its own, or with `offsets` the sums heaps[offsets[i]:offsets[i+1]]
        (from 0 to len(heaps)). All or nothing: a heap that cannot be answered raises its error.
        Up to NIMBASE_LIMITS_COLUMNAR_VALUES (1,048,576 by default) heaps a call."""
        import numpy as np  # only this method needs numpy

        request = pb.ColumnarValuesRequest(game=game)
        request.heaps.extend(heaps.tolist() if isinstance(heaps, np.ndarray) else heaps)
        if offsets is not None:
            request.offsets.extend(offsets.tolist() if isinstance(offsets, np.ndarray) else offsets)
        reply: pb.ColumnarValuesResponse = self._call("ColumnarValues", request)
        return np.array(reply.grundy, dtype=np.uint32)

    def stream_values(self, requests: Iterable[tuple[str, str]]) -> Iterator[schema.ValueOrError]:
        """One answer per (game, position), in order: a value or `{"error": {...}}` for a bad item.

        Requests are sent lazily as the server reads them, so the input may be an endless generator.
        """
        messages = (pb.StreamValuesRequest(game=game, position=position) for game, position in requests)
        try:
            for reply in self._stub.StreamValues(messages, timeout=None):
                yield value_or_error_dict(reply)
        except grpc.RpcError as exc:
            raise _client_error(exc) from None

    def stream_batches(self, batches: Iterable[tuple[str, Sequence[str]]]) -> Iterator[schema.Batch]:
        """One `{"values": [...]}` per (game, positions) batch, in order, over one stream."""
        requests = (
            pb.BatchGetValuesRequest(game=game, positions=list(positions)) for game, positions in batches
        )
        try:
            for reply in self._stub.StreamBatches(requests, timeout=None):
                yield {"values": [value_or_error_dict(v) for v in reply.values]}
        except grpc.RpcError as exc:
            raise _client_error(exc) from None

    def get_sequence(self, game: str, start: int, stop: int, family: str | None = None) -> schema.Sequence:
        request = pb.GetSequenceRequest(game=game, start=start, stop=stop)
        if family is not None:
            request.family = family
        return sequence_dict(self._call("GetSequence", request))

    def get_stats(self, game: str) -> schema.Stats:
        return stats_dict(self._call("GetStats", pb.GetStatsRequest(game=game)))

    def submit_job(self, game: str, upto: int, fill: bool = False) -> schema.Job:
        request = pb.SubmitJobRequest(game=game, upto=upto, fill=fill)
        return job_dict(self._call("SubmitJob", request, auth=True))

    def get_job(self, job_id: int) -> schema.Job:
        return job_dict(self._call("GetJob", pb.GetJobRequest(id=job_id)))

    def list_jobs(self, limit: int | None = None) -> schema.JobList:
        request = pb.ListJobsRequest() if limit is None else pb.ListJobsRequest(limit=limit)
        reply: pb.ListJobsResponse = self._call("ListJobs", request)
        return {"jobs": [job_dict(j) for j in reply.jobs]}

    def cancel_job(self, job_id: int) -> schema.Job:
        return job_dict(self._call("CancelJob", pb.CancelJobRequest(id=job_id), auth=True))


def _client_error(exc: grpc.RpcError) -> NimbaseClientError:
    code = exc.code() if isinstance(exc, grpc.Call) else None
    details = exc.details() if isinstance(exc, grpc.Call) else str(exc)
    return NimbaseClientError(code.name if code is not None else "UNKNOWN", details or "", _queued_job(exc))


def _queued_job(exc: grpc.RpcError) -> schema.Job | None:
    """The Job a refusal carries in its status details (google.rpc.Status), if any."""
    if not isinstance(exc, grpc.Call):
        return None
    status = rpc_status.from_call(exc)
    for detail in status.details if status is not None else ():
        job = pb.Job()
        if detail.Unpack(job):
            return job_dict(job)
    return None
