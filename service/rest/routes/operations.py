"""The server's own state, for operators: GET /healthz and GET /metrics."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from nimbase import schema
from service import convert
from service.rest.context import context_of, service_of

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
