"""The chess kind outside engine/ (engine.games.chess is the kind itself): lichess's tablebase API
(`GET /standard`, `GET /standard/mainline`: `lila`, its REST routes `lila_routes`), and the opening of
the user's Syzygy files (`syzygy_files`), handed to the kind as its `SYZYGY` resource."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.games.chess import SYZYGY
from kinds.chess import syzygy_files
from service.kind_plugins import KindPlugin

if TYPE_CHECKING:
    from fastapi import APIRouter


def _routes() -> APIRouter:
    """lila's routes, imported only by the REST app: a process without one (a live process, the command
    line) opens the files without loading the web framework."""
    from kinds.chess import lila_routes

    return lila_routes.routes()


PLUGIN = KindPlugin(routes=_routes, openers={SYZYGY: syzygy_files.open_files})
