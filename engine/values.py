"""The value of a position, as every answer of the service carries it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

from engine.periods import Period
from engine.records import MoveRecord, ValueRecord

Outcome = Literal["P", "N", "D"]
Source = Literal["formula", "table", "period", "live", "syzygy"]

#: Cheapest first; a value computed from several heaps reports the costliest source it used.
SOURCE_ORDER: tuple[Source, ...] = ("formula", "table", "period", "live", "syzygy")


def costliest(sources: list[Source]) -> Source:
    """The source to report for a value combined from several lookups."""
    if len(sources) == 1:
        return sources[0]
    if not sources:
        return "formula"
    return max(sources, key=SOURCE_ORDER.index)


class Value(NamedTuple):
    """What is known of one position: outcome, Grundy value, remoteness and where it came from, plus
    what its kind adds (`kind`, a record the kind declares: engine.records).

    A named tuple rather than a dataclass: bulk lookups build one per position, and a tuple is the
    cheapest immutable record Python has.

    One-player puzzles (Lights Out) have no `outcome` (None); their record says whether the board can be
    solved, and how.
    """

    game: str
    position: str
    #: "P", "N" or "D"; None for one-player puzzles.
    outcome: Outcome | None
    grundy: int | None
    remoteness: int | None
    source: Source
    #: What the kind adds to the value, where it adds anything.
    kind: ValueRecord | None = None

    def as_dict(self) -> dict[str, object]:
        """The JSON shape of the public contract (absent fields are left out): the core fields, then
        the kind record's."""
        out: dict[str, object] = {"game": self.game, "position": self.position}
        self.add_core(out)
        out["source"] = self.source
        if self.kind is not None:
            out.update(self.kind.as_dict())
        return out

    def add_core(self, out: dict[str, object]) -> None:
        """The fields a value and a move's JSON share, each where it is known: outcome, grundy,
        remoteness."""
        if self.outcome is not None:
            out["outcome"] = self.outcome
        if self.grundy is not None:
            out["grundy"] = self.grundy
        if self.remoteness is not None:
            out["remoteness"] = self.remoteness


@dataclass(frozen=True, slots=True)
class MoveValue:
    """One legal move, the value of the position it leads to, and what the kind adds to the move."""

    move: str
    value: Value
    kind: MoveRecord | None = None
    #: Whether the move ties with the first of its ranked list (engine.moves.mark_best): a bot may play
    #: any of these and keep the result best play gives.
    best: bool = False

    def as_dict(self) -> dict[str, object]:
        """A move's JSON shape: the text, the core value of the position reached (not its `source`, nor
        its kind record: those belong to the position asked about), `best` where it holds, then the
        move's kind record."""
        value = self.value
        out: dict[str, object] = {"move": self.move, "position": value.position}
        value.add_core(out)
        if self.best:
            out["best"] = True
        if self.kind is not None:
            out.update(self.kind.as_dict())
        return out


@dataclass(frozen=True, slots=True)
class BestMoveResult:
    """A position's value and its moves, best first."""

    value: Value
    moves: list[MoveValue]


@dataclass(frozen=True, slots=True)
class SequenceResult:
    """Values of one family for start <= n < stop, and its period where known."""

    game: str
    family: str
    start: int
    stop: int
    values: list[int]
    period: Period | None
    source: str


@dataclass(frozen=True, slots=True)
class GameInfo:
    """How ListGames describes a game or family."""

    id: str
    name: str
    description: str
    position_syntax: str
    examples: tuple[str, ...]
    #: The certified period of the game's single-heap values, where one is known (computed games).
    period: Period | None = None
    #: How the page draws the game's positions where the kind declares it: "grid" (rows of one-character
    #: cells joined by "/", `nimbase_rules.Grid`); None for text only.
    view: str | None = None
