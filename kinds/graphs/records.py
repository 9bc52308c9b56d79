"""What game graphs add to a value: a note where the position's generalised Sprague-Grundy value is
infinite (a loopy position has no `grundy` then, and says why)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.records import ValueRecord


@dataclass(frozen=True, slots=True)
class GraphValue(ValueRecord):
    """A game graph's value beside the core fields."""

    note: str
    """Game graphs: why a loopy position has no `grundy` (its generalised Sprague-Grundy value is
    infinite)."""
