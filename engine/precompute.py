"""What a precompute job is: which stored sequence, how many values, and whether to fill past a period.

Each kind says what a request means for it (`GameKind.plan_job`): `upto` counts heap sizes for heap
games and is the side of the square table for Wythoff's game. The CLI and the service both go through
`plan_job`, so they always agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

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


class PlansJobs(Protocol):
    """What `plan_job` asks of a game: `engine.kind.GameKind` has it (the kinds import this module)."""

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan: ...


def plan_job(game: PlansJobs, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
    """The job for `upto`; NotApplicable where nothing is stored, InvalidArgument for a bad size."""
    return game.plan_job(upto, fill, family)
