"""Translation between the service layer and the wire, shared by the gRPC and REST transports.

Both transports must answer identically, so everything they both decide lives here: service
dataclasses to protobuf messages and to the REST JSON (each `*_as_dict` returns the one declaration
of its shape in `nimbase.schema`), error codes to HTTP statuses, the admin token header, the batch
size limit and the request deadline (both bounds are the `Limits` the transport was given).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

import grpc
from google.protobuf import any_pb2, struct_pb2
from google.rpc import status_pb2

from engine.errors import NimbaseError
from engine.graphs import UploadedGraph
from engine.periods import Period
from engine.positions import quote_position
from engine.records import KindRecord, record_fields
from engine.values import GameInfo, Value
from nimbase import schema
from nimbase.v1 import nimbase_pb2 as pb
from nimbase_client.calls import terminal_parts
from nimbase_client.kinds import Member, UndeclaredKind, member, put
from service.core import BestMoveResult, GraphSummary, Health, JobView, Mainline, MoveValue, SequenceResult
from service.errors import BeyondTheWire
from service.jobs import SubmissionView, job_of
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

#: Trailing metadata key of the google.rpc.Status details of a failed call (gRPC's rich error model).
GRPC_DETAILS_KEY = "grpc-status-details-bin"

#: What a caller is told when something unexpected breaks: never the exception itself.
INTERNAL_MESSAGE = "internal error; the server log has the details"

JSON = None | bool | int | float | str | list["JSON"] | dict[str, "JSON"]


def http_status(code: str) -> int:
    """The HTTP status for a public error code (500 for anything unknown)."""
    return HTTP_STATUS.get(code, 500)


#: Longest error message sent: messages quote inputs shortened, and this bounds what they add (gRPC
#: sends the message in a header, and clients refuse headers past 8 to 16 KiB).
MAX_MESSAGE_CHARS = 4096


def public_error(exc: BaseException) -> tuple[str, str]:
    """(code, message) safe to show a caller: a NimbaseError as it is (shortened past
    MAX_MESSAGE_CHARS), anything else as INTERNAL."""
    if isinstance(exc, NimbaseError):
        code = exc.code if exc.code in HTTP_STATUS else "INTERNAL"
        message = str(exc) or type(exc).__name__
        if len(message) > MAX_MESSAGE_CHARS:
            message = message[: MAX_MESSAGE_CHARS - 40] + f"... ({len(message)} characters)"
        return code, message
    log.error("unexpected error answering a request", exc_info=exc)
    return "INTERNAL", INTERNAL_MESSAGE


def bearer_token(header: str | None) -> str | None:
    """The token of an `authorization: Bearer <token>` header; None when there is none to use.

    A header in another scheme (or `Bearer` with nothing after it) gives None too, so the service
    answers UNAUTHENTICATED asking for `authorization: Bearer <token>`. Passing it on whole would
    accept the bare token sent as `authorization: <token>`. The header is never quoted back: it may
    be the secret itself.
    """
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def deadline_after(seconds: float | None, limits: Limits, since: float | None = None) -> float:
    """Absolute time.monotonic() deadline `seconds` from `since` (a time.monotonic(); default now), capped
    at `limits.request_seconds`."""
    cap = limits.request_seconds
    budget = cap if seconds is None else max(0.0, min(seconds, cap))
    return (time.monotonic() if since is None else since) + budget


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


def value_as_dict(value: Value) -> schema.Value:
    """The REST shape of a value: grundy and remoteness left out where unknown (one dict literal per
    case, in the contract's key order: this is the bulk path)."""
    game, position, outcome, grundy, remoteness, source, kind = value
    if outcome is None or kind is not None:  # puzzles and kinds that add fields: key by key (as_dict)
        return cast(schema.Value, value.as_dict())
    if grundy is None:
        if remoteness is None:
            return {"game": game, "position": position, "outcome": outcome, "source": source}
        return {
            "game": game,
            "position": position,
            "outcome": outcome,
            "remoteness": remoteness,
            "source": source,
        }
    if remoteness is None:
        return {"game": game, "position": position, "outcome": outcome, "grundy": grundy, "source": source}
    return {
        "game": game,
        "position": position,
        "outcome": outcome,
        "grundy": grundy,
        "remoteness": remoteness,
        "source": source,
    }


def p_position_as_dict(value: Value) -> schema.PPosition:
    """The REST shape of IsPPosition: `p_position`, then the value's fields."""
    return {"p_position": value.outcome == "P", **value_as_dict(value)}


def error_as_dict(exc: BaseException) -> schema.ErrorBody:
    """The contract's error body (also a failed batch slot); never the text of an unexpected error.

    A refusal for which a precompute job is queued (`Pending`, `PendingSolve`) names that job in
    `error.job`.
    """
    code, message = public_error(exc)
    body = error_body(code, message)
    job = job_of(exc)
    if job is not None:
        body["error"]["job"] = job_as_dict(job)
    return body


def error_body(code: str, message: str) -> schema.ErrorBody:
    return {"error": {"code": code, "message": message}}


def fill_value(msg: pb.Value, value: Value) -> pb.Value:
    """Set a Value message's fields in place (bulk answers fill messages already in their list).

    A number the message's integer type cannot hold (some kinds' values reach 2^63) raises
    BeyondTheWire naming it, for the caller to answer that one value with (protobuf's ValueError would
    otherwise surface as INTERNAL)."""
    msg.game, msg.position, msg.source = value.game, value.position, value.source
    _fill_core(msg, value, value.kind)
    return msg


def _fill_core(msg: pb.Value | pb.Move, value: Value, record: KindRecord | None) -> None:
    """The fields a value and a move share (outcome, grundy, remoteness), then the kind's record; a
    number beyond the message's integers raises BeyondTheWire."""
    try:
        if value.outcome is not None:
            msg.outcome = value.outcome
        if value.grundy is not None:
            msg.grundy = value.grundy
        if value.remoteness is not None:
            msg.remoteness = value.remoteness
        if record is not None:
            fill_record(msg, record)
    except UndeclaredKind:
        raise
    except ValueError as exc:
        raise _beyond_the_wire(value, exc) from None


def _beyond_the_wire(value: Value, exc: ValueError) -> BeyondTheWire:
    return BeyondTheWire(
        f"the value of {quote_position(value.position)} in {value.game!r} holds a number beyond the 64-bit "
        f"integers of the gRPC message ({exc}); the REST answer (GET /v1/value) carries it"
    )


def fill_record(msg: pb.Value | pb.Move, record: KindRecord) -> None:
    """Sets the `kind` member of `msg` whose message has the record's class name, field by field; a
    record (or a field) the message does not declare raises UndeclaredKind, naming it."""
    found = _member(msg, record)
    sub: Any = getattr(msg, found.name)
    sub.SetInParent()  # present even when every field is at its default
    for name, spec in found.fields.items():
        value = getattr(record, name)
        if value is not None:
            put(sub, name, spec, value)


#: The `kind` member of each record class, by message (Value, Move): found, and checked, once.
_MEMBERS: dict[tuple[str, type[KindRecord]], Member] = {}


def _member(msg: pb.Value | pb.Move, record: KindRecord) -> Member:
    key = (msg.DESCRIPTOR.full_name, type(record))
    found = _MEMBERS.get(key)
    if found is None:
        kind = type(record).__name__
        found = member(msg.DESCRIPTOR, kind)
        names = record_fields(type(record))
        for name in names:
            if name not in found.fields:
                raise UndeclaredKind(f"field {name!r} of kind record {kind!r} is not in its message")
        for name in found.fields:
            if name not in names:
                raise UndeclaredKind(f"field {name!r} of message {kind!r} is not in its kind record")
        _MEMBERS[key] = found
    return found


def fill_error(msg: pb.Error, exc: BaseException) -> pb.Error:
    msg.code, msg.message = public_error(exc)
    job = job_of(exc)
    if job is not None:
        msg.job.CopyFrom(job_to_pb(job))
    return msg


def status_details(exc: BaseException) -> tuple[tuple[str, bytes], ...]:
    """Trailing metadata carrying a failed call's details as a google.rpc.Status (the rich error
    model gRPC clients read with grpcio-status): the queued job of a `Pending` (or `PendingSolve`) refusal;
    else none."""
    job = job_of(exc)
    if job is None:
        return ()
    code, message = public_error(exc)
    detail = any_pb2.Any()
    detail.Pack(job_to_pb(job))
    status = status_pb2.Status(code=grpc.StatusCode[code].value[0], message=message, details=[detail])
    return ((GRPC_DETAILS_KEY, status.SerializeToString()),)


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
        try:
            fill_value(slot.value, item)
            return
        except BeyondTheWire as exc:  # that slot's error; the other slots are answered
            slot.Clear()
            item = exc
    fill_error(slot.error, item)


def batch_to_pb(items: Sequence[Value | BaseException]) -> pb.BatchGetValuesResponse:
    """The batch answer, its messages filled in place (twice as fast as building each and copying)."""
    response = pb.BatchGetValuesResponse()
    add = response.values.add
    for item in items:
        _fill_slot(add(), item)
    return response


def move_to_pb(move: MoveValue) -> pb.Move:
    value = move.value
    msg = pb.Move(move=move.move, position=value.position, best=move.best)
    _fill_core(msg, value, move.kind)
    return msg


def move_as_dict(move: MoveValue) -> schema.Move:
    """The REST shape of a move: the text, the value of the position reached, then the kind's fields."""
    return cast(schema.Move, move.as_dict())


def best_move_to_pb(result: BestMoveResult) -> pb.BestMoveResponse:
    moves = [move_to_pb(m) for m in result.moves]
    msg = pb.BestMoveResponse(value=value_to_pb(result.value), moves=moves)
    if moves:
        msg.best_move.CopyFrom(moves[0])
    return msg


def best_move_as_dict(result: BestMoveResult) -> schema.BestMove:
    """The REST shape: the value's fields plus `moves` and `best_move` (absent at a terminal)."""
    moves: schema.Moves = {"moves": [move_as_dict(m) for m in result.moves]}
    if result.moves:
        moves["best_move"] = move_as_dict(result.moves[0])
    return {**value_as_dict(result.value), **moves}


def mainline_to_pb(line: Mainline) -> pb.MainlineResponse:
    """The main line's message: the position's value (with the line's source), its moves, its end."""
    value = value_to_pb(line.value._replace(source=line.source))
    return pb.MainlineResponse(value=value, moves=[move_to_pb(m) for m in line.moves], end=line.end)


def mainline_as_dict(line: Mainline) -> schema.Mainline:
    """The REST shape: the value's fields (with the line's source), then `moves` and `end`."""
    value = value_as_dict(line.value._replace(source=line.source))
    return {**value, "moves": [move_as_dict(m) for m in line.moves], "end": line.end}


def game_info_to_pb(info: GameInfo) -> pb.GameInfo:
    msg = pb.GameInfo(
        id=info.id,
        name=info.name,
        description=info.description,
        position_syntax=info.position_syntax,
        examples=list(info.examples),
    )
    if info.period is not None:
        msg.period.CopyFrom(period_to_pb(info.period))
    if info.view is not None:
        msg.view = info.view
    return msg


def game_info_as_dict(info: GameInfo) -> schema.GameInfo:
    out: schema.GameInfo = {
        "id": info.id,
        "name": info.name,
        "description": info.description,
        "position_syntax": info.position_syntax,
        "examples": list(info.examples),
    }
    if info.period is not None:
        out["period"] = period_as_dict(info.period)
    if info.view is not None:
        out["view"] = info.view
    return out


def game_list_as_dict(games: Sequence[GameInfo]) -> schema.GameList:
    return {"games": [game_info_as_dict(g) for g in games]}


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


def period_as_dict(period: Period) -> schema.Period:
    return cast(schema.Period, period.as_dict())


def sequence_as_dict(result: SequenceResult) -> schema.Sequence:
    return {
        "game": result.game,
        "family": result.family,
        "start": result.start,
        "stop": result.stop,
        "values": [int(v) for v in result.values],
        "period": None if result.period is None else period_as_dict(result.period),
        "source": cast(schema.Source, result.source),
    }


def _stats_json(stats: Mapping[str, object]) -> dict[str, JSON]:
    return {str(k): jsonable(v) for k, v in stats.items()}


def stats_as_dict(stats: Mapping[str, object]) -> schema.Stats:
    """The stats as JSON: the fields schema.Stats declares and any others the game reports."""
    return cast(schema.Stats, _stats_json(stats))


def stats_to_pb(stats: Mapping[str, object]) -> pb.GetStatsResponse:
    struct = struct_pb2.Struct()
    struct.update(_stats_json(stats))
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
        waits_for=list(job.waits_for),
    )
    if job.error is not None:
        msg.error = job.error
    if job.started_at is not None:
        msg.started_at = job.started_at
    if job.finished_at is not None:
        msg.finished_at = job.finished_at
    return msg


