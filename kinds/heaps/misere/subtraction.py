"""`subtraction:S:misere` on the quotient machinery: sums of two or more heaps are answered through the
game's misère quotient where it covers them; single heaps, sequences and everything else stay as the
subtraction kind answers them (its misère table and period), and its bounded search is the fallback."""

from __future__ import annotations

from engine.kind import Context, SequenceKernel
from engine.precompute import JobPlan
from engine.values import Outcome, Source, Value
from kinds.heaps.base import Heaps
from kinds.heaps.misere.kind import MisereHeapGame
from kinds.heaps.misere.stored import QUOTIENT, MisereValue
from kinds.heaps.subtraction import SubtractionGame

#: Subtraction sets whose largest element is above this have no quotient computed live (its periodicity
#: criterion needs heaps past the largest element): their sums are searched as before.
MAX_QUOTIENT_ELEMENT = 16


class MisereSubtraction(SubtractionGame):
    """A misère subtraction game whose sums go through its misère quotient where one covers them."""

    def __init__(self, moves: tuple[int, ...] | set[int]) -> None:
        super().__init__(moves, misere=True)
        self.quotiented = MisereHeapGame(SubtractionGame(self.moves), max(self.moves))

    def _element(self, position: Heaps, ctx: Context) -> tuple[int, Source, bool] | None:
        if len(position) < 2 or self.moves[-1] > MAX_QUOTIENT_ELEMENT:
            return None
        found = self.quotiented.element(position, ctx)
        if found is None:
            return None
        z, source, q = found
        return z, source, q.p_list[z]

    def misere_value(self, position: Heaps, ctx: Context) -> tuple[Outcome, Source, int | None]:
        found = self._element(position, ctx)
        if found is None:
            return super().misere_value(position, ctx)
        return ("P" if found[2] else "N"), found[1], None

    def _value(self, position: Heaps, ctx: Context, remoteness: bool) -> Value:
        value = super()._value(position, ctx, remoteness)
        found = self._element(position, ctx)
        return value if found is None else value._replace(kind=MisereValue(found[0]))

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
        if family == QUOTIENT:
            return self.quotiented.plan_job(upto, fill, family)
        return super().plan_job(upto, fill, family)

    def kernel_for(self, family: str) -> SequenceKernel | None:
        if family == QUOTIENT:
            return self.quotiented.kernel_for(family)
        return super().kernel_for(family)
