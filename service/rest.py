"""The REST transport: a FastAPI app over the same service layer as gRPC.

Routes only translate query strings and JSON bodies into service calls and results into the JSON
shapes of the public contract. Every failure, a malformed query string included, is answered with
`{"error": {"code", "message"}}` and the HTTP status of its code, never FastAPI's defaults.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Annotated

from fastapi import FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, StrictBool, StrictInt, StrictStr
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.errors import InvalidArgument
from service import convert
from service.core import NimbaseService
from service.limits import DEFAULT_LIMITS, Limits
from service.metrics import Metrics

log = logging.getLogger(__name__)

#: Status code name of HTTP errors raised by routing itself (unknown path, wrong method).
_ROUTING_CODES = {404: "NOT_FOUND", 405: "UNIMPLEMENTED"}


#: Route parameter types (module level: FastAPI resolves the string annotations in module globals).
Deadline = Annotated[str | None, Header(alias="x-deadline-ms")]
Authorization = Annotated[str | None, Header()]


class BatchRequest(BaseModel):
    """Body of POST /v1/values:batch."""

    model_config = ConfigDict(extra="forbid")
    game: StrictStr
    positions: list[StrictStr]


class JobRequest(BaseModel):
    """Body of POST /v1/jobs."""

    model_config = ConfigDict(extra="forbid")
    game: StrictStr
    upto: StrictInt
    fill: StrictBool = False


def error_response(code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=convert.http_status(code))


def _describe_validation_error(exc: RequestValidationError) -> str:
    """One line per invalid field, quoting where it was and what was sent."""
    parts: list[str] = []
    for error in exc.errors():
        loc = [str(p) for p in error.get("loc", ())]
        if error.get("type") == "json_invalid":
            detail = error.get("ctx", {}).get("error", error.get("msg", ""))
            parts.append(f"the request body is not valid JSON: {detail}")
            continue
        where = loc[0] if loc else "request"
        name = ".".join(loc[1:]) or "(whole body)"
        kind = {"query": "query parameter", "path": "path parameter", "header": "header"}.get(
            where, "body field"
        )
        text = f"{kind} {name!r}: {error.get('msg', 'invalid')}"
        if error.get("type") != "missing" and "input" in error:
            text += f" (got {error['input']!r})"
        parts.append(text)
    return "; ".join(parts) or "invalid request"


def _deadline(header: str | None, limits: Limits) -> float:
    """The request's deadline: `x-deadline-ms` when sent, capped at `limits.request_seconds`."""
    if header is None:
        return convert.deadline_after(None, limits)
    try:
        millis = int(header)
    except ValueError:
        raise InvalidArgument(
            f"header 'x-deadline-ms' must be a whole number of milliseconds; got {header!r}"
        ) from None
    if millis <= 0:
        raise InvalidArgument(f"header 'x-deadline-ms' must be positive; got {header!r}")
    return convert.deadline_after(millis / 1000.0, limits)


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


