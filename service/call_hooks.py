"""gRPC interceptors that run one step before each nimbase.v1 call (the client's address, the rate limit):
the wrapping of a method handler, written once for the four kinds of RPC."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import grpc

#: Only the API's methods are wrapped, not health checks or reflection.
GRPC_PREFIX = "/nimbase.v1.Nimbase/"

if TYPE_CHECKING:  # grpc's classes are generic in its stubs only
    #: A method handler (grpc's stubs type its behaviours as synchronous; grpc.aio's are coroutines).
    Handler = grpc.RpcMethodHandler[Any, Any]
    Context = grpc.aio.ServicerContext[Any, Any]
    Interceptor = grpc.aio.ServerInterceptor[Any, Any]
else:
    Handler = grpc.RpcMethodHandler
    Context = grpc.aio.ServicerContext
    Interceptor = grpc.aio.ServerInterceptor


class BeforeEachCall(Interceptor):
    """Awaits `before(context, method)` ahead of each nimbase.v1 call, in the call's own task (so what it
    sets in a context variable lasts for the whole call); a stream runs it once. `method` is the RPC's
    name without GRPC_PREFIX. One wrapper per method, made on its first call."""

    def __init__(self) -> None:
        self._wrapped: dict[str, Handler] = {}

    async def before(self, context: Context, method: str) -> None:
        raise NotImplementedError

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
            wrapped = self._wrapped[method] = self._wrap(handler, method.removeprefix(GRPC_PREFIX))
        return wrapped

    def _wrap(self, handler: Handler, method: str) -> Handler:
        return wrap(handler, method, self.before)


def before_each_call(handlers: dict[str, Handler], hooks: Sequence[BeforeEachCall]) -> dict[str, Handler]:
    """`handlers` (by RPC name) each awaiting every hook's `before` first, in order: what the hooks do as
    interceptors, without grpc.aio's interceptor machinery, which costs every call its own coroutines and
    a lookup of the method through each interceptor (health checks and reflection stay unwrapped)."""
    if not hooks:
        return handlers
    if len(hooks) == 1:
        before = hooks[0].before
    else:

        async def before(context: Context, method: str) -> None:
            for hook in hooks:
                await hook.before(context, method)

    return {name: wrap(handler, name, before) for name, handler in handlers.items()}


def wrap(handler: Handler, method: str, before: Callable[[Context, str], Awaitable[None]]) -> Handler:
    """The same handler, awaiting `before(context, method)` first."""
    codec: dict[str, Any] = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }
    make: Any
    if handler.unary_unary or handler.stream_unary:
        inner: Any = handler.unary_unary or handler.stream_unary

        async def unary(request: Any, context: Context) -> Any:
            await before(context, method)
            return await inner(request, context)

        make = (
            grpc.unary_unary_rpc_method_handler
            if handler.unary_unary
            else grpc.stream_unary_rpc_method_handler
        )
        return cast("Handler", make(unary, **codec))
    streaming: Any = handler.unary_stream or handler.stream_stream

    async def stream(request: Any, context: Context) -> AsyncIterator[Any]:
        await before(context, method)
        async for answer in streaming(request, context):
            yield answer

    make = (
        grpc.unary_stream_rpc_method_handler
        if handler.unary_stream
        else grpc.stream_stream_rpc_method_handler
    )
    return cast("Handler", make(stream, **codec))
