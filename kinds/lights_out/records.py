"""What Lights Out adds to its answers: a puzzle's value has no outcome, it says whether the board can
be solved and how; a press says whether the board it leaves can be."""

from __future__ import annotations

from dataclasses import dataclass

from engine.records import MoveRecord, ValueRecord


@dataclass(frozen=True, slots=True)
class LightsOutValue(ValueRecord):
    """A board's answer beside its `remoteness` (the fewest presses, where searched)."""

    solvable: bool
    """One-player puzzles: whether the board can be solved."""
    solution: tuple[str, ...] | None = None
    """When `solvable`: presses that solve the board (the fewest, when `remoteness` is given; empty when
    it is solved already); None otherwise."""
    note: str | None = None
    """A remark on the answer, e.g. why a solvable board's `remoteness` is absent."""


@dataclass(frozen=True, slots=True)
class LightsOutPress(MoveRecord):
    """A press, beside the board it leaves and that board's `remoteness`."""

    solvable: bool
    """Of the board reached: whether it can be solved."""
