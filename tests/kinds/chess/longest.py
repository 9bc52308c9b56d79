"""A chess table's longest wins per side, read off its values, to set beside published statistics
(`tests/data/chess_longest_wins.json`), which give them per side to move or per winning side where the
table's own statistics (`ChessTable.stats`) give one figure for both.

Sides are the material's: A its first-named side (White in the index), B the other. In the index a
slot is ((configuration * 2 + side to move) * kings + kings' slot) * pieces + pieces' slot
(kinds.chess.kernels.index.encode), so the values reshape to (configurations, side to move, rest).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from kinds.chess.format import ChessValues
from kinds.chess.kernels import index as ix
from kinds.chess.kernels.values import RULE
from kinds.chess.material import Material


@dataclass(frozen=True)
class Longest:
    """Plies of the longest win with each side to move ("a", "b") and of the longest loss with each
    side to move, over the positions the table names (each once); 0 where there is none. For DTZ, wins
    and losses past the fifty-move rule (cursed and blessed) are kept apart."""

    win: dict[str, int]
    loss: dict[str, int]
    cursed_win: dict[str, int]
    blessed_loss: dict[str, int]

    def winner(self, side: str) -> int:
        """The longest win of `side` with either side to move (its win to move, its opponent's loss
        to move): what the Syzygy statistics call the longest win for a colour."""
        other = "b" if side == "a" else "a"
        return max(self.win[side], self.loss[other])

    def cursed_winner(self, side: str) -> int:
        other = "b" if side == "a" else "a"
        return max(self.cursed_win[side], self.blessed_loss[other])

    @property
    def either(self) -> int:
        """The longest of all: either side to move, either side winning."""
        return max(self.winner("a"), self.winner("b"))


def named(material: Material) -> NDArray[np.bool_]:
    """Whether each slot names a position (counting these counts each position once)."""
    return ix.valid_mask(material.spec, 0, material.slots)


def longest(material: Material, values: ChessValues, metric: str, mask: NDArray[np.bool_]) -> Longest:
    """`metric` ("dtm" or "dtz") of `values`, a table of `material`, per side to move (`mask`: `named`)."""
    spec = material.spec
    rest = ix.kings_size(spec) * ix.pieces_size(spec)
    column = values.dtm if metric == "dtm" else values.dtz
    by_side = column.reshape(-1, 2, rest)
    names = mask.reshape(-1, 2, rest)
    win: dict[str, int] = {}
    loss: dict[str, int] = {}
    cursed: dict[str, int] = {}
    blessed: dict[str, int] = {}
    for stm, side in ((0, "a"), (1, "b")):
        v = by_side[:, stm, :][names[:, stm, :]].astype(np.int32)
        wins = v[v > 0]
        losses = -v[v < 0] - 1  # a loss in d plies is stored as -(d + 1)
        rule = RULE if metric == "dtz" else np.iinfo(np.int32).max
        win[side] = int(wins[wins <= rule].max(initial=0))
        loss[side] = int(losses[losses <= rule].max(initial=0))
        cursed[side] = int(wins[wins > rule].max(initial=0))
        blessed[side] = int(losses[losses > rule].max(initial=0))
    return Longest(win, loss, cursed, blessed)
