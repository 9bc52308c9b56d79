"""The chess kind outside engine/ (engine.games.chess is the kind itself): lichess's tablebase API
(`GET /standard`, `GET /standard/mainline`: `lila`, its REST routes `lila_routes`), and the opening of
the user's Syzygy files (`syzygy_files`), handed to the kind as its `SYZYGY` resource."""

from __future__ import annotations

from engine.games.chess import SYZYGY
from kinds.chess import lila_routes, syzygy_files
from service.kind_plugins import KindPlugin

PLUGIN = KindPlugin(routes=lila_routes.routes, openers={SYZYGY: syzygy_files.open_files})