def submission_to_pb(done: SubmissionView) -> pb.Job:
    """SubmitJob's or RetryJob's answer: the job, with what the call queued (and what was stored)."""
    msg = job_to_pb(done.job)
    msg.queued.extend(job_to_pb(job) for job in done.queued)
    if done.stored is not None:
        game, family, upto = done.stored
        msg.stored.CopyFrom(pb.StoredObject(game=game, family=family, computed_upto=upto))
    msg.refused.extend(done.refused)
    return msg


def job_as_dict(job: JobView) -> schema.Job:
    return job.as_dict()


def submission_as_dict(done: SubmissionView) -> schema.Job:
    return done.as_dict()


def job_list_as_dict(jobs: Sequence[JobView], next_cursor: str | None = None) -> schema.JobList:
    return {"jobs": [job_as_dict(j) for j in jobs], "next_cursor": next_cursor}


def job_list_to_pb(jobs: Sequence[JobView], next_cursor: str | None = None) -> pb.ListJobsResponse:
    msg = pb.ListJobsResponse(jobs=[job_to_pb(j) for j in jobs])
    if next_cursor is not None:
        msg.next_cursor = next_cursor
    return msg


def values_as_dicts(items: Sequence[Value | BaseException]) -> list[schema.ValueOrError]:
    """Batch slots in the REST shape: a value, or `{"error": {"code", "message"}}`."""
    return [value_as_dict(item) if isinstance(item, Value) else error_as_dict(item) for item in items]


