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

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol

from engine.errors import LimitExceeded

if TYPE_CHECKING:
    from collections.abc import Sequence

#: Largest `upto` a heap-game job may ask for.
MAX_UPTO = 1 << 36
#: Largest side of a Wythoff table a job may ask for.
MAX_WYTHOFF_SIDE = 1 << 16
#: Bytes of address space a process computing a job holds before its data (Python, numpy, numba and
#: the compiled kernels): what every job's `JobPlan.memory` counts besides its own arrays.
PROCESS_BYTES = 768 << 20
#: Bytes a value of an open-ended sequence costs its job at the peak of a step (the prefix and the step,
#: each as uint32, and the copy joining them): what a plan counts unless its kind says otherwise.
VALUE_BYTES = 12


class StoredName(NamedTuple):
    """One stored sequence or object: what a job stores, and what another job may need stored first."""

    game_id: str
    family: str


@dataclass(frozen=True, slots=True)
class JobPlan:
    """The job to queue: the stored sequence (game, family), how many values, whether to fill, and the
    stored objects its kernel reads (`needs`, each planned by its own game's `plan_job`).

    What the job costs one worker, as its kind says it (checked before anything is queued, so nothing
    is queued that no worker can finish): `memory_bytes`, the computing process's peak address space
    (None: `PROCESS_BYTES` and `VALUE_BYTES` a value); `work`, the units its progress counts to, fixed
    for the whole run (a chess table's slots, a tier's positions; None: its values; 0: counted by the
    worker as it starts, before any other progress); `positions`, the most it may index at once, within
    `max_positions`. `whole` is set by `plan_job` below: the job makes its object whole, whatever
    `values` says."""

    game_id: str
    family: str
    values: int
    fill: bool
    needs: tuple[StoredName, ...] = ()
    memory_bytes: int | None = None
    work: int | None = None
    whole: bool = False
    #: Most positions the job may have to index at once, and most its index holds (None: no bound).
    positions: int | None = None
    max_positions: int | None = None
    #: Whether its kernel stores the object's statistics beside it (set by `plan_job`): the object is
    #: then stored once its statistics are too (a table stored before they were is backfilled by a job).
    stats: bool = False

    @property
    def name(self) -> StoredName:
        return StoredName(self.game_id, self.family)

    @property
    def memory(self) -> int:
        """The computing process's peak bytes, as the kind estimates them."""
        if self.memory_bytes is not None:
            return self.memory_bytes
        return PROCESS_BYTES + VALUE_BYTES * self.values

    @property
    def total(self) -> int:
        """The job's progress total as it is queued (0: the worker counts it as it starts)."""
        return self.values if self.work is None else self.work


class StoresObjects(Protocol):
    """What `plan_job` asks of a game's kernel: `engine.kind.SequenceKernel` has it (engine.kind imports
    this module, so it is named here by what it does)."""

    stores_stats: bool

    def makes_whole(self) -> bool: ...


class PlansJobs(Protocol):
    """What `plan_job` asks of a game: `engine.kind.GameKind` has it."""

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan: ...
    def kernel_for(self, family: str) -> StoresObjects | None: ...


def plan_job(game: PlansJobs, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
    """The job for `upto`, `whole` where its kernel makes its object whole; NotApplicable where nothing
    is stored, InvalidArgument for a bad size."""
    plan = game.plan_job(upto, fill, family)
    kernel = game.kernel_for(plan.family)
    stats = kernel is not None and kernel.stores_stats
    return dataclasses.replace(plan, whole=makes_whole(kernel), stats=stats)


def makes_whole(kernel: StoresObjects | None) -> bool:
    """Whether `kernel` makes its object whole (a solved graph, an endgame table): it has its own
    `SequenceKernel.length`, and its job stores that length whatever `upto` it was given."""
    return kernel is not None and kernel.makes_whole()


class BeyondWorker(LimitExceeded):
    """Jobs no worker could finish within its memory cap: none of them is queued (RESOURCE_EXHAUSTED)."""


def check_fits(plans: Sequence[JobPlan], memory_cap: int, cap_name: str) -> None:
    """Refuse `plans` (a submission's jobs, all or none) when the largest needs more memory than one
    worker may hold (`memory_cap` bytes, named `cap_name`; 0: no cap), or one may have to index more
    positions than its index holds, naming it and the figures."""
    if memory_cap > 0 and plans:
        largest = max(plans, key=lambda plan: plan.memory)
        if largest.memory > memory_cap:
            whose = f"{largest.game_id} ({largest.family})"
            more = f", one of the {len(plans)} jobs it would queue," if len(plans) > 1 else ""
            raise BeyondWorker(
                f"the job storing {whose}{more} needs about {largest.memory:,} bytes of memory, more than a "
                f"worker's cap of {memory_cap:,} bytes ({cap_name}): nothing is queued"
            )
    for plan in plans:
        if (
            plan.positions is not None
            and plan.max_positions is not None
            and plan.positions > plan.max_positions
        ):
            raise BeyondWorker(
                f"the job storing {plan.game_id} ({plan.family}) may have to index {plan.positions:,} "
                f"positions at once, more than its index holds ({plan.max_positions:,}): nothing is queued"
            )
