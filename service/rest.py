"""The REST transport: a FastAPI app over the same service layer as gRPC.

Routes only translate query strings and JSON bodies into service calls and results into the JSON
shapes of the public contract. Every failure, a malformed query string included, is answered with
`{"error": {"code", "message"}}` and the HTTP status of its code, never FastAPI's defaults.

Each route declares its answer (`response_model`, the shapes of `nimbase.schema`) and the error
statuses it can give, so `/openapi.json` documents every field. Handlers return `JSONResponse`s built
by `service.convert` directly: the models serve the documentation, nothing is validated per answer.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path as FilePath
from typing import Annotated, Any, cast

import fastapi_offline
from fastapi import FastAPI, Header, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect
from starlette.responses import FileResponse
from starlette.routing import BaseRoute
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.deadline import Deadline as RequestDeadline
from engine.errors import InvalidArgument, NimbaseError
from engine.positions import parse_decimal
from nimbase import schema
from service import columnar, convert, download, http_cache
from service.client_peers import ClientMiddleware
from service.core import NimbaseService
from service.limits import DEFAULT_LIMITS, Limits, check_batch_size
from service.metrics import Metrics
from service.rate_limit import RateLimiter, RateLimitMiddleware
from service.request_caps import Cap, RequestCaps

log = logging.getLogger(__name__)

#: Status code name of HTTP errors raised by Starlette and FastAPI themselves: a body they cannot parse
#: (JSON nested too deeply, not UTF-8), an unknown path, a wrong method.
_ROUTING_CODES = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 405: "UNIMPLEMENTED"}


#: Route parameter types (module level: FastAPI resolves the string annotations in module globals).
Deadline = Annotated[
    str | None,
    Header(
        alias="x-deadline-ms",
        description="Milliseconds the request may take, a positive whole number, capped at the server's "
        "NIMBASE_LIMITS_REQUEST_SECONDS (also the default); past it 504 DEADLINE_EXCEEDED.",
        examples=["2000"],
    ),
]
Authorization = Annotated[
    str | None,
    Header(
        description="`Bearer <token>`, the server's NIMBASE_ADMIN_TOKEN: missing is 401 UNAUTHENTICATED, "
        "wrong (or no token configured) 403 PERMISSION_DENIED.",
        examples=["Bearer s3cret"],
    ),
]
Game = Annotated[
    str,
    Query(
        description="The game id, parameters included (GET /v1/games lists the families).",
        examples=["subtraction:1,3,4"],
    ),
]
Position = Annotated[
    str,
    Query(
        description="The position: heap sizes separated by spaces (`10 12`), or for wythoff pairs "
        "(`3,5 4,7`); `0` or empty is the empty position. Lights Out: rows of 0/1 joined by `/` "
        "(`000/011/011`), or one 0/1 per vertex of an uploaded graph.",
        examples=["10 12"],
    ),
]
JobId = Annotated[int, Path(description="The job's id, as SubmitJob returned it.", examples=[1])]
GraphName = Annotated[
    str,
    Path(description="The graph's name, as it was uploaded (POST /v1/graphs).", examples=["petersen"]),
]


class BatchRequest(BaseModel):
    """Body of POST /v1/values:batch."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"game": "subtraction:1,3,4", "positions": ["7", "10 12"]}]},
    )
    game: StrictStr = Field(description="The game id, parameters included.")
    positions: list[StrictStr] = Field(
        description="Positions of that game, answered in this order (at most NIMBASE_LIMITS_BATCH_POSITIONS)."
    )


