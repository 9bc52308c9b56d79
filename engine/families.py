"""What an entry point of the group `nimbase.games` gives: a family's registry entry as its kind declares
it (`Family`), or a source of families declared in another form (`FamilySource`).

Every kind registers the same way, built in or not: its package declares its `Family` and pyproject.toml
(or a plugin's own metadata) names it under the group, so the registry (engine.registry) names no kind.
The rules solver (kinds.rules) is a `FamilySource`: it turns each plugin author's `nimbase_rules.Family`
found in the group into a `Family`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from engine.kind import GameKind
from engine.kind_settings import SettingsDeclaration
from engine.values import GameInfo

#: The entry-point group of the families of games.
GROUP = "nimbase.games"

#: What a game id resolves to: the game's kind, through which every question about it goes.
Game = GameKind[Any]


@dataclass(frozen=True, slots=True)
class Family:
    """One family of games: how its ids parse, how ListGames describes it and its own settings."""

    parse: Callable[[str | None, str], Game]
    info: Callable[[], GameInfo]
    #: Named members of the family that ListGames shows instead of one family entry.
    classics: Callable[[], list[GameInfo]] = list
    #: The family's own settings and keepers (engine.kind_settings), if it has any.
    settings: SettingsDeclaration | None = None
    #: The game ids a bulk precompute of every member up to a size covers (`nimbase precompute FAMILY
    #: --men N`), each after those its job reads; None where the family has no such set.
    bulk: Callable[[int], list[str]] | None = None
    #: The dotted name of the kind's edge package (its own REST routes, the opening of files its settings
    #: name: a `PLUGIN` there, which service.kind_plugins loads by this name), if it has one.
    plugin: str | None = None
    #: Where ListGames lists the family among the families declared this way (lowest first); the families
    #: of sources come after them.
    order: int = 1000
    #: False for a family whose games have no misère form (`FAMILY:...:misere` is refused, naming the
    #: game); None leaves `:misere` to its parser.
    misere: bool | None = None


@dataclass(slots=True)
class Found:
    """Families found, by name in ListGames order, and the entry points left out with why."""

    families: dict[str, Family] = field(default_factory=dict)
    broken: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class FamilySource:
    """Families declared in another form, read from the group by the kind that knows the form:
    `find(taken)` gives them (none named as one of `taken`) with the entry points it left out."""

    find: Callable[[Collection[str]], Found]
