"""What misère play keeps and stores: its settings, its keeper of quotients, the record its answers add,
and the worker's kernel storing a quotient whole (engine.stored_bytes)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.kind_settings import KeeperSpec, PositiveInt, SettingsDeclaration
from engine.records import ValueRecord
from engine.stored_bytes import BytesKernel
from kinds.heaps.misere.construct import HeapRules, Limits, compute

#: The stored family holding a game's quotient (a worker's job), as uint32 words.
QUOTIENT = "quotient"
#: Heaps a worker's job computes the quotient to when its `upto` names none (0: the job a refusal
#: queues); it stops sooner once certified or at a size limit.
JOB_HEAPS = 1000


def job_heaps(upto: int) -> int:
    """The largest heap a job given `upto` computes the quotient to: `upto` counts heap sizes 0..upto-1,
    as for every heap game's job; 0 (or 1, heap 0 alone) asks for the default, JOB_HEAPS."""
    return upto - 1 if upto > 1 else JOB_HEAPS


@dataclass(frozen=True, slots=True)
class MisereSettings:
    """Misère play's own settings (NIMBASE_LIMITS_MISERE_<FIELD>, NIMBASE_CACHE_MISERE_QUOTIENT_BYTES)."""

    live_heaps: PositiveInt = 24
    """Heaps a request computes a quotient to when none is stored (the walk stops sooner once certified,
    at a size limit or at the request's deadline)."""
    max_order: PositiveInt = 512
    """Most elements a quotient may have: past it the computation stops with a note (wild games such as
    0.3122 may have infinite quotients)."""
    max_states: PositiveInt = 50_000
    """Most elements of a candidate monoid, and states of one check, a computation may walk."""
    quotient_bytes: PositiveInt = 32 << 20
    """Bytes of quotients kept in the process (`QUOTIENTS`)."""

    def limits(self) -> Limits:
        return Limits(max_order=self.max_order, max_states=self.max_states)


#: The keeper of quotients, by game; its budget is `quotient_bytes`.
QUOTIENTS = KeeperSpec(MisereSettings, "quotient_bytes")
#: What the registry entries of the octal and Grundy families declare.
SETTINGS = SettingsDeclaration("misere", MisereSettings, keepers=(QUOTIENTS,))


@dataclass(frozen=True, slots=True)
class MisereValue(ValueRecord):
    """What a misère heap game adds to a value: the position's element of the game's misère quotient."""

    element: int
    """Misère heap games: the element of the game's misère quotient the position maps to (the product
    of its heaps' elements; 0 is the empty position), as GetStats' quotient numbers it."""


class QuotientKernel(BytesKernel):
    """What a worker runs for the family "quotient": the game's quotient to the heap its job's `upto`
    names (`job_heaps`; stopping sooner once certified, or at a size limit), stored whole."""

    family = QUOTIENT

    def __init__(self, rules: HeapRules, heaps: int = JOB_HEAPS) -> None:
        super().__init__()
        self.rules = rules
        self.heaps = heaps

    def aim(self, upto: int) -> None:
        self.heaps = job_heaps(upto)

    def make(self, progress: Callable[[int, int], None] | None = None) -> bytes:
        return compute(self.rules, self.heaps, MisereSettings().limits(), progress=progress).to_bytes()
