"""Translation between the service layer and the wire, shared by the gRPC and REST transports.

Both transports must answer identically, so everything they both decide lives here: service
dataclasses to protobuf messages, error codes to HTTP statuses, the admin token header, the batch
size limit and the request deadline (both bounds are the `Limits` the transport was given).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence

from google.protobuf import struct_pb2

from engine.errors import InvalidArgument, NimbaseError
from engine.games.base import GameInfo
from engine.periods import Period
from engine.values import Value
from nimbase.v1 import nimbase_pb2 as pb
from service.core import BestMoveResult, JobView, MoveValue, SequenceResult
from service.limits import Limits

log = logging.getLogger(__name__)

#: HTTP status of each public error code (API.md, "Errors").
HTTP_STATUS: Mapping[str, int] = {
    "INVALID_ARGUMENT": 400,
    "NOT_FOUND": 404,
    "ALREADY_EXISTS": 409,
    "FAILED_PRECONDITION": 409,
    "RESOURCE_EXHAUSTED": 422,
    "DEADLINE_EXCEEDED": 504,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "UNAVAILABLE": 503,
    "INTERNAL": 500,
}

#: What a caller is told when something unexpected breaks: never the exception itself.
INTERNAL_MESSAGE = "internal error; the server log has the details"

JSON = None | bool | int | float | str | list["JSON"] | dict[str, "JSON"]


def http_status(code: str) -> int:
    """The HTTP status for a public error code (500 for anything unknown)."""
    return HTTP_STATUS.get(code, 500)


def public_error(exc: BaseException) -> tuple[str, str]:
    """(code, message) safe to show a caller: a NimbaseError as it is, anything else as INTERNAL."""
    if isinstance(exc, NimbaseError):
        code = exc.code if exc.code in HTTP_STATUS else "INTERNAL"
        return code, str(exc) or type(exc).__name__
    log.error("unexpected error answering a request", exc_info=exc)
    return "INTERNAL", INTERNAL_MESSAGE


def bearer_token(header: str | None) -> str | None:
    """The token of an `authorization: Bearer <token>` header; None when no header was sent.

    A header in another scheme is passed on whole, so the service refuses it as a wrong token
    (PERMISSION_DENIED) rather than as a missing one.
    """
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return header


def check_batch_size(count: int, limits: Limits) -> None:
    """Refuse a batch above `limits.batch_positions` positions, naming the limit."""
    if count > limits.batch_positions:
        most = limits.batch_positions
        raise InvalidArgument(
            f"a batch holds at most {most} positions; got {count} (use StreamValues for more)"
        )


def deadline_after(seconds: float | None, limits: Limits) -> float:
    """Absolute time.monotonic() deadline `seconds` from now, capped at `limits.request_seconds`."""
    cap = limits.request_seconds
    budget = cap if seconds is None else max(0.0, min(seconds, cap))
    return time.monotonic() + budget


def jsonable(obj: object) -> JSON:
    """A JSON-ready copy of a stats dict (objects with `as_dict`, tuples and sets included)."""
    if obj is None or isinstance(obj, bool | int | float | str):
        return obj
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        items = sorted(obj) if isinstance(obj, set | frozenset) else obj
        return [jsonable(v) for v in items]
    as_dict = getattr(obj, "as_dict", None)
    if callable(as_dict):
        return jsonable(as_dict())
    if hasattr(obj, "item"):  # numpy scalars
        return jsonable(obj.item())
    return str(obj)


def fill_value(msg: pb.Value, value: Value) -> pb.Value:
    """Set a Value message's fields in place (bulk answers fill messages already in their list)."""
    msg.game, msg.position, msg.outcome, msg.source = value.game, value.position, value.outcome, value.source
    if value.grundy is not None:
        msg.grundy = value.grundy
    if value.remoteness is not None:
        msg.remoteness = value.remoteness
    return msg


def fill_error(msg: pb.Error, exc: BaseException) -> pb.Error:
    msg.code, msg.message = public_error(exc)
    return msg


def value_to_pb(value: Value) -> pb.Value:
    return fill_value(pb.Value(), value)


def error_to_pb(exc: BaseException) -> pb.Error:
    return fill_error(pb.Error(), exc)


