"""The transports' side of service.clients: each sets CLIENT where it knows the peer, as the rate limit
names it (REST: the ASGI scope's client's address; gRPC: the call's context, whose `peer()` is read only
when the service asks)."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from service.call_hooks import BeforeEachCall, Context
from service.clients import CLIENT


class ClientMiddleware:
    """Sets CLIENT to the REST peer's address (as the rate limit names it) for the request."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        token = CLIENT.set(scope["client"][0] if scope.get("client") else "unknown")
        try:
            await self._app(scope, receive, send)
        finally:
            CLIENT.reset(token)


class ClientInterceptor(BeforeEachCall):
    """Sets CLIENT to the call's context for each nimbase.v1 call (in the call's own task, so the value
    lasts for the whole call)."""

    def before(self, context: Context, method: str) -> None:
        CLIENT.set(context)
