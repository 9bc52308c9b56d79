"""What `/openapi.json` says each parameter may be: the bounds and patterns the server checks, taken from
where it checks them (the app's `Limits`, the engine's constants and patterns), so a generated client
knows them and the document cannot drift from the server.

Only the document changes: the checks stay where they are, so a refusal is still 400 with the
contract's body quoting the input (a bound declared to FastAPI would answer with its own message).
"""

from __future__ import annotations

import re
from typing import Any

from engine.graphs import (
    DOT_SEGMENTS,
    LABELS,
    MAX_EDGES,
    MAX_NAME_CHARS,
    MAX_VERTEX_CHARS,
    MAX_VERTICES,
    NAME_PATTERN,
)
from engine.positions import MAX_HEAP, MAX_POSITION_CHARS
from engine.registry import FAMILY_NAME, MAX_GAME_ID_CHARS
from service.jobs import CURSOR_PATTERN, MAX_LIST_JOBS
from service.limits import Limits
from service.move_choice import CHOICES

Schema = dict[str, Any]

#: A game id (engine.registry.parse_game_id): a family name, then its parameters after a colon.
GAME_ID: Schema = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_GAME_ID_CHARS,
    "pattern": rf"^(?:{FAMILY_NAME.pattern})(?::[\s\S]*)?$",
}
#: A graph's name (engine.graphs.check_graph_name): its characters, its length, and not a dot-segment.
GRAPH_NAME: Schema = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_NAME_CHARS,
    "pattern": rf"^(?!(?:{'|'.join(map(re.escape, sorted(DOT_SEGMENTS)))})$)(?:{NAME_PATTERN.pattern})$",
}
#: A vertex's name (engine.graphs): printable, without blanks at either end. The pattern says what JSON
#: Schema can (no control character, no blank at either end); the server also refuses the few other
#: characters Python does not count as printable (format characters, unassigned code points).
_NOT_CONTROL = r"[^\x00-\x1f\x7f-\x9f]"
_NEITHER_CONTROL_NOR_BLANK = r"[^\x00-\x1f\x7f-\x9f\s]"
VERTEX_NAME: Schema = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_VERTEX_CHARS,
    "pattern": f"^{_NEITHER_CONTROL_NOR_BLANK}(?:{_NOT_CONTROL}*{_NEITHER_CONTROL_NOR_BLANK})?$",
}
#: The route whose `limit` is bounded by `Limits.listed_moves` (the jobs list's by MAX_LIST_JOBS).
BEST_MOVE_PATH = "/v1/best-move"
#: A whole number the server reads as a signed 64-bit integer (heaps, ranges, job ids).
_INT64: Schema = {"type": "integer", "maximum": MAX_HEAP}


def parameter_bounds(path: str, location: str, name: str, limits: Limits) -> Schema | None:
    """The bounds of one parameter of one route, or None where the server checks none of its own (a
    position's grammar is its game's: GET /v1/games describes each)."""
    if location == "query" and name == "game":
        return GAME_ID
    if location == "path" and name == "name":
        return GRAPH_NAME
    if location == "query" and name == "position":
        return {"type": "string", "maxLength": MAX_POSITION_CHARS}
    if location == "query" and name in ("start", "stop"):
        return {**_INT64, "minimum": 0}
    if location == "path" and name == "job_id":
        return {**_INT64, "minimum": 1}
    if location == "header" and name == "x-deadline-ms":  # read as text (service.rest.deadline)
        return {**_INT64, "minimum": 1}
    if location == "query" and name == "max_plies":
        return {"type": "integer", "minimum": 1, "maximum": limits.mainline_plies_max}
    if location == "query" and name == "seed":
        return {**_INT64, "minimum": -MAX_HEAP - 1}
    if location == "query" and name == "choose":
        return {"type": "string", "enum": list(CHOICES)}
    if location == "query" and name == "limit":
        most = limits.listed_moves if path == BEST_MOVE_PATH else MAX_LIST_JOBS
        return {"type": "integer", "minimum": 1, "maximum": most}
    if location == "query" and name == "cursor":  # a page's next_cursor: a job id
        return {"type": "string", "pattern": f"^{CURSOR_PATTERN}$"}
    return None


def body_bounds(name: str, limits: Limits) -> dict[str, Schema]:
    """The bounds of the properties of a JSON body, by the name of its model."""
    if name == "BatchRequest":
        return {"game": GAME_ID, "positions": {"maxItems": limits.batch_positions}}
    if name == "JobRequest":  # beyond these, how far a job may go is its game's (GameKind.plan_job)
        return {"game": GAME_ID, "upto": {**_INT64, "minimum": 0}, "men": {**_INT64, "minimum": 1}}
    if name == "GraphRequest":
        return {
            "name": GRAPH_NAME,
            "vertices": {"minItems": 1, "maxItems": MAX_VERTICES, "uniqueItems": True, "items": VERTEX_NAME},
            "edges": {
                "maxItems": MAX_EDGES,
                "items": {
                    "type": "array",
                    "prefixItems": [VERTEX_NAME, VERTEX_NAME],
                    "minItems": 2,
                    "maxItems": 2,
                },
            },
            "terminals": {
                "anyOf": [
                    {
                        "type": "object",
                        "propertyNames": VERTEX_NAME,
                        "additionalProperties": {"type": "string", "enum": list(LABELS)},
                    },
                    {"type": "null"},
                ]
            },
        }
    return {}


def _without_null(schema: Schema) -> Schema:
    """A query, path or header parameter is text on the wire, never JSON null: FastAPI's `anyOf` with
    null (from an optional parameter's `X | None`) becomes X."""
    options = schema.get("anyOf")
    if not isinstance(options, list):
        return schema
    kept = [option for option in options if option.get("type") != "null"]
    if len(kept) != 1:
        return schema
    rest = {key: value for key, value in schema.items() if key != "anyOf"}
    return {**kept[0], **rest}


def declare_bounds(spec: Schema, limits: Limits) -> Schema:
    """Write every parameter's and body property's bounds into an OpenAPI document."""
    for path, item in spec.get("paths", {}).items():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                schema = _without_null(parameter.get("schema", {}))
                bounds = parameter_bounds(path, parameter["in"], parameter["name"], limits)
                parameter["schema"] = schema if bounds is None else {**schema, **bounds}
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
            inline = body.get("schema", {})
            if "properties" in inline and "$ref" not in inline:
                _bound_properties(inline, body_bounds(str(inline.get("title", "")), limits))
    for name, schema in spec.get("components", {}).get("schemas", {}).items():
        _bound_properties(schema, body_bounds(name, limits))
    return spec


def _bound_properties(schema: Schema, bounds: dict[str, Schema]) -> None:
    properties = schema.get("properties", {})
    for name, bound in bounds.items():
        if name in properties:
            properties[name] = {**properties[name], **bound}
