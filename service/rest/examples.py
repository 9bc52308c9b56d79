"""What the document says of games, taken from the registry of games (`engine.registry`): the
examples of a game id and a position, and each family's position syntax. The REST layer names no game
itself, so a family added there is described here without a change."""

from __future__ import annotations

from typing import Any

from engine.registry import list_games
from engine.values import GameInfo

#: ListGames' entries, in its order.
GAMES: tuple[GameInfo, ...] = tuple(list_games())
#: The example game: the first listed one whose id carries parameters, so the example shows them.
EXAMPLE_GAME: GameInfo = next((info for info in GAMES if ":" in info.id), GAMES[0])
#: A position of the example game, as its own examples give it.
EXAMPLE_POSITION: str = EXAMPLE_GAME.examples[0]


def _family(info: GameInfo) -> str:
    return info.id.partition(":")[0]


def position_syntaxes() -> str:
    """Each family's position syntax, as ListGames gives it (the first listed game of each family)."""
    first: dict[str, str] = {}
    for info in GAMES:
        first.setdefault(_family(info), info.position_syntax)
    return "; ".join(f"`{family}`: {syntax}" for family, syntax in first.items())


#: The ids of the listed games that play on an uploaded graph (`NAME` in their id).
GRAPH_GAMES: tuple[str, ...] = tuple(info.id for info in GAMES if "NAME" in info.id.split(":"))

#: Request bodies, from the example game.
BATCH_EXAMPLE: dict[str, Any] = {"game": EXAMPLE_GAME.id, "positions": list(EXAMPLE_GAME.examples[:2])}
JOB_EXAMPLE: dict[str, Any] = {"game": EXAMPLE_GAME.id, "upto": 1000000}