class JobRequest(BaseModel):
    """Body of POST /v1/jobs."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"game": "subtraction:2,5,7", "upto": 1000000}]}
    )
    game: StrictStr = Field(description="The game id to precompute.")
    upto: StrictInt = Field(
        description="Compute values 0..upto-1; for wythoff, the side of the square table."
    )
    fill: StrictBool = Field(
        default=False, description="Fill the whole range even once the period is certified."
    )
    family: StrictStr | None = Field(
        default=None,
        max_length=64,
        description="The stored family, for games that store several (bicolor-nim: e.g. `f_3`).",
    )


class GraphRequest(BaseModel):
    """Body of POST /v1/graphs: the graph (read in a worker thread, `_graph_body`, not by FastAPI)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "name": "path4",
                    "vertices": ["a", "b", "c", "d"],
                    "edges": [["a", "b"], ["b", "c"], ["c", "d"]],
                    "terminals": {"d": "loss"},
                }
            ]
        },
    )
    name: StrictStr = Field(
        description="1 to 200 letters, digits, '.', '_', '~' or '-': the games `graph:NAME` and "
        "`lights-out:graph:NAME` play on it. A name is taken for good (409 ALREADY_EXISTS)."
    )
    vertices: list[StrictStr] = Field(
        description="Vertex names in order (1 to 1,000,000; unique, 1 to 1,000 printable characters each)."
    )
    edges: list[tuple[StrictStr, StrictStr]] = Field(
        default_factory=list,
        description="`[from, to]` vertex names (at most 10,000,000): moves for `graph:NAME`, read as "
        "undirected for `lights-out:graph:NAME`.",
    )
    terminals: dict[StrictStr, StrictStr] | None = Field(
        default=None,
        description='Vertex -> "win", "loss" or "draw": the result for the player to move at a vertex '
        'with no move ("loss" where not given).',
    )


def _graph_body(raw: bytes, content_type: str | None) -> GraphRequest:
    """The body of POST /v1/graphs, parsed and typed (pydantic's JSON parser, off the event loop: it may
    be tens of megabytes); INVALID_ARGUMENT saying what is wrong, as FastAPI's own bodies get."""
    if content_type is not None and not _is_json(content_type):
        raise InvalidArgument(
            f"the request body must be JSON sent as content-type application/json; got {content_type!r}"
        )
    if not raw:
        raise InvalidArgument("the request body is empty; it must be a JSON object")
    try:
        return GraphRequest.model_validate_json(raw)
    except ValidationError as exc:
        errors = [{**error, "loc": ("body", *error.get("loc", ()))} for error in exc.errors()]
        raise InvalidArgument(
            _describe_validation_error(RequestValidationError(errors), content_type)
        ) from None


def _is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


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

#: The one POST route that only reads: a browser may call it like the GET routes (CORS).
BATCH_PATH = "/v1/values:batch"


def error_response(code: str, message: str) -> JSONResponse:
    return JSONResponse(convert.error_body(code, message), status_code=convert.http_status(code))


def _without_validation_errors(spec: dict[str, Any]) -> dict[str, Any]:
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


def _describe_validation_error(exc: RequestValidationError, content_type: str | None = None) -> str:
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


def _deadline(header: str | None, limits: Limits) -> float:
    """The request's deadline: `x-deadline-ms` when sent, capped at `limits.request_seconds`."""
    if header is None:
        return convert.deadline_after(None, limits)
    millis = parse_decimal(
        header.strip(), what="header 'x-deadline-ms'", where=" (whole milliseconds)", error=InvalidArgument
    )
    if millis <= 0:
        raise InvalidArgument(f"header 'x-deadline-ms' must be positive; got {header!r}")
    return convert.deadline_after(millis / 1000.0, limits)


async def _disconnected(request: Request) -> None:
    """Returns once the client has closed the connection (the route has read its body by then, so
    what arrives next is the server's notice that the client is gone)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


class _Recorder:
    """Records every request in the metrics: a plain ASGI middleware, which costs far less per
    request than Starlette's BaseHTTPMiddleware."""

    def __init__(self, app: ASGIApp, meter: Metrics) -> None:
        self._app = app
        self._meter = meter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def record_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self._app(scope, receive, record_status)
        finally:
            route = scope.get("route")
            method = f"{scope['method']} {getattr(route, 'path', 'unmatched')}"
            code = scope.get("state", {}).get("code", "OK" if status < 400 else str(status))
            self._meter.observe("rest", method, code, time.perf_counter() - started)


