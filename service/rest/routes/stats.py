"""What is known of a game as a whole: GET /v1/stats."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from nimbase import schema
from service import convert
from service.calls import GetStats
from service.rest.answer import answer
from service.rest.context import service_of
from service.rest.openapi import errors
from service.rest.params import Game

router = APIRouter()


@router.get(
    "/v1/stats", tags=["values"], response_model=schema.Stats, responses=errors(400, 404, 422, 503, 504)
)
def get_stats(request: Request, game: Game) -> Response:
    """What is known of the game as a whole (open: a game may report more fields)."""
    service = service_of(request)
    return answer(request, lambda: convert.stats_as_dict(service.get_stats(GetStats(game))))
