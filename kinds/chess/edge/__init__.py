"""What the chess kind adds at the edge, the one part of it that may import service/: lichess's tablebase
API (`GET /standard`, `GET /standard/mainline`: `lila`, its REST routes `lila_routes`), and the opening of
the user's Syzygy files (`syzygy_files`), handed to the kind as its `SYZYGY` resource. The service loads
it by the family's `plugin` name; the kind itself (kinds.chess) never imports it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kinds.chess.edge import syzygy_files
from kinds.chess.kind import SYZYGY
from service.kind_plugins import KindPlugin

if TYPE_CHECKING:
    from fastapi import APIRouter


def _routes() -> APIRouter:
    """lila's routes, imported only by the REST app: a process without one (a live process, the command
    line) opens the files without loading the web framework."""
    from kinds.chess.edge import lila_routes

    return lila_routes.routes()


PLUGIN = KindPlugin(routes=_routes, openers={SYZYGY: syzygy_files.open_files})
