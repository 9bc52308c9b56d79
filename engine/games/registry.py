"""Game ids to games: one table entry per family.

A game id is `FAMILY` or `FAMILY:PARAMS`; the family name picks a parser that receives PARAMS (or
None) and the whole id for its error messages. Adding a family means adding one `Family` entry to
`FAMILIES`; nothing else here changes. The entry also declares the family's own settings and keepers
(`kind_settings` reads them from their variables for the service, naming no kind).

Games defined by their rules (nimbase_rules) come from the entry-point group `nimbase.games`, read once
here at start-up (engine.rules.plugins): each family becomes an entry like the built-in ones, and a
broken plugin is logged by name and left out (`BROKEN_PLUGINS`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import InvalidGameId, UnknownGame
from engine.games import bicolor, chess, graph_game, misere, nim, subtraction
from engine.games.base import GameInfo
from engine.games.bicolor import BicolorNim
from engine.games.grundy import GrundyGame
from engine.games.lights_out import kind as lights_out
from engine.games.lights_out import settings as lights_out_settings
from engine.games.lights_out.shape import FAMILY as LIGHTS_OUT
from engine.games.misere.subtraction import MisereSubtraction
from engine.games.octal import CLASSICS, OctalGame
from engine.games.wythoff import WythoffGame
from engine.kind import GameKind
from engine.kind_settings import KindSettings, SettingsDeclaration
from engine.precompute import JobPlan, StoredName
from engine.rules import kind as rules_kind
from engine.rules import plugins
from nimbase_rules import Family as RulesFamily

#: What a game id resolves to: the game's kind, through which every question about it goes.
Game = GameKind[Any]
#: Longest game id accepted (a 64-element set of 7-digit numbers fits easily).
MAX_GAME_ID_CHARS = 1024

FAMILY_NAME = re.compile(r"[a-z][a-z0-9-]*")


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
    #: The dotted name of the family's package outside engine/ (its own REST routes, the opening of files
    #: its settings name: a `PLUGIN` there, which service.kind_plugins loads by this name), if it has one.
    plugin: str | None = None


def _parse_octal(params: str | None, text: str) -> Game:
    params, misere_play = misere.split_suffix(params)
    if params is None:
        raise InvalidGameId(f"game id {text!r} needs an octal code, e.g. 'octal:0.77'")
    game = OctalGame(params)
    return misere.misere_of(game, game.t, text) if misere_play else game


def _octal_info() -> GameInfo:
    return GameInfo(
        id="octal:0.77",
        name="Octal games",
        description=(
            "octal:CODE for any code d0.d1...dt (digits 0-7): digit k's bit 1 allows removing k tokens "
            "as a whole heap, bit 2 leaving one heap, bit 4 leaving two non-empty heaps; d0 = 4 lets a "
            "heap split without removal. Normal play; periods certified by the Guy-Smith theorem."
        ),
        position_syntax="heap sizes separated by spaces, e.g. '3 5 7'",
        examples=("7", "3 5 7", "100 1000000"),
    )


def _octal_classics() -> list[GameInfo]:
    return [OctalGame(code).info() for code in CLASSICS]


def _parse_subtraction(params: str | None, text: str) -> Game:
    game = subtraction.parse_subtraction_id(params, text)
    return MisereSubtraction(game.moves) if game.misere else game


def _parse_wythoff(params: str | None, text: str) -> Game:
    if params is not None:
        raise InvalidGameId(f"game id {text!r}: Wythoff's game takes no parameters, use 'wythoff'")
    return WythoffGame()


def _parse_bicolor(params: str | None, text: str) -> Game:
    if params is not None:
        raise InvalidGameId(f"game id {text!r}: bicolor Nim takes no parameters, use 'bicolor-nim'")
    return BicolorNim()


def _parse_grundy(params: str | None, text: str) -> Game:
    params, misere_play = misere.split_suffix(params)
    if params is not None:
        raise InvalidGameId(f"game id {text!r}: Grundy's game takes no parameters, use 'grundy'")
    return misere.misere_of(GrundyGame(), None, text) if misere_play else GrundyGame()


#: Family name -> family. Keep in ListGames order.
FAMILIES: dict[str, Family] = {
    nim.FAMILY: Family(parse=nim.parse_nim_id, info=nim.family_info),
    subtraction.FAMILY: Family(
        parse=_parse_subtraction, info=subtraction.family_info, settings=misere.SETTINGS
    ),
    "octal": Family(
        parse=_parse_octal, info=_octal_info, classics=_octal_classics, settings=misere.SETTINGS
    ),  # lists the classics
    "grundy": Family(parse=_parse_grundy, info=lambda: GrundyGame().info(), settings=misere.SETTINGS),
    "wythoff": Family(parse=_parse_wythoff, info=lambda: WythoffGame().info()),
    "bicolor-nim": Family(parse=_parse_bicolor, info=lambda: BicolorNim().info(), settings=bicolor.SETTINGS),
    LIGHTS_OUT: Family(
        parse=lights_out.parse_lights_out_kind,
        info=lights_out.family_info,
        classics=lights_out.family_classics,
        settings=lights_out_settings.SETTINGS,
    ),
    graph_game.FAMILY: Family(
        parse=graph_game.parse_graph_kind, info=graph_game.family_info, settings=graph_game.SETTINGS
    ),
    chess.FAMILY: Family(
        parse=chess.parse_chess_kind,
        info=chess.family_info,
        settings=chess.SETTINGS,
        bulk=chess.bulk_ids,
        plugin=chess.PLUGIN,
    ),
}


def rules_family(family: RulesFamily) -> Family:
    """The registry entry of a family of games defined by their rules (a plugin's)."""

    def parse(params: str | None, text: str) -> Game:
        try:
            rules = family.make(params)
        except ValueError as error:
            raise InvalidGameId(f"game id {text!r}: {error}") from None
        return rules_kind.RulesGame(rules)

    def infos() -> list[GameInfo]:
        return [rules_kind.RulesGame(family.make(params)).info() for params in family.examples]

    return Family(parse=parse, info=lambda: infos()[0], classics=infos, settings=rules_kind.SETTINGS)


def add_plugins(loaded: plugins.Loaded) -> None:
    """Registers the plugins' families (after the built-in ones, in the order found)."""
    for name, family in loaded.families.items():
        FAMILIES[name] = rules_family(family)
    BROKEN_PLUGINS.update(loaded.broken)


#: Plugins left out at start-up, by entry-point name, with why.
BROKEN_PLUGINS: dict[str, str] = {}
add_plugins(plugins.load(plugins.installed(), taken=FAMILIES))


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
    if name in NO_MISERE and text.endswith(misere.SUFFIX):
        raise InvalidGameId(f"game id {_quote(text)}: {name!r} has no misère form")
    return family.parse(params if sep else None, text)


#: Families whose games have no misère form (a score, a puzzle, loopy play): `:misere` on them is refused.
NO_MISERE = frozenset({"wythoff", "bicolor-nim", LIGHTS_OUT, graph_game.FAMILY, chess.FAMILY})


def plan_stored(name: StoredName) -> JobPlan:
    """The job storing `name` whole, as its game plans it: what a job's submission queues first for each
    object the job needs (storage.job_needs)."""
    return parse_game_id(name.game_id).plan_job(0, False, name.family)


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
