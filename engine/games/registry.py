"""Game ids to games: one table entry per family.

A game id is `FAMILY` or `FAMILY:PARAMS`; the family name picks a parser that receives PARAMS (or
None) and the whole id for its error messages. Adding a family means adding one `Family` entry to
`FAMILIES`; nothing else here changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from engine.errors import InvalidGameId, UnknownGame
from engine.games import nim, subtraction
from engine.games.base import GameInfo, HeapGame

#: What a game id parses to; widen (e.g. `HeapGame | WythoffGame`) when a non-heap family arrives.
Game = HeapGame
#: Longest game id accepted (a 64-element set of 7-digit numbers fits easily).
MAX_GAME_ID_CHARS = 1024

_FAMILY_NAME = re.compile(r"[a-z][a-z0-9-]*")


@dataclass(frozen=True, slots=True)
class Family:
    """One family of games: how its ids parse and how ListGames describes it."""

    parse: Callable[[str | None, str], Game]
    info: Callable[[], GameInfo]


#: Family name -> family. Keep in ListGames order.
FAMILIES: dict[str, Family] = {
    nim.FAMILY: Family(parse=nim.parse_nim_id, info=nim.family_info),
    subtraction.FAMILY: Family(parse=subtraction.parse_subtraction_id, info=subtraction.family_info),
}


def _quote(text: str) -> str:
    if len(text) <= 100:
        return repr(text)
    return repr(text[:100]) + f"... ({len(text)} characters)"


def parse_game_id(text: str) -> Game:
    """The game a game id names; InvalidGameId if malformed, UnknownGame if no family has it."""
    if len(text) > MAX_GAME_ID_CHARS:
        raise InvalidGameId(
            f"game id {_quote(text)} is {len(text)} characters long, more than the limit of "
            f"{MAX_GAME_ID_CHARS}"
        )
    name, sep, params = text.partition(":")
    if not _FAMILY_NAME.fullmatch(name):
        raise InvalidGameId(f"game id {text!r} does not start with a family name such as 'nim'")
    family = FAMILIES.get(name)
    if family is None:
        known = ", ".join(sorted(FAMILIES))
        raise UnknownGame(f"unknown game {text!r}: no family {name!r} (known: {known})")
    return family.parse(params if sep else None, text)


def list_games() -> list[GameInfo]:
    """One ListGames entry per family."""
    return [family.info() for family in FAMILIES.values()]