def batch_as_dict(items: Sequence[Value | BaseException]) -> schema.Batch:
    return {"values": values_as_dicts(items)}


def health_as_dict(health: Health | None) -> schema.Health:
    """`/healthz`: always "ok"; `database` false when the check itself failed (`health` None)."""
    if health is None:
        return {"status": "ok", "database": False}
    out: schema.Health = {"status": "ok", "database": health.database}
    if health.details:
        out["details"] = cast(dict[str, object], jsonable(health.details))
    return out


# -- graphs ------------------------------------------------------------------------------------------

#: Bytes of names one GetGraph message carries at most (clients take up to 64 MiB; 4 MiB keeps the
#: stream moving).
GRAPH_PART_BYTES = 4 << 20
#: Vertices or edges per piece of a GET /v1/graphs/{name} answer, which is streamed piece by piece.
GRAPH_JSON_BATCH = 1 << 16


def graph_summary_as_dict(summary: GraphSummary) -> schema.GraphSummary:
    return summary.as_dict()


def graph_summary_to_pb(summary: GraphSummary) -> pb.GraphSummary:
    return pb.GraphSummary(
        name=summary.name,
        vertex_count=summary.vertex_count,
        edge_count=summary.edge_count,
        terminal_count=summary.terminal_count,
        created_at=summary.created_at,
    )


