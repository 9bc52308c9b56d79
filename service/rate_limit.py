"""Rate limiting per client address: one token bucket per address, shared by both transports, so a
client's REST and gRPC calls draw on the same budget.

REST checks it in an ASGI middleware, gRPC in a server interceptor; both refuse with the same words
(RESOURCE_EXHAUSTED; REST 429 with `Retry-After`, gRPC trailing metadata `retry-after`). The buckets
live in this process only: each service replica limits on its own, so behind a load balancer of N
replicas a client may get up to N times the rate. The address is the peer's: behind a proxy every
client shares the proxy's address (forwarded-for headers are not trusted), which is why the limit is
off by default.

Both servers run in one event loop and the buckets are touched only from it, so they need no lock.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable

import grpc
from starlette.types import ASGIApp, Receive, Scope, Send

from nimbase.settings import RateLimitSettings, variable_name
from service import convert
from service.call_hooks import BeforeEachCall, Context, Pending
from service.clients import peer_address
from service.metrics import Metrics

#: HTTP status of a client over its rate limit (RESOURCE_EXHAUSTED is otherwise 422).
STATUS = 429
#: Buckets kept before idle ones (full again, so no different from a new one) are dropped.
MAX_CLIENTS = 65_536
#: Only these are limited: the API, not health checks, metrics, reflection or the docs.
REST_PREFIX = "/v1/"


class RateLimiter:
    """Token buckets per client address: each holds up to `burst` tokens, refilled at `per_second`;
    a request takes one, or is refused with the time until one is back."""

    def __init__(self, settings: RateLimitSettings, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_second = settings.per_second
        self.burst = float(settings.bucket)
        self._clock = clock
        #: address -> (tokens, when they were counted)
        self._buckets: dict[str, tuple[float, float]] = {}

    @classmethod
    def of(cls, settings: RateLimitSettings) -> RateLimiter | None:
        """The limiter the settings ask for; None when rate limiting is off."""
        return cls(settings) if settings.enabled else None

    def wait(self, client: str) -> float:
        """0.0 when `client` may go on (one token taken), else the seconds until it may."""
        now = self._clock()
        tokens, then = self._buckets.get(client, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.per_second)
        if tokens >= 1.0:
            if client not in self._buckets and len(self._buckets) >= MAX_CLIENTS:
                self._forget_idle(now)
            self._buckets[client] = (tokens - 1.0, now)
            return 0.0
        self._buckets[client] = (tokens, now)
        return (1.0 - tokens) / self.per_second

    def _forget_idle(self, now: float) -> None:
        """Drop the buckets that are full again; if every client is busy, the oldest half."""
        full = self.burst / self.per_second
        self._buckets = {a: b for a, b in self._buckets.items() if now - b[1] < full}
        if len(self._buckets) >= MAX_CLIENTS:
            keep = list(self._buckets.items())[MAX_CLIENTS // 2 :]
            self._buckets = dict(keep)

    def refusal(self, client: str, wait: float) -> tuple[int, str]:
        """`Retry-After` (whole seconds, at least 1) and the message, the same for both transports."""
        seconds = max(1, math.ceil(wait))
        variable = variable_name(("rate_limit", "per_second"))
        message = (
            f"client {client} is over the rate limit of {self.per_second:g} requests per second "
            f"(burst {self.burst:g}; {variable}); retry after {seconds} s"
        )
        return seconds, message


class RateLimitMiddleware:
    """Refuses REST requests under /v1/ past the client's budget: 429 RESOURCE_EXHAUSTED with
    `Retry-After`, before the request's body is read."""

    def __init__(self, app: ASGIApp, limiter: RateLimiter) -> None:
        self._app = app
        self._limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(REST_PREFIX):
            await self._app(scope, receive, send)
            return
        client = scope["client"][0] if scope.get("client") else "unknown"
        wait = self._limiter.wait(client)
        if not wait:
            await self._app(scope, receive, send)
            return
        seconds, message = self._limiter.refusal(client, wait)
        body = json.dumps(convert.error_body("RESOURCE_EXHAUSTED", message), separators=(",", ":")).encode()
        scope.setdefault("state", {})["code"] = "RESOURCE_EXHAUSTED"
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"retry-after", str(seconds).encode()),
        ]
        await send({"type": "http.response.start", "status": STATUS, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class RateLimitInterceptor(BeforeEachCall):
    """Refuses nimbase.v1 calls past the client's budget with RESOURCE_EXHAUSTED (trailing metadata
    `retry-after`); a stream counts as one call. Health checks and reflection are not limited."""

    def __init__(self, limiter: RateLimiter, metrics: Metrics | None = None) -> None:
        self._limiter = limiter
        self._metrics = metrics
        super().__init__()

    def before(self, context: Context, method: str) -> Pending:
        client = peer_address(context.peer())
        wait = self._limiter.wait(client)
        if not wait:
            return None
        seconds, message = self._limiter.refusal(client, wait)
        if self._metrics is not None:
            self._metrics.observe("grpc", method, "RESOURCE_EXHAUSTED", 0.0)
        return context.abort(
            grpc.StatusCode.RESOURCE_EXHAUSTED, message, trailing_metadata=(("retry-after", str(seconds)),)
        )
