"""The transports' side of service.clients: each sets CLIENT to the peer's address where it knows the
peer, as the rate limit names it (REST: the ASGI scope's client; gRPC: `peer_address(context.peer())`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

import grpc
from starlette.types import ASGIApp, Receive, Scope, Send

from service.clients import CLIENT
from service.rate_limit import GRPC_PREFIX, peer_address


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


if TYPE_CHECKING:  # grpc's classes are generic in its stubs only
    Handler = grpc.RpcMethodHandler[Any, Any]
    Context = grpc.aio.ServicerContext[Any, Any]
    Interceptor = grpc.aio.ServerInterceptor[Any, Any]
else:
    Interceptor = grpc.aio.ServerInterceptor


class ClientInterceptor(Interceptor):
    """Sets CLIENT to the gRPC peer's address for each nimbase.v1 call (in the call's own task, so the
    value lasts for the whole call)."""

    def __init__(self) -> None:
        self._wrapped: dict[str, Handler] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler:
        handler = await continuation(handler_call_details)
        method: str = handler_call_details.method
        if handler is None or not method.startswith(GRPC_PREFIX):
            return handler
        wrapped = self._wrapped.get(method)
        if wrapped is None:
            wrapped = self._wrapped[method] = _wrap(handler)
        return wrapped


def _wrap(handler: Handler) -> Handler:
    """The same handler, setting CLIENT first (one wrapper per kind of RPC)."""
    codec: dict[str, Any] = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }
    make: Any
    if handler.unary_unary or handler.stream_unary:
        inner: Any = handler.unary_unary or handler.stream_unary

        async def unary(request: Any, context: Context) -> Any:
            CLIENT.set(peer_address(context.peer()))
            return await inner(request, context)

        make = (
            grpc.unary_unary_rpc_method_handler
            if handler.unary_unary
            else grpc.stream_unary_rpc_method_handler
        )
        return cast("Handler", make(unary, **codec))
    streaming: Any = handler.unary_stream or handler.stream_stream

    async def stream(request: Any, context: Context) -> AsyncIterator[Any]:
        CLIENT.set(peer_address(context.peer()))
        async for answer in streaming(request, context):
            yield answer

    make = (
        grpc.unary_stream_rpc_method_handler
        if handler.unary_stream
        else grpc.stream_stream_rpc_method_handler
    )
    return cast("Handler", make(stream, **codec))