def create_app(
    service: NimbaseService, metrics: Metrics | None = None, limits: Limits = DEFAULT_LIMITS
) -> FastAPI:
    """The REST app answering from `service`; `metrics` is shared with the gRPC server when given,
    `limits` bounds each request's size and deadline (the settings' limits, as the service's)."""
    meter = metrics if metrics is not None else Metrics()
    app = FastAPI(
        title="nimbase",
        version="1",
        description="Values, best moves and P-positions of combinatorial games, and precompute jobs.",
    )

    def failure(request: Request, exc: Exception) -> Response:
        """The contract's error body for a failed call (never a traceback)."""
        code, message = convert.public_error(exc)
        request.state.code = code
        return error_response(code, message)

    def answer(request: Request, call: Callable[[], object]) -> Response:
        """Run one service call; errors become the contract's error body."""
        try:
            return JSONResponse(call())
        except Exception as exc:
            return failure(request, exc)

    async def answer_memory_first(request: Request, call: Callable[[], object]) -> Response:
        """Answer on the event loop when memory suffices (the hot path of lookups), else in a worker
        thread, where the call may read the database or compute."""
        try:
            body = service.in_memory(call)
        except Exception as exc:
            return failure(request, exc)
        if body is None:
            return await run_in_threadpool(answer, request, call)
        return JSONResponse(body)

    app.add_middleware(_Recorder, meter=meter)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> Response:
        request.state.code = "INVALID_ARGUMENT"
        return error_response("INVALID_ARGUMENT", _describe_validation_error(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        code = _ROUTING_CODES.get(exc.status_code, "UNKNOWN")
        request.state.code = code
        message = f"{request.method} {request.url.path}: {exc.detail}"
        return JSONResponse({"error": {"code": code, "message": message}}, status_code=exc.status_code)

    @app.get("/v1/games", tags=["games"])
    def list_games(request: Request) -> Response:
        """Every game family with its grammar, description and example positions."""
        return answer(
            request, lambda: {"games": [convert.game_info_as_dict(g) for g in service.list_games()]}
        )

    @app.get("/v1/value", tags=["values"])
    async def get_value(
        request: Request,
        game: Annotated[str, Query()],
        position: Annotated[str, Query()],
        x_deadline: Deadline = None,
    ) -> Response:
        """The value of one position."""
        return await answer_memory_first(
            request, lambda: service.get_value(game, position, _deadline(x_deadline, limits)).as_dict()
        )

    @app.get("/v1/best-move", tags=["values"])
    def best_move(
        request: Request,
        game: Annotated[str, Query()],
        position: Annotated[str, Query()],
        limit: Annotated[int | None, Query()] = None,
        x_deadline: Deadline = None,
    ) -> Response:
        """The value plus every legal move (or the first `limit`), best first."""
        return answer(
            request,
            lambda: convert.best_move_as_dict(
                service.best_move(game, position, limit, _deadline(x_deadline, limits))
            ),
        )

    @app.get("/v1/is-p-position", tags=["values"])
    async def is_p_position(
        request: Request,
        game: Annotated[str, Query()],
        position: Annotated[str, Query()],
        x_deadline: Deadline = None,
    ) -> Response:
        """Whether the player to move loses with best play, plus the value."""

        def call() -> dict[str, object]:
            value = service.is_p_position(game, position, _deadline(x_deadline, limits))
            return {"p_position": value.outcome == "P", **value.as_dict()}

        return await answer_memory_first(request, call)

    @app.post("/v1/values:batch", tags=["values"])
    def batch_get_values(request: Request, body: BatchRequest, x_deadline: Deadline = None) -> Response:
        """Up to 10,000 positions of one game, answered in request order; bad items get an error."""

        def call() -> dict[str, object]:
            convert.check_batch_size(len(body.positions), limits)
            items = service.batch_get_values(body.game, body.positions, _deadline(x_deadline, limits))
            return {"values": convert.values_as_dicts(items)}

        return answer(request, call)

    @app.get("/v1/sequence", tags=["values"])
    def get_sequence(
        request: Request,
        game: Annotated[str, Query()],
        stop: Annotated[int, Query()],
        start: Annotated[int, Query()] = 0,
        family: Annotated[str | None, Query()] = None,
        x_deadline: Deadline = None,
    ) -> Response:
        """Values of a one-parameter family for start <= n < stop, and its period where known."""
        return answer(
            request,
            lambda: convert.sequence_as_dict(
                service.get_sequence(game, family, start, stop, _deadline(x_deadline, limits))
            ),
        )

    @app.get("/v1/stats", tags=["values"])
    def get_stats(request: Request, game: Annotated[str, Query()]) -> Response:
        """What is known of the game as a whole."""
        return answer(request, lambda: convert.jsonable(service.get_stats(game)))

    @app.post("/v1/jobs", tags=["jobs"])
    def submit_job(request: Request, body: JobRequest, authorization: Authorization = None) -> Response:
        """Queue a precompute job (needs `authorization: Bearer <admin token>`)."""
        token = convert.bearer_token(authorization)
        return answer(request, lambda: service.submit_job(token, body.game, body.upto, body.fill).as_dict())

    @app.get("/v1/jobs/{job_id}", tags=["jobs"])
    def get_job(request: Request, job_id: int) -> Response:
        return answer(request, lambda: service.get_job(job_id).as_dict())

    @app.get("/v1/jobs", tags=["jobs"])
    def list_jobs(request: Request, limit: Annotated[int | None, Query()] = None) -> Response:
        def call() -> dict[str, object]:
            jobs = service.list_jobs() if limit is None else service.list_jobs(limit)
            return {"jobs": [j.as_dict() for j in jobs]}

        return answer(request, call)

    @app.delete("/v1/jobs/{job_id}", tags=["jobs"])
    def cancel_job(request: Request, job_id: int, authorization: Authorization = None) -> Response:
        """Cancel a job (needs `authorization: Bearer <admin token>`)."""
        token = convert.bearer_token(authorization)
        return answer(request, lambda: service.cancel_job(token, job_id).as_dict())

    @app.get("/healthz", tags=["operations"])
    def healthz() -> Response:
        """Always 200 while the process serves; `database` tells whether PostgreSQL answers."""
        try:
            health = service.health()
        except Exception:
            log.exception("health check failed")
            return JSONResponse({"status": "ok", "database": False})
        body: dict[str, object] = {"status": "ok", "database": health.database}
        if health.details:
            body["details"] = convert.jsonable(health.details)
        return JSONResponse(body)

    @app.get("/metrics", tags=["operations"])
    def prometheus_metrics() -> Response:
        """Prometheus text exposition of both transports' request metrics."""
        data, content_type = meter.exposition()
        return Response(content=data, media_type=content_type)

    return app
