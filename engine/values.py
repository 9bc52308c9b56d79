"""The value of a position, as every answer of the service carries it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

from engine.periods import Period

Outcome = Literal["P", "N", "D"]
Source = Literal["formula", "table", "period", "live"]

#: Cheapest first; a value computed from several heaps reports the costliest source it used.
SOURCE_ORDER: tuple[Source, ...] = ("formula", "table", "period", "live")


def costliest(sources: list[Source]) -> Source:
    """The source to report for a value combined from several lookups."""
    if len(sources) == 1:
        return sources[0]
    if not sources:
        return "formula"
    return max(sources, key=SOURCE_ORDER.index)


class Value(NamedTuple):
    """What is known of one position: outcome, Grundy value, remoteness and where it came from.

    A named tuple rather than a dataclass: bulk lookups build one per position, and a tuple is the
    cheapest immutable record Python has.

    One-player puzzles (Lights Out) have no `outcome` (None): they say whether the board is `solvable`,
    and give a `solution` (the presses, in the kind's press names) exactly when it is; `remoteness` is
    then the fewest presses, None when they were not searched for, and `note` says why.
    """

    game: str
    position: str
    #: "P", "N" or "D"; None for one-player puzzles.
    outcome: Outcome | None
    grundy: int | None
    remoteness: int | None
    source: Source
    #: bicolor-nim's G- (the black heap that added to the position makes a P-position); else None.
    grundy_black: int | None = None
    #: Puzzles: whether the board can be solved; None for two-player games.
    solvable: bool | None = None
    #: Puzzles: presses that solve the board (given exactly when `solvable` is true; empty when it is
    #: solved already); None otherwise.
    solution: tuple[str, ...] | None = None
    #: A remark on the answer, e.g. why `remoteness` is absent from a puzzle's answer.
    note: str | None = None

    def as_dict(self) -> dict[str, object]:
        """The JSON shape of the public contract (absent fields are left out)."""
        out: dict[str, object] = {"game": self.game, "position": self.position}
        if self.outcome is not None:
            out["outcome"] = self.outcome
        if self.solvable is not None:
            out["solvable"] = self.solvable
        if self.solution is not None:
            out["solution"] = list(self.solution)
        if self.grundy is not None:
            out["grundy"] = self.grundy
        if self.grundy_black is not None:
            out["grundy_black"] = self.grundy_black
        if self.remoteness is not None:
            out["remoteness"] = self.remoteness
        if self.note is not None:
            out["note"] = self.note
        out["source"] = self.source
        return out


@dataclass(frozen=True, slots=True)
class MoveValue:
    """One legal move and the value of the position it leads to."""

    move: str
    value: Value
    fields: tuple[tuple[str, object], ...] = ()

    def as_dict(self) -> dict[str, object]:
        """A move's JSON shape: the text, the value of the position reached (no `solution`, `note` or
        `source`: those belong to the position asked about), then the kind's fields."""
        out: dict[str, object] = {"move": self.move, "position": self.value.position}
        if self.value.outcome is not None:
            out["outcome"] = self.value.outcome
        if self.value.solvable is not None:
            out["solvable"] = self.value.solvable
        if self.value.grundy is not None:
            out["grundy"] = self.value.grundy
        if self.value.grundy_black is not None:
            out["grundy_black"] = self.value.grundy_black
        if self.value.remoteness is not None:
            out["remoteness"] = self.value.remoteness
        out.update(self.fields)
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
