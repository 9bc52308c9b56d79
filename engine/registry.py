"""Game ids to games: one `Family` per family, every one found through the entry-point group
`nimbase.games` (engine.families), so nothing here names a kind.

A game id is `FAMILY` or `FAMILY:PARAMS`; the family name picks a parser that receives PARAMS (or
None) and the whole id for its error messages. A kind's package declares its `Family` (its parser, its
ListGames entry, its own settings and keepers, its edge package) and pyproject.toml names it under the
group; `kind_settings` reads the families' settings from their variables for the service.

The group is read once here at start-up, in every process (server, live processes, workers): the
kinds' own families first, by their `order`, then those of each `FamilySource` (the rules solver's: the
plugin authors' games). An entry point that fails to load, or a family a source cannot make, is logged
by name and left out (`BROKEN_PLUGINS`); it never stops the others.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from importlib.metadata import EntryPoint, entry_points

from engine.errors import InvalidArgument, InvalidGameId, UnknownGame
from engine.families import GROUP, Family, FamilySource, Found, Game
from engine.kind_settings import KindSettings, SettingsDeclaration
from engine.precompute import JobPlan, StoredName, plan_job
from engine.values import GameInfo

__all__ = ["FAMILIES", "Family", "Game", "list_games", "parse_game_id"]

#: Longest game id accepted (a 64-element set of 7-digit numbers fits easily).
MAX_GAME_ID_CHARS = 1024

FAMILY_NAME = re.compile(r"[a-z][a-z0-9-]*")
#: What ends the id of a game played misère.
MISERE_SUFFIX = ":misere"
log = logging.getLogger(__name__)

#: Family name -> family, in ListGames order.
FAMILIES: dict[str, Family] = {}
#: Entry points left out at start-up, by name, with why.
BROKEN_PLUGINS: dict[str, str] = {}


def add(found: Found) -> None:
    """Registers the families found (after those already registered, in the order given)."""
    FAMILIES.update(found.families)
    BROKEN_PLUGINS.update(found.broken)


def register(points: Iterable[EntryPoint]) -> None:
    """Registers the families of `points`: the kinds' own `Family`s by their order, then each source's.
    An entry point that fails to load is reported by the source reading the group (a plugin's declaration
    may fail in any way), else here."""
    own: list[tuple[int, str, Family]] = []
    sources: list[tuple[str, FamilySource]] = []
    failed: dict[str, str] = {}
    for point in points:
        try:
            declared = point.load()
        except Exception as error:  # never fatal
            failed[point.name] = f"{type(error).__name__}: {error}"
            continue
        if isinstance(declared, Family):
            own.append((declared.order, point.name, declared))
        elif isinstance(declared, FamilySource):
            sources.append((point.name, declared))
    if not own:  # the installed metadata predates the kinds' entry points
        log.error("no kind of game found in the entry points %r: reinstall the package (make install)", GROUP)
    add(Found({name: family for _, name, family in sorted(own, key=lambda entry: entry[:2])}))
    for _, source in sorted(sources, key=lambda entry: entry[0]):
        add(source.find(FAMILIES))
    for name, message in failed.items():
        if name not in BROKEN_PLUGINS:
            log.error("entry point %r left out: %s", name, message)
            BROKEN_PLUGINS[name] = message


register(entry_points(group=GROUP))


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
    if not FAMILY_NAME.fullmatch(name):
        raise InvalidGameId(f"game id {text!r} does not start with a family name such as 'nim'")
    family = FAMILIES.get(name)
    if family is None:
        known = ", ".join(sorted(FAMILIES))
        raise UnknownGame(f"unknown game {text!r}: no family {name!r} (known: {known})")
    if family.misere is False and text.endswith(MISERE_SUFFIX):
        raise InvalidGameId(f"game id {_quote(text)}: {name!r} has no misère form")
    return family.parse(params if sep else None, text)


def plan_stored(name: StoredName) -> JobPlan:
    """The job storing `name` whole, as its game plans it: what a job's submission queues first for each
    object the job needs (storage.job_needs)."""
    return plan_job(parse_game_id(name.game_id), 0, False, name.family)


def bulk_ids(name: str, men: int) -> list[str]:
    """The game ids of the family `name`'s whole set up to `men` (`Family.bulk`), each after those its
    job reads; UnknownGame for no such family, InvalidArgument for a family without one, or a size beyond
    what it stores (naming it)."""
    family = FAMILIES.get(name)
    sets = ", ".join(sorted(n for n, f in FAMILIES.items() if f.bulk is not None))
    if family is None:
        raise UnknownGame(f"unknown family {_quote(name)}: men asks for a family's whole set ({sets})")
    if family.bulk is None:
        raise InvalidArgument(f"men asks for a family's whole set ({sets}), and {_quote(name)} has none")
    return family.bulk(men)


def list_games() -> list[GameInfo]:
    """One ListGames entry per family."""
    return [info for family in FAMILIES.values() for info in (family.classics() or [family.info()])]


def declared_settings() -> list[SettingsDeclaration]:
    """Every family's own settings declaration, in ListGames order."""
    found: list[SettingsDeclaration] = []
    for family in FAMILIES.values():
        if family.settings is not None and family.settings not in found:  # plugin families share theirs
            found.append(family.settings)
    return found


def kind_settings(values: Mapping[str, str]) -> KindSettings:
    """Every family's own settings from the text of their variables (`Settings.kind_variables`);
    InvalidSetting naming each bad value, and each variable no family declares."""
    return KindSettings.read(declared_settings(), values)
