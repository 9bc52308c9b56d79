"""What a precompute request means for each game: which sequence is stored, and how far.

`upto` counts heap sizes for heap games and is the side of the square table for Wythoff's game.
The CLI and the service both turn requests into jobs through `plan_job`, so they always agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import InvalidArgument, NotApplicable
from engine.games.registry import Game
from engine.games.wythoff import WythoffGame
from engine.kernels.wythoff_tiles import values_for_side

#: Largest `upto` a heap-game job may ask for.
MAX_UPTO = 1 << 36
#: Largest side of a Wythoff table a job may ask for.
MAX_WYTHOFF_SIDE = 1 << 16


@dataclass(frozen=True, slots=True)
class JobPlan:
    """The job to queue: the stored sequence (game, family), how many values, whether to fill."""

    game_id: str
    family: str
    values: int
    fill: bool


def plan_job(game: Game, upto: int, fill: bool = False) -> JobPlan:
    """The job for `upto`; NotApplicable for a closed-form game, InvalidArgument for a bad size."""
    kernel = game.kernel()
    if kernel is None:
        raise NotApplicable(f"{game.game_id!r} needs no precomputation: a closed form answers every heap")
    if isinstance(game, WythoffGame):
        if not 1 <= upto <= MAX_WYTHOFF_SIDE:
            raise InvalidArgument(
                f"upto {upto} is outside 1..{MAX_WYTHOFF_SIDE} (the side of the Wythoff table)"
            )
        # A table has no period to stop at: it is always filled to the requested side.
        return JobPlan(game.game_id, kernel.family, values_for_side(upto), fill=True)
    if not 1 <= upto <= MAX_UPTO:
        raise InvalidArgument(f"upto {upto} is outside 1..{MAX_UPTO}")
    return JobPlan(game.game_id, kernel.family, upto, fill)
