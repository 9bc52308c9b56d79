"""The toy kind's package outside engine/ (tests.service.toy_kind): one REST route of its own, declared
as any kind declares its routes (service.kind_plugins.KindPlugin)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from service.kind_plugins import KindPlugin
from service.rest.context import service_of

router = APIRouter()


@router.get("/toy/games", tags=["toy"])
def toy_games(request: Request) -> dict[str, int]:
    """How many games the service lists: a route that reads the service layer from its request."""
    return {"games": len(service_of(request).list_games())}


PLUGIN = KindPlugin(routes=lambda: router)