#: The routes that change state and take the admin token: no CORS, so no other site's page may call them.
WRITE_PATHS = frozenset({"/v1/jobs", "/v1/graphs"})


class _ReadOnlyCors:
    """CORS for the read-only routes (GET, HEAD) and for POST /v1/values:batch, a lookup that changes
    nothing. The job routes and the graph upload get none: they change state and take the admin token,
    which no web page of another origin should be able to send."""

    def __init__(self, app: ASGIApp, origins: Sequence[str]) -> None:
        self._app = app
        common: dict[str, Any] = {
            "allow_origins": tuple(origins),
            "allow_headers": ("content-type", "x-deadline-ms", "if-none-match"),
            "expose_headers": ("etag", "retry-after"),
            "max_age": 86400,
        }
        self._reads = CORSMiddleware(app, allow_methods=("GET", "HEAD"), **common)
        self._batch = CORSMiddleware(app, allow_methods=("POST",), **common)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path in WRITE_PATHS or path.startswith("/v1/jobs/"):
            await self._app(scope, receive, send)
        elif path == BATCH_PATH:
            await self._batch(scope, receive, send)
        else:
            await self._reads(scope, receive, send)


#: The web page (`/`) and its assets, shipped in the package (no build step, nothing from a CDN).
WEB_DIR = FilePath(__file__).resolve().parent / "web"
#: Swagger UI and ReDoc, shipped by the fastapi-offline package, so /docs and /redoc work offline.
DOCS_ASSETS_DIR = FilePath(fastapi_offline.__file__).resolve().parent / "static"
WEB_PREFIX = "/static"
DOCS_ASSETS_PREFIX = "/static/docs"
#: The page's own files change with each release under the same names: browsers keep them but ask
#: again (a 304 from their ETag) before each use, so an upgraded server is seen at once.
WEB_CACHE_CONTROL = "no-cache"
#: The docs' vendored assets change only with the fastapi-offline version: a day without asking.
DOCS_ASSETS_CACHE_CONTROL = "public, max-age=86400"


class _Assets(StaticFiles):
    """Static files with a `Cache-Control` of their own, whose ETag also matches in its gzipped form
    (`http_cache.Compression` adds `-gzip` to the tag of what it compresses)."""

    def __init__(self, directory: FilePath, cache_control: str) -> None:
        super().__init__(directory=directory, follow_symlink=False)
        self._cache_control = cache_control
        self._route: BaseRoute | None = None

    def mount_on(self, app: FastAPI, prefix: str, name: str) -> None:
        app.mount(prefix, self, name=name)
        self._route = app.router.routes[-1]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._route is not None:  # the metrics' label (`GET /static`): a mount sets no route itself
            scope["route"] = self._route
        await super().__call__(scope, receive, send)

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = FileResponse(full_path, status_code=status_code, stat_result=stat_result)
        response.headers["cache-control"] = self._cache_control
        if status_code != 200:
            return response
        request = Headers(scope=scope)
        if_none_match = request.get("if-none-match")
        if if_none_match is not None:  # as http_cache.respond: the client's own form of the tag comes back
            held = http_cache._matching(if_none_match, response.headers["etag"].strip('"'))
            if held is None:
                return response
            not_modified = NotModifiedResponse(response.headers)
            not_modified.headers["etag"] = held
            return not_modified
        if self.is_not_modified(response.headers, request):  # If-Modified-Since
            return NotModifiedResponse(response.headers)
        return response


