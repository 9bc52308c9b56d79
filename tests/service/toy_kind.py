"""A toy kind of game for the tests: a small explicit table of positions and moves, not a heap game.

It shows what a new kind costs: this one module (a `GameKind`, the records its answers add and its own
settings), one registry entry (see `toy_family`) and the records' messages in nimbase.proto (`ToyValue`,
`ToyMove`).
Positions are the table's names; a move goes from a name to one it lists. The table is acyclic, so
every position has a Grundy value, found by the definition (mex of the options).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from engine.errors import InvalidGameId, InvalidPosition
from engine.kind import Context, GameKind
from engine.kind_settings import PositiveInt, SettingsDeclaration
from engine.moves import MoveTo, list_moves
from engine.records import MoveRecord, ValueRecord
from engine.registry import Family
from engine.values import BestMoveResult, GameInfo, Value

#: The toy game: position -> the positions one move reaches.
TABLE: dict[str, tuple[str, ...]] = {
    "end": (),
    "a": ("end",),
    "b": ("a", "end"),
    "c": ("b",),
    "d": ("a", "b", "c"),
    "start": ("c", "d"),
}


@cache
def grundy(position: str) -> int:
    """mex of the options' values (the definition, on a table small enough to recurse)."""
    seen = {grundy(child) for child in TABLE[position]}
    value = 0
    while value in seen:
        value += 1
    return value


@cache
def remoteness(position: str) -> int:
    """Steinhaus: the winner hurries to a P-option, the loser delays."""
    children = TABLE[position]
    if not children:
        return 0
    to_p = [remoteness(c) for c in children if grundy(c) == 0]
    return 1 + (min(to_p) if to_p else max(remoteness(c) for c in children))


@dataclass(frozen=True, slots=True)
class ToySettings:
    """The toy's own settings (`SETTINGS`: NIMBASE_LIMITS_TOY_<FIELD>)."""

    listed_p_positions: PositiveInt = 100
    """GetStats lists the P-positions up to this many, else only their count (a table can be long)."""


#: What the registry entry declares (the variable NIMBASE_LIMITS_TOY_LISTED_P_POSITIONS).
SETTINGS = SettingsDeclaration("toy", ToySettings)


@dataclass(frozen=True, slots=True)
class ToyValue(ValueRecord):
    """What the toy adds to a value."""

    parity: str
    """"even" or "odd": the parity of the position's Grundy value."""


@dataclass(frozen=True, slots=True)
class ToyMove(MoveRecord):
    """What the toy adds to a move."""

    children: int
    """How many moves the position reached has."""


class ToyGame(GameKind[str]):
    """The explicit table above, under normal play."""

    game_id = "toy"

    def info(self) -> GameInfo:
        return GameInfo(
            id=self.game_id,
            name="Toy game",
            description="A small explicit game table (tests only).",
            position_syntax="one of: " + ", ".join(TABLE),
            examples=("start", "d"),
        )

    def parse(self, text: str) -> str:
        name = text.strip()
        if name not in TABLE:
            raise InvalidPosition(f"position {text!r} is not in the toy table (known: {', '.join(TABLE)})")
        return name

    def format(self, position: str) -> str:
        return position

    def value(self, position: str, ctx: Context) -> Value:
        g = grundy(position)
        parity = ToyValue("odd" if g % 2 else "even")
        return Value(self.game_id, position, "P" if g == 0 else "N", g, remoteness(position), "live", parity)

    def best_moves(self, position: str, limit: int | None, ctx: Context) -> BestMoveResult:
        def every() -> list[MoveTo[str]]:
            return [
                (f"{position} -> {child}", ToyMove(len(TABLE[child])), child) for child in TABLE[position]
            ]

        return list_moves(
            self.value(position, ctx),
            len(TABLE[position]),
            every,
            every,
            lambda child, _: self.value(child, ctx),
            limit,
            ctx.limits,
        )

    def stats(self, ctx: Context) -> dict[str, object]:
        p_positions = sorted(p for p in TABLE if grundy(p) == 0)
        listed = len(p_positions) <= ctx.settings_for(ToySettings).listed_p_positions
        return {
            "game": self.game_id,
            "positions": len(TABLE),
            "p_position_count": len(p_positions),
            "p_positions": p_positions if listed else None,
        }


def _parse_toy(params: str | None, text: str) -> ToyGame:
    if params is not None:
        raise InvalidGameId(f"game id {text!r}: the toy game takes no parameters")
    return ToyGame()


def toy_family() -> Family:
    """The registry entry of the toy kind."""
    return Family(parse=_parse_toy, info=lambda: ToyGame().info(), settings=SETTINGS)
