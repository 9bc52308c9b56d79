"""The layers around the routes: the metrics recorder, CORS for the read-only routes, the rate limit,
gzip and the request size caps, stacked in the order `add_middleware` gives them."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service import http_cache
from service.client_peers import ClientMiddleware
from service.limits import Limits
from service.metrics import Metrics
from service.rate_limit import RateLimiter, RateLimitMiddleware
from service.request_caps import Cap, RequestCaps
from service.rest.deadline import ARRIVED

#: The one POST route that only reads: a browser may call it like the GET routes (CORS).
BATCH_PATH = "/v1/values:batch"
#: The routes that change state and take the admin token: no CORS, so no other site's page may call them.
WRITE_PATHS = frozenset({"/v1/jobs", "/v1/graphs"})


class Recorder:
    """Records every request in the metrics: a plain ASGI middleware, which costs far less per
    request than Starlette's BaseHTTPMiddleware. It stamps the request's arrival, from which its deadline
    counts (service.rest.deadline), and tells the client the server's own time in a `Server-Timing`
    header (`app;dur=` milliseconds from arrival to the answer's start), so a client can tell the
    server's time from the network's and its own."""

    def __init__(self, app: ASGIApp, meter: Metrics) -> None:
        self._app = app
        self._meter = meter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        started = time.perf_counter()
        scope.setdefault("state", {})[ARRIVED] = time.monotonic()
        status = 500

        async def record_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                took = f"app;dur={(time.perf_counter() - started) * 1e3:.1f}".encode()
                message = {**message, "headers": [*message.get("headers", ()), (b"server-timing", took)]}
            await send(message)

        try:
            await self._app(scope, receive, record_status)
        finally:
            route = scope.get("route")
            method = f"{scope['method']} {getattr(route, 'path', 'unmatched')}"
            code = scope.get("state", {}).get("code", "OK" if status < 400 else str(status))
            self._meter.observe("rest", method, code, time.perf_counter() - started)


class ReadOnlyCors:
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


def add_middleware(
    app: FastAPI, limits: Limits, meter: Metrics, cors_origins: Sequence[str], limiter: RateLimiter | None
) -> None:
    """Wrap `app` in its middleware, innermost first."""
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
        app.add_middleware(ReadOnlyCors, origins=cors_origins)
    app.add_middleware(Recorder, meter=meter)
    app.add_middleware(ClientMiddleware)  # outermost: every request's thread knows its client
