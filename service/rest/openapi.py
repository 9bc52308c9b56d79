"""What `/openapi.json` says about failures: each route's error statuses, and no FastAPI default; and
the document itself, with the bounds the server checks (`bounds`).

Every error status a route declares has the contract's body (schema.ErrorBody) and a description of
what it means; FastAPI's own 422 answer (HTTPValidationError) is dropped from the document, since this
app answers invalid requests with 400 and 422 means RESOURCE_EXHAUSTED.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from nimbase import schema
from service.limits import Limits
from service.rest.bounds import declare_bounds

#: What each error status of the REST API means (API.md, "Errors"); its body is always schema.ErrorBody.
ERROR_STATUSES: dict[int, str] = {
    400: "INVALID_ARGUMENT: a malformed game id, position, parameter, header or body, quoted in the message.",
    401: "UNAUTHENTICATED: no admin token was sent.",
    403: "PERMISSION_DENIED: a wrong admin token, or the server has none configured.",
    404: "NOT_FOUND: an unknown game, family, job or graph.",
    409: "FAILED_PRECONDITION: a query that does not apply to this game (IsPPosition of a puzzle); "
    "ALREADY_EXISTS: a graph name already taken (POST /v1/graphs).",
    413: "RESOURCE_EXHAUSTED: a request body over the route's size cap (the message names it).",
    422: "RESOURCE_EXHAUSTED: beyond what may be computed live within the server's limits.",
    429: "RESOURCE_EXHAUSTED: the client is over its rate limit (when one is configured); "
    "`Retry-After` says when to try again.",
    500: "INTERNAL: an unexpected error; the server log has the details.",
    503: "UNAVAILABLE: the database is needed and unreachable.",
    504: "DEADLINE_EXCEEDED: live computation ran out of the request's deadline.",
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The `responses` of a route that can fail with `statuses` (and, like every route, with 413, 429 and
    500)."""
    return {
        status: {"model": schema.ErrorBody, "description": ERROR_STATUSES[status]}
        for status in sorted({*statuses, 413, 429, 500})
    }


#: The error statuses of the routes answering about positions.
VALUE_ERRORS = errors(400, 404, 422, 503, 504)
#: The routes whose answers may never change (formula, table, certified period) and so carry an ETag.
CACHED = {
    **VALUE_ERRORS,
    304: {"description": "Not Modified: the If-None-Match ETag names this answer, which never changes."},
}


def binary(description: str, media_type: str) -> dict[str, Any]:
    """The documented content of a binary body or answer."""
    return {
        "description": description,
        "content": {media_type: {"schema": {"type": "string", "format": "binary"}}},
    }


def without_validation_errors(spec: dict[str, Any]) -> dict[str, Any]:
    """Drop FastAPI's default 422 answer (HTTPValidationError) from an OpenAPI document.

    This app answers invalid requests with 400 and the contract's error body; 422 means
    RESOURCE_EXHAUSTED, declared (with schema.ErrorBody) where a route can give it.
    """
    defaults = ("HTTPValidationError", "ValidationError")
    for item in spec.get("paths", {}).values():
        for operation in item.values():
            responses = operation.get("responses", {}) if isinstance(operation, dict) else {}
            content = responses.get("422", {}).get("content", {})
            ref = content.get("application/json", {}).get("schema", {}).get("$ref", "")
            if ref.rsplit("/", 1)[-1] in defaults:
                del responses["422"]
    schemas = spec.get("components", {}).get("schemas", {})
    for name in defaults:
        schemas.pop(name, None)
    return spec


def document(app: FastAPI, limits: Limits) -> None:
    """Serve `app`'s OpenAPI document built once, without FastAPI's default 422 answer, and with the
    bounds the server checks (`bounds.declare_bounds`, `limits` those the app is built with)."""
    default_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = declare_bounds(without_validation_errors(default_openapi()), limits)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
