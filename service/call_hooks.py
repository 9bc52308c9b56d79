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


#: What a hook's `before` returns: None, or what to await before the call goes on (a refusal's abort).
Pending = Awaitable[None] | None


class BeforeEachCall(Interceptor):
    """Runs `before(context, method)` ahead of each nimbase.v1 call, in the call's own task (so what it
    sets in a context variable lasts for the whole call), and awaits what it returns, if anything; a
    stream runs it once. `method` is the RPC's name without GRPC_PREFIX. One wrapper per method, made on
    its first call. `before` is a plain function: a hook with nothing to wait for costs the hot path no
    coroutine."""

    def __init__(self) -> None:
        self._wrapped: dict[str, Handler] = {}

    def before(self, context: Context, method: str) -> Pending:
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

        def before(context: Context, method: str) -> Pending:
            for index, hook in enumerate(hooks):
                pending = hook.before(context, method)
                if pending is not None:
                    return _then(pending, hooks[index + 1 :], context, method)
            return None

    return {name: wrap(handler, name, before) for name, handler in handlers.items()}


async def _then(
    pending: Awaitable[None], hooks: Sequence[BeforeEachCall], context: Context, method: str
) -> None:
    """Await what one hook returned, then run the hooks after it."""
    await pending
    for hook in hooks:
        more = hook.before(context, method)
        if more is not None:
            await more


def wrap(handler: Handler, method: str, before: Callable[[Context, str], Pending]) -> Handler:
    """The same handler, running `before(context, method)` first (and awaiting what it returns)."""
    codec: dict[str, Any] = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }
    make: Any
    if handler.unary_unary or handler.stream_unary:
        inner: Any = handler.unary_unary or handler.stream_unary

        async def unary(request: Any, context: Context) -> Any:
            pending = before(context, method)
            if pending is not None:
                await pending
            return await inner(request, context)

        make = (
            grpc.unary_unary_rpc_method_handler
            if handler.unary_unary
            else grpc.stream_unary_rpc_method_handler
        )
        return cast("Handler", make(unary, **codec))
    streaming: Any = handler.unary_stream or handler.stream_stream

    async def stream(request: Any, context: Context) -> AsyncIterator[Any]:
        pending = before(context, method)
        if pending is not None:
            await pending
        async for answer in streaming(request, context):
            yield answer

    make = (
        grpc.unary_stream_rpc_method_handler
        if handler.unary_stream
        else grpc.stream_stream_rpc_method_handler
    )
    return cast("Handler", make(stream, **codec))
