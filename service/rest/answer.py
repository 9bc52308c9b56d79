"""How a route runs its service call: errors become the contract's body, answers JSON (with cache headers
where they never change), and calls bounded by the request's deadline run in a worker thread, cancelled
when the client goes away.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeAlias

from fastapi import Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from engine.deadline import Deadline
from engine.errors import DeadlineExceeded, InvalidArgument
from service import http_cache
from service.clients import ARRIVED, in_request_context
from service.pooled import Moved, computing_only, reads_only
from service.rest import kept
from service.rest.context import context_of
from service.rest.deadline import arrival, deadline_at
from service.rest.errors import failure
from service.rest.json_body import PiecewiseJSONResponse

#: Whether an answer never changes (http_cache); None: the route's answers are not cached.
Cache: TypeAlias = Callable[[Any], bool] | None

#: How long past the request's deadline the event loop waits for a call in the compute lane to answer
#: before it answers DEADLINE_EXCEEDED itself. The lane's thread answers at the deadline, naming the step
#: that ran out of time (its live process stops service.isolation.ANSWER_MARGIN_SECONDS before); but on
#: a loaded machine the thread, the GIL and the answer's way back to the loop each wait for a core, and
#: the contract wants the answer sent at the deadline.
LATE_SECONDS = 0.03


def respond(request: Request, body: Any, cache: Cache) -> Response:
    """The JSON answer; with its ETag and cache headers (or 304) when `cache` says it never changes."""
    if cache is None:
        return PiecewiseJSONResponse(body)
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
    request: Request, header: str | None, call: Callable[[Deadline | None], object], cache: Cache = None
) -> Response:
    """Answer on the event loop when memory suffices (the hot path of lookups), else in a worker
    thread, where the call may read the database or compute (`answer_in_thread`).

    The memory answer is given whatever the deadline (`x-deadline-ms`, checked for its syntax first):
    nothing done from memory waits or computes, so it is answered in less time than any deadline allows,
    and checking the clock along the way would only turn a 1 ms deadline into a refusal."""
    context = context_of(request)
    try:
        at = deadline_at(header, context.limits, arrival(request))
        body = context.service.in_memory(lambda: call(None))
    except Exception as exc:
        return failure(request, exc)
    if body is None:
        return await answer_until_gone(request, Deadline.cancellable(at), call, cache)
    response = respond(request, body, cache)
    kept.keep(context.service.answers, request, response, body)  # asked again, answered before routing
    return response


async def answer_in_thread(
    request: Request, header: str | None, call: Callable[[Deadline], object], cache: Cache = None
) -> Response:
    """Run a call bounded by the request's deadline (`x-deadline-ms`) in a worker thread."""
    try:
        stop = Deadline.cancellable(deadline_at(header, context_of(request).limits, arrival(request)))
    except InvalidArgument as exc:
        return failure(request, exc)
    return await answer_until_gone(request, stop, call, cache)


async def answer_until_gone(
    request: Request, stop: Deadline, call: Callable[[Deadline], object], cache: Cache = None
) -> Response:
    """`call(stop)` in a worker thread, with `stop` cancelled if the client disconnects first: the
    work then ends at its next deadline check instead of running on for nobody. The request's arrival
    goes with it (ARRIVED): what it waits from then on counts as the server's time."""
    arrived = arrival(request)
    ARRIVED.set(time.monotonic() if arrived is None else arrived)
    work = asyncio.ensure_future(_in_lanes(request, stop, lambda: call(stop), cache))
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait((work, gone), return_when=asyncio.FIRST_COMPLETED)
    finally:  # the client went away, or this handler was cancelled (the server is stopping)
        if not work.done():
            stop.cancel()
            request.state.code = "CANCELLED"
        gone.cancel()
    return await work


async def _in_lanes(request: Request, stop: Deadline, call: Callable[[], object], cache: Cache) -> Response:
    """`answer` in starlette's threads (the reads lane), or in the compute lane when the service says the
    call goes to its live processes (service.pooled): requests waiting for a process never hold the
    threads that cheap reads need. A call in the compute lane is answered by its deadline and
    `LATE_SECONDS` at the latest, by the loop if its thread has not answered by then."""
    computing = context_of(request).computing
    if computing is None:
        return await run_in_threadpool(answer, request, call, cache)
    read = await run_in_threadpool(reads_only, lambda: answer(request, call, cache))
    if not isinstance(read, Moved):
        return read
    loop = asyncio.get_running_loop()
    work = loop.run_in_executor(
        computing, in_request_context(lambda: computing_only(lambda: answer(request, call, cache)))
    )
    try:
        return await asyncio.wait_for(
            asyncio.shield(work), max(0.0, stop.at + LATE_SECONDS - time.monotonic())
        )
    except TimeoutError:  # the thread ends by itself at its next look at the deadline; nobody reads it
        late = DeadlineExceeded(f"the computation for {request.url.path} ran past the request's deadline")
        return failure(request, late)


async def open_reads_lane() -> None:
    """Run one call in the reads lane (starlette's threads) as the server starts, long before ready:
    anyio sets its thread pool up at an event loop's first call (its asyncio backend imported, the
    pool's state and limiter made, a worker thread started: 14 ms on an idle machine, 30-60 ms on a
    loaded one), which the first request going to a thread (a stored table's first block) paid. The
    worker thread it starts stays for the next call."""
    await run_in_threadpool(lambda: None)


async def _disconnected(request: Request) -> None:
    """Returns once the client has closed the connection (the route has read its body by then, so
    what arrives next is the server's notice that the client is gone)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
