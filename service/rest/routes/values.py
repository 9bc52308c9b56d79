"""The games and the values of positions: GET /v1/games, /v1/value, /v1/best-move, /v1/is-p-position
and POST /v1/values:batch."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from engine.deadline import Deadline
from nimbase import schema
from service import convert, http_cache, move_choice
from service.calls import BatchGetValues, BestMove, GetValue, IsPPosition, Mainline
from service.limits import check_batch_size
from service.rest.answer import answer, answer_in_thread, answer_memory_first
from service.rest.batch_json import batch_json
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

Choose = Annotated[
    str | None,
    Query(
        description="Which best move comes first: `best` (the default) the ranking's first, `random` one "
        "drawn uniformly from the moves marked `best` (400 for anything else).",
        examples=["random"],
    ),
]
Seed = Annotated[
    int | None,
    Query(
        description="With `choose=random`: the same seed at the same position draws the same move (a "
        "signed 64-bit integer). Without it each answer draws anew, and is not cached.",
        examples=[42],
    ),
]
MaxPlies = Annotated[
    int | None,
    Query(
        description="Most moves of the line (1 up to NIMBASE_LIMITS_MAINLINE_PLIES_MAX; default "
        "NIMBASE_LIMITS_MAINLINE_PLIES).",
        examples=[20],
    ),
]
Metric = Annotated[
    str | None,
    Query(
        description="How a kind that knows several ranks the moves (an endgame: `dtm`, `dtz`); a game "
        "that takes none answers 400.",
        examples=["dtm"],
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
        lambda stop: convert.value_as_dict(service.get_value(GetValue(game, position, deadline=stop))),
        http_cache.value_is_immutable,
    )


@router.get("/v1/best-move", tags=["values"], response_model=schema.BestMove, responses=CACHED)
async def best_move(
    request: Request,
    game: Game,
    position: Position,
    limit: Limit = None,
    choose: Choose = None,
    seed: Seed = None,
    x_deadline: DeadlineHeader = None,
) -> Response:
    """The value plus every legal move (or the first `limit`), best first.

    Each move carries its text `move`, the position it leads to with its value, structured fields
    (heap games `heap` and `to`, games of pairs `pair` and `to`), and `best: true` when it ties with the
    first. `choose=random` puts a best move drawn uniformly first (`seed` makes the draw reproducible).
    Cached as GET /v1/value, except a draw without a seed (`no-store`).
    """
    service = service_of(request)
    fresh = move_choice.draws_anew(choose, seed)
    return await answer_in_thread(
        request,
        x_deadline,
        lambda stop: convert.best_move_as_dict(
            service.best_move(BestMove(game, position, limit, choose, seed, deadline=stop))
        ),
        http_cache.never if fresh else http_cache.value_is_immutable,
    )


@router.get("/v1/mainline", tags=["values"], response_model=schema.Mainline, responses=CACHED)
async def mainline(
    request: Request,
    game: Game,
    position: Position,
    max_plies: MaxPlies = None,
    metric: Metric = None,
    x_deadline: DeadlineHeader = None,
) -> Response:
    """Best play from the position: its value, then each move of the line with the value of the position
    it leads to, and why the line ends (`end`: `terminal`, `solved`, `repetition`, `max_plies` or
    `unknown`). A one-player puzzle's line is the fewest presses that solve it.

    `source` is the costliest of the line's values: a line of formula, table or period values is cached
    as GET /v1/value.
    """
    service = service_of(request)
    return await answer_in_thread(
        request,
        x_deadline,
        lambda stop: convert.mainline_as_dict(
            service.mainline(Mainline(game, position, max_plies, metric, deadline=stop))
        ),
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
        lambda stop: convert.p_position_as_dict(
            service.is_p_position(IsPPosition(game, position, deadline=stop))
        ),
        http_cache.value_is_immutable,
    )


@router.post(BATCH_PATH, tags=["values"], response_model=schema.Batch, responses=VALUE_ERRORS)
async def batch_get_values(
    request: Request, body: BatchRequest, x_deadline: DeadlineHeader = None
) -> Response:
    """Up to 10,000 positions of one game, answered in request order; bad items get an error."""
    context = context_of(request)

    def call(stop: Deadline) -> Response:
        check_batch_size(len(body.positions), context.limits)
        items = context.service.batch_get_values(BatchGetValues(body.game, body.positions, deadline=stop))
        return Response(batch_json(items), media_type="application/json")  # schema.Batch, from pieces

    return await answer_in_thread(request, x_deadline, call)
