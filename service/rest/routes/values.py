"""The games and the values of positions: GET /v1/games, /v1/value, /v1/best-move, /v1/is-p-position
and POST /v1/values:batch."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from engine.deadline import Deadline
from nimbase import schema
from service import convert, http_cache
from service.limits import check_batch_size
from service.rest.answer import answer, answer_in_thread, answer_memory_first
from service.rest.context import context_of, service_of
from service.rest.deadline import DeadlineHeader
from service.rest.middleware import BATCH_PATH
from service.rest.models import BatchRequest
from service.rest.openapi import CACHED, VALUE_ERRORS, errors
from service.rest.params import Game, Position

router = APIRouter()

Limit = Annotated[
    int | None,
    Query(
        description="List only the first `limit` moves (1 up to NIMBASE_LIMITS_LISTED_MOVES). "
        "Without it every move is ranked; a position with more than NIMBASE_LIMITS_RANKED_MOVES "
        "moves needs a limit (else 422 RESOURCE_EXHAUSTED).",
        examples=[3],
    ),
]


@router.get("/v1/games", tags=["games"], response_model=schema.GameList, responses=errors())
def list_games(request: Request) -> Response:
    """Every game family with its grammar, description and example positions."""
    service = service_of(request)
    return answer(request, lambda: convert.game_list_as_dict(service.list_games()))


@router.get("/v1/value", tags=["values"], response_model=schema.Value, responses=CACHED)
async def get_value(
    request: Request,
    game: Game,
    position: Position,
    x_deadline: DeadlineHeader = None,
) -> Response:
    """The value of one position.

    An answer whose source is formula, table or period never changes: it carries an ETag and
    `Cache-Control: public, max-age=86400, immutable`, and `If-None-Match` with that tag gets 304.
    """
    service = service_of(request)
    return await answer_memory_first(
        request,
        x_deadline,
        lambda stop: convert.value_as_dict(service.get_value(game, position, stop)),
        http_cache.value_is_immutable,
    )


@router.get("/v1/best-move", tags=["values"], response_model=schema.BestMove, responses=CACHED)
async def best_move(
    request: Request,
    game: Game,
    position: Position,
    limit: Limit = None,
    x_deadline: DeadlineHeader = None,
) -> Response:
    """The value plus every legal move (or the first `limit`), best first.

    Each move carries its text `move`, the position it leads to with its value, and structured
    fields: heap games `heap` and `to`, games of pairs `pair` and `to`. Cached as GET /v1/value.
    """
    service = service_of(request)
    return await answer_in_thread(
        request,
        x_deadline,
        lambda stop: convert.best_move_as_dict(service.best_move(game, position, limit, stop)),
        http_cache.value_is_immutable,
    )


@router.get(
    "/v1/is-p-position",
    tags=["values"],
    response_model=schema.PPosition,
    responses={**errors(400, 404, 409, 422, 503, 504), 304: CACHED[304]},
)
async def is_p_position(
    request: Request,
    game: Game,
    position: Position,
    x_deadline: DeadlineHeader = None,
) -> Response:
    """Whether the player to move loses with best play, plus the value (cached as GET /v1/value)."""
    service = service_of(request)
    return await answer_memory_first(
        request,
        x_deadline,
        lambda stop: convert.p_position_as_dict(service.is_p_position(game, position, stop)),
        http_cache.value_is_immutable,
    )


@router.post(BATCH_PATH, tags=["values"], response_model=schema.Batch, responses=VALUE_ERRORS)
async def batch_get_values(
    request: Request, body: BatchRequest, x_deadline: DeadlineHeader = None
) -> Response:
    """Up to 10,000 positions of one game, answered in request order; bad items get an error."""
    context = context_of(request)

    def call(stop: Deadline) -> schema.Batch:
        check_batch_size(len(body.positions), context.limits)
        return convert.batch_as_dict(context.service.batch_get_values(body.game, body.positions, stop))

    return await answer_in_thread(request, x_deadline, call)
