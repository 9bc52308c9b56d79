"""What a chess table knows of one position, whatever answers it: nimbase's own tables or Syzygy files.

The answers of the chess kind (category, flags, moves ranked the way lila ranks them) are built from
probes, so every source of tables answers alike. Values are from the side to move's point of view, in
the Syzygy conventions:

- `wdl` with the fifty-move rule and a halfmove clock of 0: 2 win, 1 cursed win (won, but not within the
  fifty-move rule), 0 draw, -1 blessed loss, -2 loss;
- `dtz` in plies to the next zeroing move (capture or pawn move) under best play with the winner keeping
  the fifty-move rule, positive when the side to move wins, negative when it loses, 0 for a draw or a
  finished game; `precise_dtz` False where the source may be one ply off (Syzygy stores some DTZ values
  rounded), True where it is exact;
- `dtm` in plies to mate, signed like `dtz` (None where the source has no DTM: Syzygy).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ChessProbe:
    """One position's values in a table (see the module docstring for the conventions)."""

    wdl: int
    dtz: int | None
    dtm: int | None
    precise_dtz: bool = True