def _add_web_page(app: FastAPI) -> None:
    """The web page at `/` with its assets under /static/, and the interactive docs (/docs, /redoc)
    from locally shipped Swagger UI and ReDoc, so neither needs any other host."""
    page = _Assets(WEB_DIR, WEB_CACHE_CONTROL)
    # The docs' assets first: /static would otherwise take /static/docs/... and find nothing.
    _Assets(DOCS_ASSETS_DIR, DOCS_ASSETS_CACHE_CONTROL).mount_on(app, DOCS_ASSETS_PREFIX, "docs-assets")
    page.mount_on(app, WEB_PREFIX, "web")
    favicon = f"{DOCS_ASSETS_PREFIX}/favicon.png"

    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def web_page(request: Request) -> Response:
        """The page: pick a game, look up positions, play against the service, plot sequences."""
        return await page.get_response("index.html", request.scope)

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        """Swagger UI over /openapi.json, its script and style served by this server."""
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{DOCS_ASSETS_PREFIX}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS_PREFIX}/swagger-ui.css",
            swagger_favicon_url=favicon,
            oauth2_redirect_url=app.swagger_ui_oauth2_redirect_url,
            swagger_ui_parameters={"validatorUrl": None},  # no badge fetched from swagger.io
        )

    @app.get(app.swagger_ui_oauth2_redirect_url or "/docs/oauth2-redirect", include_in_schema=False)
    def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        """ReDoc over /openapi.json, without Google Fonts or a CDN."""
        return get_redoc_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{DOCS_ASSETS_PREFIX}/redoc.standalone.js",
            redoc_favicon_url=favicon,
            with_google_fonts=False,
        )


