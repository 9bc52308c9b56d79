"""The heap games' registry entries (pyproject.toml's entry points, through the package's face): each
family's parser with its misère form, `:misere`, answered through the family's misère quotients
(kinds.heaps.misere) where it has one: octal games and Grundy's game, and subtraction games' sums."""

from __future__ import annotations

from typing import Any

from engine.families import Family
from engine.kind import GameKind
from kinds.heaps import grundy, octal, subtraction
from kinds.heaps.misere import SETTINGS as MISERE_SETTINGS
from kinds.heaps.misere import misere_of, split_suffix
from kinds.heaps.misere.subtraction import MisereSubtraction


def _parse_subtraction(params: str | None, text: str) -> GameKind[Any]:
    game = subtraction.parse_subtraction_id(params, text)
    return MisereSubtraction(game.moves) if game.misere else game


def _parse_octal(params: str | None, text: str) -> GameKind[Any]:
    params, misere_play = split_suffix(params)
    game = octal.parse_octal_id(params, text)
    return misere_of(game, game.t, text) if misere_play else game


def _parse_grundy(params: str | None, text: str) -> GameKind[Any]:
    params, misere_play = split_suffix(params)
    game = grundy.parse_grundy_id(params, text)
    return misere_of(game, None, text) if misere_play else game


SUBTRACTION = Family(
    parse=_parse_subtraction, info=subtraction.family_info, settings=MISERE_SETTINGS, order=20
)
#: ListGames lists the octal classics.
OCTAL = Family(
    parse=_parse_octal,
    info=octal.family_info,
    classics=octal.family_classics,
    settings=MISERE_SETTINGS,
    order=30,
)
GRUNDY = Family(
    parse=_parse_grundy, info=lambda: grundy.GrundyGame().info(), settings=MISERE_SETTINGS, order=40
)
