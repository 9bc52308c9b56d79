"""lichess's tablebase API: GET /standard and GET /standard/mainline, in lila-tablebase's shape
(kinds.chess.edge.lila): a client of lichess's tablebase works by changing its base URL. The chess kind's own
routes (its `KindPlugin`), mounted by the REST app as any kind's are. Not in nimbase's OpenAPI document:
lila-tablebase's shape is lichess's to document, not nimbase's contract.

GET /standard, a bot's hot path, is a lean route (service.rest.lean): it reads its query and header
itself, without FastAPI's parameter solving (a test holds the FastAPI route it was, and compares the two
answers byte for byte)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from engine.deadline import Deadline
from kinds.chess.edge import lila
from service.core import NimbaseService
from service.rest.answer import answer_in_thread, answer_until_gone
from service.rest.context import context_of, service_of
from service.rest.deadline import DeadlineHeader, arrival, deadline_at
from service.rest.errors import failure
from service.rest.lean import LeanRoute, query_value

router = APIRouter()


def routes() -> APIRouter:
    """The router the REST app mounts (its routes hold nothing of an app: one router serves every app)."""
    return router


Fen = Annotated[
    str | None,
    Query(
        description="The position as a FEN (spaces may be written `_`, as lichess does).",
        examples=["4k3/8/8/8/8/8/8/4K2R_w_-_-_0_1"],
    ),
]
Dtc = Annotated[str | None, Query(description="lila's DTC mode (never, auxiliary, always): no DTC here.")]


def _lila(
    call: Callable[[NimbaseService, str | None, Deadline], dict[str, Any] | bytes],
    request: Request,
    fen: str | None,
) -> Callable[[Deadline], Response]:
    """The route's call: lila's JSON (as written by `call`, or encoded from its dictionary), or its error
    as plain text with its status."""
    service = service_of(request)

    def run(stop: Deadline) -> Response:
        try:
            answer = call(service, fen, stop)
            if isinstance(answer, bytes):
                return Response(answer, media_type="application/json")
            return JSONResponse(answer)
        except lila.LilaError as error:
            request.state.code = error.code
            return PlainTextResponse(error.message, status_code=error.status)

    return run


async def _memory_first(
    request: Request, header: str | None, run: Callable[[Deadline], Response]
) -> Response:
    """`run` on the event loop when the tables it reads are in memory (a kept table: the hot path, no
    thread hop), else in a worker thread as `answer_in_thread` runs it."""
    try:
        stop = Deadline.cancellable(deadline_at(header, context_of(request).limits, arrival(request)))
        found = service_of(request).in_memory(lambda: run(stop))
    except Exception as exc:
        return failure(request, exc)
    if found is not None:
        return found
    return await answer_until_gone(request, stop, run)


async def standard(request: Request) -> Response:
    """lila-tablebase's answer for a standard chess position: `category`, `dtz`, `precise_dtz`, `dtm`,
    the game-end flags, and every legal move with the same fields, ranked as lila ranks them (`fen`, and
    lila's `dtc`, which changes nothing here: no DTC)."""
    fen = query_value(request, "fen")
    return await _memory_first(
        request, request.headers.get("x-deadline-ms"), _lila(lila.standard_json, request, fen)
    )


router.routes.append(LeanRoute("/standard", standard))


@router.get("/standard/mainline", include_in_schema=False)
async def standard_mainline(
    request: Request, fen: Fen = None, dtc: Dtc = None, x_deadline: DeadlineHeader = None
) -> Response:
    """lila-tablebase's main line: the moves of best play under the fifty-move rule (DTZ), each with the
    DTZ it leads to, and the winner at its end."""
    return await answer_in_thread(request, x_deadline, _lila(lila.mainline, request, fen))
