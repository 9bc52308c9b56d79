"""Games found through the entry-point group `nimbase.games`, each a `nimbase_rules.Family`, made
families of the registry (engine.families.Family) played by the rules solver: `SOURCE`, the rules
solver's entry point in the group, which the registry reads once at start-up, in every process (server,
live processes, workers).

A plugin that fails to load, is not a Family, clashes with a family name already taken or cannot make
the games it lists is reported by name (logged, and kept in `Found.broken`) and left out; it never stops
the others, nor the service. The kinds' own entry points (a registry `Family`, a `FamilySource`) are
not plugins of this form and are passed over.

The games shipped with nimbase are registered the same way (pyproject.toml). An installation whose
metadata predates one of them (an editable install from before it was added) still finds it through
`SHIPPED`, the same table as pyproject.toml's; a test keeps the two equal.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable
from importlib.metadata import EntryPoint, entry_points

from engine.errors import InvalidGameId
from engine.families import GROUP, FamilySource, Found
from engine.families import Family as KindFamily
from engine.families import Game as KindGame
from engine.values import GameInfo
from kinds.rules.kind import SETTINGS, RulesGame
from nimbase_rules import Family

log = logging.getLogger(__name__)

#: The games shipped with nimbase: entry-point name -> object (as in pyproject.toml).
SHIPPED: dict[str, str] = {
    "tictactoe": "nimbase_rules.games.tictactoe:FAMILY",
    "connect4": "nimbase_rules.games.connect4:FAMILY",
    "dots-and-boxes": "nimbase_rules.games.dots_and_boxes:FAMILY",
    "rules-nim": "nimbase_rules.games.nim:FAMILY",
    "rules-kayles": "nimbase_rules.games.kayles:FAMILY",
}


def installed() -> list[EntryPoint]:
    """The group's entry points, with the shipped games the installed metadata lacks: the shipped games
    first in SHIPPED's order, then the others by name (ListGames' order does not depend on the install)."""
    found = {ep.name: ep for ep in entry_points(group=GROUP)}
    shipped = [found.pop(name, EntryPoint(name, value, GROUP)) for name, value in SHIPPED.items()]
    return shipped + [found[name] for name in sorted(found)]


def rules_family(family: Family) -> KindFamily:
    """The registry entry of a family of games defined by their rules (a plugin's)."""

    def parse(params: str | None, text: str) -> KindGame:
        try:
            rules = family.make(params)
        except ValueError as error:
            raise InvalidGameId(f"game id {text!r}: {error}") from None
        return RulesGame(rules)

    def infos() -> list[GameInfo]:
        return [RulesGame(family.make(params)).info() for params in family.examples]

    return KindFamily(parse=parse, info=lambda: infos()[0], classics=infos, settings=SETTINGS)


def load(points: Iterable[EntryPoint], taken: Iterable[str] = ()) -> Found:
    """Each entry point's family, checked: it loads, is a Family named as its entry point, takes no name
    in `taken`, and makes the games it lists; made a registry entry (`rules_family`)."""
    loaded = Found()
    taken = set(taken)
    for point in points:
        try:
            family = point.load()
            if isinstance(family, KindFamily | FamilySource):
                continue  # a kind's own entry point, not a plugin's rules
            if not isinstance(family, Family):
                raise TypeError(f"{point.value} is a {type(family).__name__}, not a nimbase_rules.Family")
            if family.name != point.name:
                raise ValueError(f"its family is named {family.name!r}, not {point.name!r}")
            if family.name in taken or family.name in loaded.families:
                raise ValueError(f"the family name {family.name!r} is taken")
            for params in family.examples:
                family.make(params)
        except Exception as error:  # a plugin may fail in any way: it is reported, never fatal
            message = f"{type(error).__name__}: {error}"
            loaded.broken[point.name] = message
            log.error("game plugin %r (%s) left out: %s", point.name, point.value, message)
            continue
        loaded.families[family.name] = rules_family(family)
    return loaded


def _find(taken: Collection[str]) -> Found:
    return load(installed(), taken)


#: The rules solver's entry point in the group: the plugin authors' games, after the kinds' own.
SOURCE = FamilySource(find=_find)
