"""The chess kind outside engine/ (engine.games.chess is the kind itself): lichess's tablebase API
(`GET /standard`, `GET /standard/mainline`: `lila`, its REST routes `lila_routes`)."""

from __future__ import annotations

from kinds.chess import lila_routes
from service.kind_plugins import KindPlugin

PLUGIN = KindPlugin(routes=lila_routes.routes)
