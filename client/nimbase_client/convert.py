"""gRPC messages to the typed records: the dicts the REST routes answer, same keys in the same order.

So a program can switch transports without touching its data handling.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from google.protobuf import json_format
from google.protobuf.message import Message

from nimbase_client import records
from nimbase_client.kinds import KIND_ONEOF, kind_fields
from nimbase_client.v1 import nimbase_pb2 as pb


def value_dict(msg: pb.Value) -> records.Value:
    """A Value message as the REST JSON has it (same keys, same order): the core fields, then the kind's."""
    out: dict[str, object] = {"game": msg.game, "position": msg.position}
    _add_core(out, msg)
    out["source"] = msg.source
    if msg.WhichOneof(KIND_ONEOF) is not None:  # most values have no kind record: skip the lookup
        out.update(kind_fields(msg))
    return cast(records.Value, out)


def _add_core(out: dict[str, object], msg: pb.Value | pb.Move) -> None:
    """The value's fields a value and a move share, each where it is given: outcome, grundy, remoteness
    (puzzles have no outcome)."""
    if msg.outcome:
        out["outcome"] = msg.outcome
    if msg.HasField("grundy"):
        out["grundy"] = msg.grundy
    if msg.HasField("remoteness"):
        out["remoteness"] = msg.remoteness


def _record(record: Any, msg: Message, **given: object) -> dict[str, object]:
    """The keys `record` (a TypedDict of nimbase_client.records) declares, in its order (the REST
    JSON's): each `given` value, else the message's field of that name (a list for a repeated one, None
    for one it leaves unset). Message fields are given: their conversion is their own record's."""
    fields = msg.DESCRIPTOR.fields_by_name
    out: dict[str, object] = {}
    for key in record.__annotations__:
        if key in given:
            out[key] = given[key]
            continue
        field = fields[key]
        if field.is_repeated:
            out[key] = list(getattr(msg, key))
        elif field.has_presence and not msg.HasField(key):
            out[key] = None
        else:
            out[key] = getattr(msg, key)
    return out


def value_or_error_dict(msg: pb.ValueOrError) -> records.ValueOrError:
    if msg.HasField("error"):
        body: records.ErrorBody = {"error": {"code": msg.error.code, "message": msg.error.message}}
        if msg.error.HasField("job"):
            body["error"]["job"] = job_dict(msg.error.job)
        return body
    return value_dict(msg.value)


def batch_dict(msg: pb.BatchGetValuesResponse) -> records.Batch:
    return {"values": [value_or_error_dict(v) for v in msg.values]}


def p_position_dict(msg: pb.IsPPositionResponse) -> records.PPosition:
    return {"p_position": msg.p_position, **value_dict(msg.value)}


def move_dict(msg: pb.Move) -> records.Move:
    """A Move message as the REST JSON has it: the text, the value of the position reached, then the
    fields the kind adds (`kind_fields`)."""
    out: dict[str, object] = {"move": msg.move, "position": msg.position}
    _add_core(out, msg)
    if msg.best:
        out["best"] = True
    out.update(kind_fields(msg))
    return cast(records.Move, out)


def best_move_dict(msg: pb.BestMoveResponse) -> records.BestMove:
    moves: records.Moves = {"moves": [move_dict(m) for m in msg.moves]}
    if msg.HasField("best_move"):
        moves["best_move"] = move_dict(msg.best_move)
    return {**value_dict(msg.value), **moves}


def mainline_dict(msg: pb.MainlineResponse) -> records.Mainline:
    end = cast(records.LineEnd, msg.end)
    return {**value_dict(msg.value), "moves": [move_dict(m) for m in msg.moves], "end": end}


def game_info_dict(msg: pb.GameInfo) -> records.GameInfo:
    out: records.GameInfo = {
        "id": msg.id,
        "name": msg.name,
        "description": msg.description,
        "position_syntax": msg.position_syntax,
        "examples": list(msg.examples),
    }
    if msg.HasField("period"):
        out["period"] = period_dict(msg.period)
    if msg.HasField("view"):
        out["view"] = msg.view
    return out


def game_list_dict(msg: pb.ListGamesResponse) -> records.GameList:
    return {"games": [game_info_dict(g) for g in msg.games]}


def period_dict(msg: pb.Period) -> records.Period:
    return cast(records.Period, _record(records.Period, msg))


def sequence_dict(msg: pb.GetSequenceResponse) -> records.Sequence:
    period = period_dict(msg.period) if msg.HasField("period") else None
    return cast(records.Sequence, _record(records.Sequence, msg, period=period))


def stats_dict(msg: pb.GetStatsResponse) -> records.Stats:
    """The stats Struct as the REST JSON has it (whole numbers back as ints)."""
    stats = whole_numbers(json_format.MessageToDict(msg.stats))
    return cast(records.Stats, stats if isinstance(stats, dict) else {})


#: The fields of a Job only SubmitJob's and RetryJob's answers carry.
_SUBMISSION_FIELDS = ("queued", "stored", "refused")


def job_dict(msg: pb.Job) -> records.Job:
    progress: records.Progress = {"done": msg.progress.done, "total": msg.progress.total}
    out = _record(records.Job, msg, progress=progress, **dict.fromkeys(_SUBMISSION_FIELDS))
    for key in _SUBMISSION_FIELDS:
        del out[key]
    return cast(records.Job, out)


def submission_dict(msg: pb.Job) -> records.Job:
    """SubmitJob's or RetryJob's answer, as the REST JSON has it: the job with what the call queued."""
    out = job_dict(msg)
    out["queued"] = [job_dict(j) for j in msg.queued]
    if msg.HasField("stored"):
        stored = msg.stored
        out["stored"] = {"game": stored.game, "family": stored.family, "computed_upto": stored.computed_upto}
    if msg.refused:
        out["refused"] = list(msg.refused)
    return out


def job_list_dict(msg: pb.ListJobsResponse) -> records.JobList:
    following = msg.next_cursor if msg.HasField("next_cursor") else None
    return {"jobs": [job_dict(j) for j in msg.jobs], "next_cursor": following}


def whole_numbers(obj: object) -> object:
    """Struct numbers travel as doubles; give integral ones back as ints, as the REST JSON has them."""
    if isinstance(obj, float) and obj.is_integer():
        return int(obj)
    if isinstance(obj, dict):
        return {k: whole_numbers(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [whole_numbers(v) for v in obj]
    return obj


def graph_summary_dict(msg: pb.GraphSummary) -> records.GraphSummary:
    return cast(records.GraphSummary, _record(records.GraphSummary, msg))


def graph_dict(parts: Iterable[pb.GraphPart]) -> records.Graph:
    """The GetGraph stream gathered into one graph, as the REST JSON has it."""
    graph: records.Graph = {"name": "", "vertices": [], "edges": [], "terminals": {}}
    terminals: dict[str, records.TerminalLabel] = {}
    for part in parts:
        if part.name:
            graph["name"] = part.name
        terminals.update(cast(dict[str, records.TerminalLabel], dict(part.terminals)))
        graph["vertices"].extend(part.vertices)
        graph["edges"].extend([a, b] for a, b in zip(part.sources, part.targets, strict=True))
    graph["terminals"] = terminals
    return graph