def create_app(
    service: NimbaseService,
    metrics: Metrics | None = None,
    limits: Limits = DEFAULT_LIMITS,
    *,
    cors_origins: Sequence[str] = ("*",),
    limiter: RateLimiter | None = None,
) -> FastAPI:
    """The REST app answering from `service`; `metrics` is shared with the gRPC server when given,
    `limits` bounds each request's size and deadline (the settings' limits, as the service's).

    `cors_origins` may call the read-only routes from a web page (none when empty); `limiter`, when
    given (shared with the gRPC server), refuses clients over their rate limit.
    """
    meter = metrics if metrics is not None else Metrics()
    app = FastAPI(
        title="nimbase",
        version="1",
        description="Values, best moves and P-positions of combinatorial games, and precompute jobs. "
        'Every error is `{"error": {"code", "message"}}` (code: the gRPC status code name).',
        docs_url=None,  # served by _add_web_page from local assets, not FastAPI's CDN links
        redoc_url=None,
    )
    _add_web_page(app)
    default_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _without_validation_errors(default_openapi())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    def failure(request: Request, exc: Exception) -> Response:
        """The contract's error body for a failed call (never a traceback)."""
        body = convert.error_as_dict(exc)
        request.state.code = code = body["error"]["code"]
        return JSONResponse(body, status_code=convert.http_status(code))

    #: Whether an answer never changes (http_cache); None: the route's answers are not cached.
    Cache = Callable[[Any], bool] | None

    def respond(request: Request, body: Any, cache: Cache) -> Response:
        """The JSON answer; with its ETag and cache headers (or 304) when `cache` says it never changes."""
        if cache is None:
            return JSONResponse(body)
        return http_cache.respond(body, request.headers.get("if-none-match"), cache(body))

    def answer(request: Request, call: Callable[[], object], cache: Cache = None) -> Response:
        """Run one service call; errors become the contract's error body. A call may build its own
        Response (a binary answer); anything else is the JSON answer."""
        try:
            body = call()
        except Exception as exc:
            return failure(request, exc)
        return body if isinstance(body, Response) else respond(request, body, cache)

    async def answer_memory_first(
        request: Request, header: str | None, call: Callable[[RequestDeadline], object], cache: Cache = None
    ) -> Response:
        """Answer on the event loop when memory suffices (the hot path of lookups), else in a worker
        thread, where the call may read the database or compute (`answer_in_thread`)."""
        try:
            stop = RequestDeadline.cancellable(_deadline(header, limits))
            body = service.in_memory(lambda: call(stop))
        except Exception as exc:
            return failure(request, exc)
        if body is None:
            return await answer_until_gone(request, stop, call, cache)
        return respond(request, body, cache)

    async def answer_in_thread(
        request: Request, header: str | None, call: Callable[[RequestDeadline], object], cache: Cache = None
    ) -> Response:
        """Run a call bounded by the request's deadline (`x-deadline-ms`) in a worker thread."""
        try:
            stop = RequestDeadline.cancellable(_deadline(header, limits))
        except InvalidArgument as exc:
            return failure(request, exc)
        return await answer_until_gone(request, stop, call, cache)

    async def answer_until_gone(
        request: Request,
        stop: RequestDeadline,
        call: Callable[[RequestDeadline], object],
        cache: Cache = None,
    ) -> Response:
        """`call(stop)` in a worker thread, with `stop` cancelled if the client disconnects first: the
        work then ends at its next deadline check instead of running on for nobody."""
        work = asyncio.ensure_future(run_in_threadpool(answer, request, lambda: call(stop), cache))
        gone = asyncio.ensure_future(_disconnected(request))
        try:
            await asyncio.wait((work, gone), return_when=asyncio.FIRST_COMPLETED)
        finally:  # the client went away, or this handler was cancelled (the server is stopping)
            if not work.done():
                stop.cancel()
                request.state.code = "CANCELLED"
            gone.cancel()
        return await work

    # Inside the recorder, so refusals are counted. A route that takes a body names its cap here.
    app.add_middleware(
        RequestCaps,
        url=Cap.of(limits, "url_bytes"),
        body=Cap.of(limits, "body_bytes"),
        routes={
            ("POST", "/v1/values:batch"): Cap.of(limits, "batch_body_bytes"),
            ("POST", "/v1/values:columnar"): Cap.of(limits, "columnar_body_bytes"),
            ("POST", "/v1/jobs"): Cap.of(limits, "job_body_bytes"),
            ("POST", "/v1/graphs"): Cap.of(limits, "graph_body_bytes"),
        },
    )
    # Outward from the app: gzip (also of the caps' refusals, which are too small to compress), the
    # rate limit before any body is read, CORS outside it so a browser can read a 429, then the recorder.
    app.add_middleware(http_cache.Compression)
    if limiter is not None:
        app.add_middleware(RateLimitMiddleware, limiter=limiter)
    if cors_origins:
        app.add_middleware(_ReadOnlyCors, origins=cors_origins)
    app.add_middleware(_Recorder, meter=meter)
    app.add_middleware(ClientMiddleware)  # outermost: every request's thread knows its client

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> Response:
        request.state.code = "INVALID_ARGUMENT"
        message = _describe_validation_error(exc, request.headers.get("content-type"))
        return error_response("INVALID_ARGUMENT", message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        code = _ROUTING_CODES.get(exc.status_code, "UNKNOWN")
        request.state.code = code
        message = f"{request.method} {request.url.path}: {_http_error_detail(exc)}"
        return JSONResponse(convert.error_body(code, message), status_code=exc.status_code)

    @app.get("/v1/games", tags=["games"], response_model=schema.GameList, responses=errors())
    def list_games(request: Request) -> Response:
        """Every game family with its grammar, description and example positions."""
        return answer(request, lambda: convert.game_list_as_dict(service.list_games()))

    @app.get("/v1/value", tags=["values"], response_model=schema.Value, responses=CACHED)
    async def get_value(
        request: Request,
        game: Game,
        position: Position,
        x_deadline: Deadline = None,
    ) -> Response:
        """The value of one position.

        An answer whose source is formula, table or period never changes: it carries an ETag and
        `Cache-Control: public, max-age=86400, immutable`, and `If-None-Match` with that tag gets 304.
        """
        return await answer_memory_first(
            request,
            x_deadline,
            lambda stop: convert.value_as_dict(service.get_value(game, position, stop)),
            http_cache.value_is_immutable,
        )

    @app.get("/v1/best-move", tags=["values"], response_model=schema.BestMove, responses=CACHED)
    async def best_move(
        request: Request,
        game: Game,
        position: Position,
        limit: Annotated[
            int | None,
            Query(
                description="List only the first `limit` moves (1 up to NIMBASE_LIMITS_LISTED_MOVES). "
                "Without it every move is ranked; a position with more than NIMBASE_LIMITS_RANKED_MOVES "
                "moves needs a limit (else 422 RESOURCE_EXHAUSTED).",
                examples=[3],
            ),
        ] = None,
        x_deadline: Deadline = None,
    ) -> Response:
        """The value plus every legal move (or the first `limit`), best first.

        Each move carries its text `move`, the position it leads to with its value, and structured
        fields: heap games `heap` and `to`, Wythoff `pair` and `to`. Cached as GET /v1/value.
        """
        return await answer_in_thread(
            request,
            x_deadline,
            lambda stop: convert.best_move_as_dict(service.best_move(game, position, limit, stop)),
            http_cache.value_is_immutable,
        )

    @app.get(
        "/v1/is-p-position",
        tags=["values"],
        response_model=schema.PPosition,
        responses={**errors(400, 404, 409, 422, 503, 504), 304: CACHED[304]},
    )
    async def is_p_position(
        request: Request,
        game: Game,
        position: Position,
        x_deadline: Deadline = None,
    ) -> Response:
        """Whether the player to move loses with best play, plus the value (cached as GET /v1/value)."""
        return await answer_memory_first(
            request,
            x_deadline,
            lambda stop: convert.p_position_as_dict(service.is_p_position(game, position, stop)),
            http_cache.value_is_immutable,
        )

    @app.post(BATCH_PATH, tags=["values"], response_model=schema.Batch, responses=VALUE_ERRORS)
    async def batch_get_values(request: Request, body: BatchRequest, x_deadline: Deadline = None) -> Response:
        """Up to 10,000 positions of one game, answered in request order; bad items get an error."""

        def call(stop: RequestDeadline) -> schema.Batch:
            check_batch_size(len(body.positions), limits)
            return convert.batch_as_dict(service.batch_get_values(body.game, body.positions, stop))

        return await answer_in_thread(request, x_deadline, call)

    @app.post(
        "/v1/values:columnar",
        tags=["values"],
        response_class=Response,
        responses={
            200: {
                "description": "The Grundy value of each heap, in request order, as little-endian uint32.",
                "content": {columnar.MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}}},
            },
            **errors(400, 404, 409, 422, 503, 504),
        },
        openapi_extra={
            "requestBody": {
                "required": True,
                "description": "Single-heap sizes as little-endian uint64, at most "
                "NIMBASE_LIMITS_COLUMNAR_VALUES of them.",
                "content": {columnar.MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}}},
            }
        },
    )
    async def columnar_values(request: Request, game: Game, x_deadline: Deadline = None) -> Response:
        """Normal-play Grundy values of many single heaps of one heap game, as packed arrays.

        All or nothing: a malformed body (400), a misère game or a game without heaps (409), or one
        heap beyond what can be answered now (422) fails the whole request, and no value is sent.
        """
        try:
            heaps = columnar.heaps_from_body(await request.body(), request.headers.get("content-type"))
        except ClientDisconnect:  # the body was over its cap (refused already), or the client left
            request.state.code = "CANCELLED"
            return error_response("INVALID_ARGUMENT", "the request body was not received whole")
        except InvalidArgument as exc:
            return failure(request, exc)

        def call(stop: RequestDeadline) -> Response:
            grundy = service.columnar_values(game, heaps, None, stop)
            return Response(columnar.grundy_body(grundy), media_type=columnar.MEDIA_TYPE)

        return await answer_in_thread(request, x_deadline, call)

    @app.get("/v1/sequence", tags=["values"], response_model=schema.Sequence, responses=CACHED)
    async def get_sequence(
        request: Request,
        game: Game,
        stop: Annotated[
            int, Query(description="One past the last parameter n (at most 2^63-1).", examples=[30])
        ],
        start: Annotated[int, Query(description="The first parameter n (at least 0).", examples=[0])] = 0,
        family: Annotated[
            str | None,
            Query(
                description="The one-parameter family; default single heaps of size n (wythoff: `row:0`).",
                examples=["row:3"],
            ),
        ] = None,
        x_deadline: Deadline = None,
    ) -> Response:
        """Values of a one-parameter family for start <= n < stop, and its period where known.

        Cached as GET /v1/value when its source is formula, or table or period with a certified period.
        """
        return await answer_in_thread(
            request,
            x_deadline,
            lambda deadline: convert.sequence_as_dict(
                service.get_sequence(game, family, start, stop, deadline)
            ),
            http_cache.sequence_is_immutable,
        )

    @app.get(
        "/v1/sequence:download",
        tags=["values"],
        response_class=StreamingResponse,
        responses={
            200: {
                "description": "A gzipped .npy of little-endian uint32 values: numpy.load(gzip.open(f)).",
                "content": {"application/gzip": {"schema": {"type": "string", "format": "binary"}}},
            },
            **errors(400, 404, 422, 503, 504),
        },
    )
    async def download_sequence(
        request: Request,
        game: Game,
        stop: Annotated[int, Query(description="One past the last parameter n.", examples=[1000000])],
        start: Annotated[int, Query(description="The first parameter n (at least 0).", examples=[0])] = 0,
        family: Annotated[str | None, Query(description="The family, as for GET /v1/sequence.")] = None,
    ) -> Response:
        """Values start..stop-1 of a family as one file, streamed block by block (whole tables).

        The range and its first block are checked before any byte is sent: a bad request gets its error.
        """

        def stream(_: RequestDeadline) -> Response:
            blocks = service.sequence_blocks(game, family, start, stop)
            name = download.file_name(game, family, start, stop)
            return StreamingResponse(
                download.gzipped_npy(stop - start, blocks),
                media_type="application/gzip",
                headers={"content-disposition": f'attachment; filename="{name}"'},
            )

        return await answer_in_thread(request, None, stream)

    @app.get(
        "/v1/stats", tags=["values"], response_model=schema.Stats, responses=errors(400, 404, 422, 503, 504)
    )
    def get_stats(request: Request, game: Game) -> Response:
        """What is known of the game as a whole (open: a game may report more fields)."""
        return answer(request, lambda: convert.stats_as_dict(service.get_stats(game)))

    @app.post(
        "/v1/jobs",
        tags=["jobs"],
        response_model=schema.Job,
        responses=errors(400, 401, 403, 404, 409, 503),
    )
    def submit_job(request: Request, body: JobRequest, authorization: Authorization = None) -> Response:
        """Queue a precompute job (needs `authorization: Bearer <admin token>`).

        409 FAILED_PRECONDITION: the game needs no precomputation (a closed form answers it).
        """
        token = convert.bearer_token(authorization)
        return answer(
            request,
            lambda: convert.job_as_dict(
                service.submit_job(token, body.game, body.upto, body.fill, body.family)
            ),
        )

    @app.get("/v1/jobs/{job_id}", tags=["jobs"], response_model=schema.Job, responses=errors(400, 404, 503))
    def get_job(request: Request, job_id: JobId) -> Response:
        """One precompute job: its status and progress."""
        return answer(request, lambda: convert.job_as_dict(service.get_job(job_id)))

    @app.get("/v1/jobs", tags=["jobs"], response_model=schema.JobList, responses=errors(400, 503))
    def list_jobs(
        request: Request,
        limit: Annotated[
            int | None,
            Query(description="At most this many jobs (default 100, at most 1000).", examples=[10]),
        ] = None,
    ) -> Response:
        """Precompute jobs, newest first."""

        def call() -> schema.JobList:
            jobs = service.list_jobs() if limit is None else service.list_jobs(limit)
            return convert.job_list_as_dict(jobs)

        return answer(request, call)

    @app.delete(
        "/v1/jobs/{job_id}",
        tags=["jobs"],
        response_model=schema.Job,
        responses=errors(400, 401, 403, 404, 503),
    )
    def cancel_job(request: Request, job_id: JobId, authorization: Authorization = None) -> Response:
        """Cancel a job (needs `authorization: Bearer <admin token>`)."""
        token = convert.bearer_token(authorization)
        return answer(request, lambda: convert.job_as_dict(service.cancel_job(token, job_id)))

    @app.post(
        "/v1/graphs",
        tags=["graphs"],
        response_model=schema.GraphSummary,
        responses=errors(400, 401, 403, 409, 503),
        openapi_extra={
            "requestBody": {
                "required": True,
                "description": "The graph, at most NIMBASE_LIMITS_GRAPH_BODY_BYTES (64 MiB by default) of "
                "JSON; larger ones go up over gRPC (UploadGraph, streamed).",
                "content": {"application/json": {"schema": GraphRequest.model_json_schema()}},
            }
        },
    )
    async def upload_graph(request: Request, authorization: Authorization = None) -> Response:
        """Store a graph under a new name (needs `authorization: Bearer <admin token>`): checked whole and
        stored all or nothing. 400 quoting what is wrong (an edge naming an unknown vertex, a duplicate
        vertex, a terminal label other than win/loss/draw), 409 ALREADY_EXISTS for a name taken."""
        token = convert.bearer_token(authorization)
        try:  # before the body is read: without the token, its up to 64 MiB are not even parsed
            service.authorize(token, "graph upload")
        except NimbaseError as exc:
            return failure(request, exc)
        content_type = request.headers.get("content-type")
        try:
            raw = await request.body()
        except ClientDisconnect:  # the body was over its cap (refused already), or the client left
            request.state.code = "CANCELLED"
            return error_response("INVALID_ARGUMENT", "the request body was not received whole")

        def call() -> schema.GraphSummary:
            body = _graph_body(raw, content_type)
            edges = cast(list[Sequence[object]], body.edges)
            summary = service.upload_graph(token, body.name, body.vertices, edges, body.terminals)
            return convert.graph_summary_as_dict(summary)

        return await run_in_threadpool(answer, request, call)

    @app.get(
        "/v1/graphs/{name}", tags=["graphs"], response_model=schema.Graph, responses=errors(400, 404, 503)
    )
    def get_graph(request: Request, name: GraphName) -> Response:
        """A stored graph: its name, vertices in order, edges in upload order and terminals (streamed
        piece by piece when large)."""
        try:
            graph = service.get_graph(name)
        except Exception as exc:
            return failure(request, exc)
        if graph.vertex_count + graph.edge_count <= convert.GRAPH_JSON_BATCH:
            return JSONResponse(convert.graph_as_dict(graph))
        return StreamingResponse(convert.graph_json(graph), media_type="application/json")

    @app.get("/healthz", tags=["operations"], response_model=schema.Health)
    def healthz() -> Response:
        """Always 200 while the process serves; `database` tells whether PostgreSQL answers."""
        try:
            health = service.health()
        except Exception:
            log.exception("health check failed")
            return JSONResponse(convert.health_as_dict(None))
        return JSONResponse(convert.health_as_dict(health))

    @app.get(
        "/metrics",
        tags=["operations"],
        response_class=PlainTextResponse,
        responses={200: {"description": "Prometheus text exposition format."}},
    )
    def prometheus_metrics() -> Response:
        """Prometheus text exposition of both transports' request metrics."""
        data, content_type = meter.exposition()
        return Response(content=data, media_type=content_type)

    return app
