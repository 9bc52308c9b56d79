"""What a precompute job is: which stored sequence, how many values, and whether to fill past a period.

Each kind says what a request means for it (`GameKind.plan_job`): `upto` counts heap sizes for heap
games and is the side of the square table for Wythoff's game. The CLI and the service both go through
`plan_job`, so they always agree.

A job may need other stored objects first (`JobPlan.needs`: the sub-tables a chess material's captures
lead to, the tiers a game's moves lead to). Whoever submits it submits the jobs of what is neither stored
nor queued yet, and the job waits for them (storage.jobs): the needs form a graph the workers walk in
dependency order, whatever machine each runs on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Protocol

#: Largest `upto` a heap-game job may ask for.
MAX_UPTO = 1 << 36
#: Largest side of a Wythoff table a job may ask for.
MAX_WYTHOFF_SIDE = 1 << 16


class StoredName(NamedTuple):
    """One stored sequence or object: what a job stores, and what another job may need stored first."""

    game_id: str
    family: str


@dataclass(frozen=True, slots=True)
class JobPlan:
    """The job to queue: the stored sequence (game, family), how many values, whether to fill, and the
    stored objects its kernel reads (`needs`, each planned by its own game's `plan_job`)."""

    game_id: str
    family: str
    values: int
    fill: bool
    needs: tuple[StoredName, ...] = ()

    @property
    def name(self) -> StoredName:
        return StoredName(self.game_id, self.family)


class PlansJobs(Protocol):
    """What `plan_job` asks of a game: `engine.kind.GameKind` has it (the kinds import this module)."""

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan: ...


def plan_job(game: PlansJobs, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
    """The job for `upto`; NotApplicable where nothing is stored, InvalidArgument for a bad size."""
    return game.plan_job(upto, fill, family)
