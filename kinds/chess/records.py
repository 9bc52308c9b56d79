"""What chess endgames add to their answers: a position's metrics, lila's category and the game-end
flags; a move in UCI and SAN, and whether it zeroes the halfmove clock or changes the material."""

from __future__ import annotations

from dataclasses import dataclass

from engine.records import MoveRecord, ValueRecord


@dataclass(frozen=True, slots=True)
class ChessValue(ValueRecord):
    """A chess position's metrics and flags, as lila-tablebase names them."""

    dtz: int | None
    """Chess: plies to the next capture or pawn move under best play (the winner keeping the fifty-move
    rule), positive when the side to move wins, negative when it loses, 0 for a draw (Syzygy's DTZ; a
    checkmated side has -1); absent where the table has no DTZ."""
    precise_dtz: int | None
    """Chess: `dtz` where it is exact; absent where it may be one ply off (Syzygy stores some DTZ values
    rounded)."""
    dtm: int | None
    """Chess: plies to mate under best play, positive when the side to move wins, negative when it loses
    (0 when mated, and for a draw); absent where the table has no DTM (Syzygy files)."""
    category: str
    """Chess: lila's category for the side to move, from DTZ and the FEN's halfmove clock: "win",
    "cursed-win" (won, but not within the fifty-move rule), "draw", "blessed-loss", "loss" (and lila's
    "syzygy-win" or "syzygy-loss" where a rounded DTZ leaves it open)."""
    checkmate: bool
    """Chess: the side to move is checkmated."""
    stalemate: bool
    """Chess: the side to move is stalemated."""
    insufficient_material: bool
    """Chess: neither side has the material to mate."""


@dataclass(frozen=True, slots=True)
class ChessMove(MoveRecord):
    """A chess move in both notations (`move` is the UCI text too), and what it does to the clock."""

    uci: str
    """Chess: the move in UCI notation (from and to squares, and the piece promoted to), e.g. "e7e8q"."""
    san: str
    """Chess: the move in Standard Algebraic Notation, e.g. "Ra8#" or "e8=Q+"."""
    zeroing: bool
    """Chess: the move is a capture or a pawn move (it resets the halfmove clock)."""
    conversion: bool
    """Chess: the move is a capture or a promotion (it changes the material)."""
