"""Every failure as the contract's error body, `{"error": {"code", "message"}}`, with its code's status.

The service's errors come through `failure`; FastAPI's and Starlette's own (an invalid query string or
body, an unknown path, a wrong method) through the exception handlers `add_error_handlers` installs,
so no answer is ever FastAPI's default shape. `request.state.code` tells the metrics the code sent.
"""

from __future__ import annotations

import re

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Route

from service import convert

#: Status code name of HTTP errors raised by Starlette and FastAPI themselves: a body they cannot parse
#: (JSON nested too deeply, not UTF-8), an unknown path, a wrong method.
#: A path parameter in a route's path.
_PARAMETER = re.compile(r"{[^}]*}")
_ROUTING_CODES = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 405: "UNIMPLEMENTED"}


def error_response(code: str, message: str) -> JSONResponse:
    """The error body of `code` with the HTTP status API.md gives it."""
    return JSONResponse(convert.error_body(code, message), status_code=convert.http_status(code))


def failure(request: Request, exc: Exception) -> Response:
    """The contract's error body for a failed call (never a traceback)."""
    body = convert.error_as_dict(exc)
    request.state.code = code = body["error"]["code"]
    return JSONResponse(body, status_code=convert.http_status(code))


def body_not_received(request: Request) -> Response:
    """The answer when a route's body stops short: it was over its cap (refused already), or the client
    left."""
    request.state.code = "CANCELLED"
    return error_response("INVALID_ARGUMENT", "the request body was not received whole")


def describe_validation_error(exc: RequestValidationError, content_type: str | None = None) -> str:
    """One line per invalid field, quoting where it was and what was sent (a long input shortened)."""
    parts: list[str] = []
    for error in exc.errors():
        loc = [str(p) for p in error.get("loc", ())]
        if error.get("type") == "json_invalid":
            detail = error.get("ctx", {}).get("error", error.get("msg", ""))
            parts.append(f"the request body is not valid JSON: {detail}")
            continue
        if loc == ["body"] and error.get("type") == "missing":
            parts.append("the request body is empty; it must be a JSON object")
            continue
        if loc == ["body"] and isinstance(error.get("input"), bytes):  # FastAPI parses JSON types only
            sent = "none" if content_type is None else repr(content_type)
            parts.append(f"the request body must be JSON sent as content-type application/json; got {sent}")
            continue
        where = loc[0] if loc else "request"
        name = ".".join(loc[1:]) or "(whole body)"
        kind = {"query": "query parameter", "path": "path parameter", "header": "header"}.get(
            where, "body field"
        )
        text = f"{kind} {name!r}: {error.get('msg', 'invalid')}"
        if error.get("type") != "missing" and "input" in error:
            text += f" (got {_quote(error['input'])})"
        parts.append(text)
    return "; ".join(parts) or "invalid request"


def _quote(value: object, limit: int = 200) -> str:
    """`value` as messages quote it: a body's field may be megabytes long, its quote is not."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _http_error_detail(exc: StarletteHTTPException) -> str:
    """What went wrong; for a body FastAPI could not parse, why (its own text says only that it failed)."""
    cause = exc.__cause__
    if isinstance(cause, RecursionError):
        return "the request body nests too deeply to be parsed as JSON"
    if isinstance(cause, UnicodeDecodeError):
        return f"the request body is not UTF-8 JSON ({cause.reason} at byte {cause.start})"
    return str(exc.detail)


async def invalid_request(request: Request, exc: RequestValidationError) -> Response:
    """A query string, header or body FastAPI could not validate: 400 naming each bad field."""
    request.state.code = "INVALID_ARGUMENT"
    message = describe_validation_error(exc, request.headers.get("content-type"))
    return error_response("INVALID_ARGUMENT", message)


async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
    """Starlette's own refusals (an unknown path, a wrong method, an unparsable body) in the contract's
    shape, with their status."""
    code = _ROUTING_CODES.get(exc.status_code, "UNKNOWN")
    request.state.code = code
    message = f"{request.method} {request.url.path}: {_http_error_detail(exc)}"
    headers = {"allow": allowed_methods(request, exc)} if exc.status_code == 405 else None
    return JSONResponse(convert.error_body(code, message), status_code=exc.status_code, headers=headers)


def allowed_methods(request: Request, exc: StarletteHTTPException) -> str:
    """The `Allow` of a 405 (RFC 9110): every method some route of the app takes at this path. Starlette's
    own names only the first route matching the path (GET /v1/jobs, not POST); a mount's files say
    theirs in the exception. Where routes of several shapes match, the most specific ones (the most
    literal characters: `/v1/jobs/{job_id}:retry` before `/v1/jobs/{job_id}`) are the path's."""
    matching = [
        route
        for route in request.app.router.routes
        if isinstance(route, Route) and route.methods and route.matches(request.scope)[0] != Match.NONE
    ]
    most = max((_literal_length(route) for route in matching), default=0)
    methods: set[str] = set()
    for route in matching:
        if _literal_length(route) == most:
            methods |= route.methods or set()
    for header in (exc.headers or {}).items():
        if header[0].lower() == "allow":
            methods |= {method.strip() for method in header[1].split(",") if method.strip()}
    return ", ".join(sorted(methods))


def _literal_length(route: Route) -> int:
    """The characters of a route's path that are not parameters."""
    return len(_PARAMETER.sub("", route.path_format))


def add_error_handlers(app: FastAPI) -> None:
    """Answer FastAPI's and Starlette's own errors with the contract's error body."""
    app.exception_handler(RequestValidationError)(invalid_request)
    app.exception_handler(StarletteHTTPException)(http_error)
