"""The server's own state, for operators: GET /healthz, GET /readyz and GET /metrics."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from nimbase import schema
from service import convert
from service.rest.context import context_of, service_of
from service.rest.errors import error_response
from service.rest.openapi import errors

log = logging.getLogger(__name__)

router = APIRouter()


@router.get("/healthz", tags=["operations"], response_model=schema.Health)
async def healthz(request: Request) -> Response:
    """Always 200 while the process serves; `database` tells whether PostgreSQL answered its last check.
    On the event loop, not a worker thread: the service answers from memory (service.health), and the
    threads may all be lent to computations."""
    try:
        health = service_of(request).health()
    except Exception:
        log.exception("health check failed")
        return JSONResponse(convert.health_as_dict(None))
    return JSONResponse(convert.health_as_dict(health))


#: /readyz's 503, documented apart: the error says what the server waits for.
NOT_READY = {
    "model": schema.ErrorBody,
    "description": "UNAVAILABLE: not ready yet; `error.reasons` lists what the server waits for (its "
    "kernels compiling, its live processes starting, `nimbase run`'s worker not running).",
}


@router.get(
    "/readyz", tags=["operations"], response_model=schema.Health, responses={**errors(), 503: NOT_READY}
)
async def readyz(request: Request) -> Response:
    """200 (the /healthz body) once the server answers within its targets: every kernel its requests may
    run compiled or loaded (in this process and in each live process), every live process started, and
    under `nimbase run` its worker running. UNAVAILABLE (503) until then, the error's `reasons` saying
    what it waits for. The server answers from its first second what it can, but a request meanwhile
    may wait for a compile or a live process: a load balancer, a test or a benchmark waits for this."""
    try:
        health = service_of(request).health()
    except Exception:
        log.exception("health check failed")
        return error_response("UNAVAILABLE", "the server's health could not be read")
    if not health.ready:
        reasons = health.reasons or ["not ready"]
        body = convert.error_body("UNAVAILABLE", "not ready: " + "; ".join(reasons))
        body["error"]["reasons"] = reasons
        return JSONResponse(body, status_code=convert.http_status("UNAVAILABLE"))
    return JSONResponse(convert.health_as_dict(health))


@router.get(
    "/metrics",
    tags=["operations"],
    response_class=PlainTextResponse,
    responses={200: {"description": "Prometheus text exposition format."}},
)
def prometheus_metrics(request: Request) -> Response:
    """Prometheus text exposition of both transports' request metrics."""
    data, content_type = context_of(request).meter.exposition()
    return Response(content=data, media_type=content_type)
