"""What chess endgames add to their answers: a move in UCI and in SAN (a value adds nothing yet)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.records import MoveRecord


@dataclass(frozen=True, slots=True)
class ChessMove(MoveRecord):
    """A chess move in both notations (`move` is the UCI text too)."""

    uci: str
    """Chess: the move in UCI notation (from and to squares, and the piece promoted to), e.g. "e7e8q"."""
    san: str
    """Chess: the move in Standard Algebraic Notation, e.g. "Ra8#" or "e8=Q+"."""
