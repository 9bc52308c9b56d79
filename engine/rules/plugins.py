"""Games found through the entry-point group `nimbase.games`, each a `nimbase_rules.Family`.

`load` reads the group once (the registry does, at start-up, in every process: server, live processes,
workers). A plugin that fails to load, is not a Family, clashes with a family name already taken or
cannot make the games it lists is reported by name (logged, and kept in `Loaded.broken`) and left out;
it never stops the others, nor the service.

The games shipped with nimbase are registered the same way (pyproject.toml). An installation whose
metadata predates one of them (an editable install from before it was added) still finds it through
`SHIPPED`, the same table as pyproject.toml's; a test keeps the two equal.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points

from nimbase_rules import Family

GROUP = "nimbase.games"
log = logging.getLogger(__name__)

#: The games shipped with nimbase: entry-point name -> object (as in pyproject.toml).
SHIPPED: dict[str, str] = {
    "tictactoe": "nimbase_rules.games.tictactoe:FAMILY",
    "connect4": "nimbase_rules.games.connect4:FAMILY",
    "dots-and-boxes": "nimbase_rules.games.dots_and_boxes:FAMILY",
    "rules-nim": "nimbase_rules.games.nim:FAMILY",
    "rules-kayles": "nimbase_rules.games.kayles:FAMILY",
}


@dataclass(slots=True)
class Loaded:
    """The families found, by name, and the plugins left out with why."""

    families: dict[str, Family] = field(default_factory=dict)
    broken: dict[str, str] = field(default_factory=dict)


def installed() -> list[EntryPoint]:
    """The group's entry points, with the shipped games the installed metadata lacks: the shipped games
    first in SHIPPED's order, then the others by name (ListGames' order does not depend on the install)."""
    found = {ep.name: ep for ep in entry_points(group=GROUP)}
    shipped = [found.pop(name, EntryPoint(name, value, GROUP)) for name, value in SHIPPED.items()]
    return shipped + [found[name] for name in sorted(found)]


def load(points: Iterable[EntryPoint], taken: Iterable[str] = ()) -> Loaded:
    """Each entry point's family, checked: it loads, is a Family named as its entry point, takes no name
    in `taken`, and makes the games it lists."""
    loaded = Loaded()
    taken = set(taken)
    for point in points:
        try:
            family = point.load()
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
        loaded.families[family.name] = family
    return loaded