def value_or_error_to_pb(item: Value | BaseException) -> pb.ValueOrError:
    slot = pb.ValueOrError()
    _fill_slot(slot, item)
    return slot


def _fill_slot(slot: pb.ValueOrError, item: Value | BaseException) -> None:
    if isinstance(item, Value):
        fill_value(slot.value, item)
    else:
        fill_error(slot.error, item)


def batch_to_pb(items: Sequence[Value | BaseException]) -> pb.BatchGetValuesResponse:
    """The batch answer, its messages filled in place (twice as fast as building each and copying)."""
    response = pb.BatchGetValuesResponse()
    add = response.values.add
    for item in items:
        _fill_slot(add(), item)
    return response


def move_to_pb(move: MoveValue) -> pb.Move:
    msg = pb.Move(move=move.move, position=move.value.position, outcome=move.value.outcome)
    if move.value.grundy is not None:
        msg.grundy = move.value.grundy
    if move.value.remoteness is not None:
        msg.remoteness = move.value.remoteness
    return msg


def best_move_to_pb(result: BestMoveResult) -> pb.BestMoveResponse:
    moves = [move_to_pb(m) for m in result.moves]
    msg = pb.BestMoveResponse(value=value_to_pb(result.value), moves=moves)
    if moves:
        msg.best_move.CopyFrom(moves[0])
    return msg


def best_move_as_dict(result: BestMoveResult) -> dict[str, object]:
    """The REST shape: the value's fields plus `moves` and `best_move` (absent at a terminal)."""
    out = result.value.as_dict()
    out["moves"] = [m.as_dict() for m in result.moves]
    if result.moves:
        out["best_move"] = result.moves[0].as_dict()
    return out


def game_info_to_pb(info: GameInfo) -> pb.GameInfo:
    return pb.GameInfo(
        id=info.id,
        name=info.name,
        description=info.description,
        position_syntax=info.position_syntax,
        examples=list(info.examples),
    )


def game_info_as_dict(info: GameInfo) -> dict[str, object]:
    return {
        "id": info.id,
        "name": info.name,
        "description": info.description,
        "position_syntax": info.position_syntax,
        "examples": list(info.examples),
    }


def period_to_pb(period: Period) -> pb.Period:
    return pb.Period(
        preperiod=period.preperiod, period=period.period, saltus=period.saltus, certified=period.certified
    )


def sequence_to_pb(result: SequenceResult) -> pb.GetSequenceResponse:
    msg = pb.GetSequenceResponse(
        game=result.game,
        family=result.family,
        start=result.start,
        stop=result.stop,
        values=[int(v) for v in result.values],
        source=result.source,
    )
    if result.period is not None:
        msg.period.CopyFrom(period_to_pb(result.period))
    return msg


def sequence_as_dict(result: SequenceResult) -> dict[str, object]:
    return {
        "game": result.game,
        "family": result.family,
        "start": result.start,
        "stop": result.stop,
        "values": [int(v) for v in result.values],
        "period": None if result.period is None else result.period.as_dict(),
        "source": result.source,
    }


def stats_to_pb(stats: Mapping[str, object]) -> pb.GetStatsResponse:
    struct = struct_pb2.Struct()
    struct.update({str(k): jsonable(v) for k, v in stats.items()})
    return pb.GetStatsResponse(stats=struct)


def job_to_pb(job: JobView) -> pb.Job:
    msg = pb.Job(
        id=job.id,
        game=job.game,
        family=job.family,
        upto=job.upto,
        fill=job.fill,
        status=job.status,
        progress=pb.Progress(done=job.done, total=job.total),
        created_at=job.created_at,
    )
    if job.error is not None:
        msg.error = job.error
    if job.started_at is not None:
        msg.started_at = job.started_at
    if job.finished_at is not None:
        msg.finished_at = job.finished_at
    return msg


def values_as_dicts(items: Sequence[Value | BaseException]) -> list[dict[str, object]]:
    """Batch slots in the REST shape: a value, or `{"error": {"code", "message"}}`."""
    out: list[dict[str, object]] = []
    for item in items:
        if isinstance(item, Value):
            out.append(item.as_dict())
        else:
            code, message = public_error(item)
            out.append({"error": {"code": code, "message": message}})
    return out