def graph_as_dict(graph: UploadedGraph) -> schema.Graph:
    """The REST shape of a graph, whole (`graph_json` streams the same bytes piece by piece)."""
    return {
        "name": graph.name,
        "vertices": list(graph.vertices),
        "edges": graph.edge_names(),
        "terminals": cast(dict[str, schema.TerminalLabel], graph.terminals()),
    }


def graph_json(graph: UploadedGraph, batch: int = GRAPH_JSON_BATCH) -> Iterator[bytes]:
    """The JSON of `graph_as_dict`, in pieces of `batch` vertices or edges: a graph of millions of edges
    is never one string in memory."""

    def items(text: str, first: bool) -> bytes:  # a JSON list's items, without its brackets
        return (b"" if first else b",") + text[1:-1].encode()

    yield b'{"name":' + json.dumps(graph.name).encode() + b',"vertices":['
    for start in range(0, graph.vertex_count, batch):
        yield items(json.dumps(graph.vertices[start : start + batch]), start == 0)
    yield b'],"edges":['
    for start, stop in graph.edge_batches(batch):
        yield items(json.dumps(graph.edge_names(start, stop)), start == 0)
    yield b'],"terminals":' + json.dumps(graph.terminals()).encode() + b"}"


def graph_to_pb(graph: UploadedGraph, part_bytes: int = GRAPH_PART_BYTES) -> Iterator[pb.GraphPart]:
    """The GetGraph stream: the name and terminals (as the client sends them, `terminal_parts`), then
    the vertices, then the edges, each message holding at most about `part_bytes` of names (in batches
    sized by the longest name)."""
    yield from terminal_parts(graph.name, graph.terminals(), part_bytes)
    names = graph.vertices
    longest = max(len(v) for v in names) + 4
    step = max(1, part_bytes // longest)
    for start in range(0, graph.vertex_count, step):
        yield pb.GraphPart(vertices=names[start : start + step])
    for start, stop in graph.edge_batches(max(1, part_bytes // (2 * longest))):
        sources = [names[a] for a in graph.sources[start:stop].tolist()]
        targets = [names[b] for b in graph.targets[start:stop].tolist()]
        yield pb.GraphPart(sources=sources, targets=targets)
