"""Heap games: sums of heaps whose single-heap values come from a closed form or a sequence kernel.

A move replaces one heap by zero, one or more heaps. Normal-play values of sums come from single-heap
Grundy values by nim-sum, so the per-family knowledge is: how a single heap moves, whether a closed
form gives its value, and which kernel computes the sequence of single-heap values. Everything else
(values of sums, moves, sequences, statistics, precompute plans) is shared here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from engine.component_sum import ComponentSum, Found
from engine.errors import InvalidArgument, InvalidPosition, LimitExceeded, NotApplicable, UnknownFamily
from engine.kind import Context, SequenceDefaults, SequenceKernel
from engine.moves import MoveTo
from engine.periods import Period
from engine.positions import MAX_HEAP, MAX_HEAPS, Heaps, parse_heaps, quote_position
from engine.precompute import MAX_UPTO, JobPlan
from engine.records import MoveRecord
from engine.search import SearchResult, estimate_states, solve
from engine.values import GameInfo, Outcome, SequenceResult, Source
from kinds.heaps import stats as heap_stats
from kinds.heaps.stats import SummarisesHeaps

__all__ = ["MAX_HEAP", "MAX_HEAPS", "GameInfo", "HeapGame", "Heaps", "SequenceKernel"]

#: The family of single-heap values g(n).
HEAP = "heap"
#: A misère search whose cheap upper bound exceeds its budget this many times over is refused at once.
HOPELESS = 50


@dataclass(frozen=True, slots=True)
class HeapMove(MoveRecord):
    """A move of a heap game (nim, subtraction, octal and Grundy's game): the heap and what it leaves."""

    heap: int
    """Heap games: the size of the heap moved in."""
    to: tuple[int, ...]
    """Heap games: the heaps it leaves ([] when the heap vanishes, two when it splits)."""


class HeapGame(ComponentSum[int], SequenceDefaults):
    """One rule set (parameters included) of a heap game family; the single-heap sequence's formula and
    kernel, where it has them, are its `SequenceDefaults` overridden."""

    #: Canonical game id, e.g. "subtraction:1,3,4:misere".
    game_id: str
    #: The family of the sequence the tables answer for it (engine.kind.SequenceSource): single heaps.
    family: str = HEAP
    misere: bool = False
    #: True when a move may leave two or more heaps (octal games, Grundy's game): search bounds
    #: then count partitions instead of shrinking heaps.
    splits: bool = False
    #: Most values worth computing live for this game (None: the service's bound, NIMBASE_LIMITS_LIVE_VALUES,
    #: applies; within it, each request's deadline stops live work by the kernel's measured speed).
    live_limit: int | None = None

    # -- what each family says --------------------------------------------------------------------

    def heap_options(self, n: int) -> Iterator[Heaps]:
        """The heaps one move can leave in place of a heap of size n (each sorted, zeros dropped).

        Every heap game has finitely many options per heap, but for Nim a heap of 2^63-1 has that
        many: callers iterate lazily and stop at their own limits.
        """
        raise NotImplementedError

    # -- one component: a heap --------------------------------------------------------------------

    def parse(self, text: str) -> Heaps:
        return parse_heaps(text)

    def format(self, position: Heaps) -> str:
        return " ".join(map(str, position))

    def options(self, component: int) -> Iterator[Heaps]:
        return self.heap_options(component)

    def option_count(self, component: int) -> int:
        return sum(1 for _ in self.heap_options(component))

    def move_text(self, component: int, result: Heaps) -> str:
        """`n -> a`, `n -> a+b` (a split) or `n -> 0` (the heap vanishes)."""
        return f"{component} -> {'+'.join(map(str, result)) if result else 0}"

    def move_record(self, component: int, result: Heaps) -> HeapMove:
        return HeapMove(component, tuple(result))

    def component_value(self, component: int, ctx: Context) -> tuple[int, Source]:
        return ctx.tables.value(self, component, ctx.deadline.at)

    def component_values(self, components: list[int], ctx: Context) -> dict[int, Found]:
        return ctx.tables.lookup_many(self, components, ctx.deadline.at)

    def columnar(self, heaps: NDArray[np.uint64], ctx: Context) -> NDArray[np.int64]:
        """Single-heap values straight from the tables, as arrays. Normal play only: misère Grundy
        values are not what the route promises (the grundy of a misère game is absent)."""
        if self.misere:
            raise NotApplicable(
                f"{self.game_id!r} is played misère: columnar lookups answer normal-play Grundy values "
                "only (use BatchGetValues for its outcomes)"
            )
        if len(heaps) and heaps.max() > MAX_HEAP:
            index = int(np.argmax(heaps > MAX_HEAP))
            raise InvalidPosition(
                f"heap {int(heaps[index])} (at index {index}) is above the limit of {MAX_HEAP} (2^63-1)"
            )
        # Each heap below 2^63 has the same bits as an int64: a view, not a copy of a million of them.
        signed = heaps.view(np.int64) if heaps.dtype == np.uint64 else heaps.astype(np.int64)
        return ctx.tables.lookup_array(self, signed, ctx.deadline.at)

    def single_heap_remoteness(self, n: int, ctx: Context) -> int | None:
        """Remoteness of one heap from a pass over the sequence, where the kernel has one."""
        return ctx.tables.remoteness(self, n, ctx.deadline.at)

    def remoteness(self, position: Heaps, ctx: Context) -> int | None:
        if not position:
            return 0
        if len(position) == 1:
            known = self.single_heap_remoteness(position[0], ctx)
            if known is not None:
                return known
        estimate = estimate_states(self, position)
        if estimate > ctx.limits.remoteness_states:
            return None
        solved = ctx.memo.peek(("solve", self.game_id, position))
        if isinstance(solved, SearchResult):
            return solved.remoteness
        # A search costs about its states times the moves of each: that is what the request pays.
        if not ctx.allowance.spend(estimate * (1 + self.count_moves(position))):
            return None  # this request has searched enough: the rest go without remoteness
        try:
            return self.search(position, ctx.limits.remoteness_states, ctx).remoteness
        except LimitExceeded:
            return None

    def search(self, position: Heaps, budget: int, ctx: Context) -> SearchResult:
        """A bounded search of the sum, its answer kept so a repeated question costs nothing."""

        def run() -> SearchResult:
            ctx.tables.may_compute()
            return solve(self, position, max_states=budget, deadline=ctx.deadline)

        return ctx.memo.get_or_compute(("solve", self.game_id, position), run)

    def misere_value(self, position: Heaps, ctx: Context) -> tuple[Outcome, Source, int | None]:
        """Single heaps from the misère sequence; sums by bounded search (refused at once if hopeless)."""
        if not position:
            return "N", "formula", 0
        if len(position) == 1:
            value, source = ctx.tables.value(self, position[0], ctx.deadline.at)
            return ("P" if value == 0 else "N"), source, None
        budget = ctx.limits.search_states
        estimate = estimate_states(self, position)
        if estimate > HOPELESS * budget:
            raise LimitExceeded(
                f"solving {self.game_id!r} position {quote_position(self.format(position))} would visit "
                f"about {estimate:.3g} positions, beyond the live search budget of {budget}"
            )
        result = self.search(position, budget, ctx)
        return result.outcome, "live", result.remoteness

    def misere_winning_moves(self, position: Heaps, ctx: Context) -> list[MoveTo[Heaps]]:
        return []

    # -- sequences, statistics, precomputation ------------------------------------------------------

    def sequence(self, family: str | None, start: int, stop: int, ctx: Context) -> SequenceResult:
        family = family or HEAP
        if family != HEAP:
            raise UnknownFamily(f"{self.game_id!r} has no sequence family {family!r}; its family is 'heap'")
        values, source = ctx.tables.values(self, start, stop, ctx.deadline.at)
        period = self.formula_period() or ctx.tables.period(self, ctx.deadline.at, compute=True)
        return SequenceResult(self.game_id, family, start, stop, values.tolist(), period, source)

    def stats(self, ctx: Context) -> dict[str, object]:
        if self.kernel() is None:
            # A closed form answers every heap (Nim): only the empty heap is a P-position, or in
            # misère play only the heap of one.
            period = self.formula_period()
            return {
                "game": self.game_id,
                "period": period.as_dict() if period else None,
                "computed_upto": None,
                "source": "formula",
                "p_positions": [1] if self.misere else [0],
            }
        stored = ctx.tables.stored_size(self.game_id, HEAP)
        if stored:
            key = ("stored stats", self.game_id, stored)  # a stored table changes only as it grows
            summarised = ctx.memo.peek(key) or self.stored_stats(ctx)
            if isinstance(summarised, dict):
                # A copy (callers add to it), not memoised: what it is made of is kept where it was read,
                # and a memo entry counts as computing, which a process answering from storage alone may
                # not do (service.pooled: GetStats of a stored table without a hop to a live process).
                return dict(summarised)
            # Stored before its statistics were (or asked of more P-positions than they keep): computed
            # from the values once per size, within the request's deadline; the next job storing the
            # table stores them.
            return ctx.memo.get_or_compute(("stats", self.game_id, stored), lambda: self._known_stats(ctx))
        return self._known_stats(ctx)

    def stored_stats(self, ctx: Context) -> dict[str, object] | None:
        """GetStats of the stored table from the statistics its worker stored beside it (kinds.heaps.stats:
        a few kilobytes read, not the table); None where none are stored for all of it. The period is the
        certified one stored (or certified live already), else the one the values show, uncertified."""
        kernel = self.kernel()
        if not isinstance(kernel, SummarisesHeaps):
            return None
        stats = ctx.tables.stored_stats(self.game_id, HEAP)
        if stats is None or not heap_stats.readable(stats):
            return None
        figures = kernel.heap_stats(stats, ctx.limits.stats_p_positions)
        if figures is None:
            return None
        period = self.formula_period() or ctx.tables.period(self, ctx.deadline.at)
        if period is None and stats["observed"] is not None:
            period = Period(**stats["observed"])
        return {
            "game": self.game_id,
            "period": period.as_dict() if period else None,
            "source": "table",
            **figures,
        }

    def _known_stats(self, ctx: Context) -> dict[str, object]:
        values, source = ctx.tables.known_prefix(self, ctx.deadline.at)
        return self.prefix_stats(values, source, ctx)

    def prefix_stats(self, values: NDArray[np.uint32], source: Source, ctx: Context) -> dict[str, object]:
        """What GetStats reports of a computed prefix g(0..n-1)."""
        kernel = self.kernel()
        period = self.formula_period() or ctx.tables.period(self, ctx.deadline.at, compute=True)
        if period is None and kernel is not None:
            # A regularity the values show, reported as such (certified: false), never used to answer.
            period = kernel.observe(values)
        p_positions = np.flatnonzero(values == 0).tolist()
        listed = len(p_positions) <= ctx.limits.stats_p_positions
        stats: dict[str, object] = {
            "game": self.game_id,
            "period": period.as_dict() if period else None,
            "source": source,
            "computed_upto": len(values),
            "max_value": int(values.max()) if len(values) else None,
            "max_value_at": int(values.argmax()) if len(values) else None,
            "p_positions": p_positions if listed else len(p_positions),
            "p_positions_count": len(p_positions),
            "rare_mask": None,
            "rare_count": None,
            "last_rare_at": None,
        }
        rarity = kernel.rarity(values) if kernel is not None and len(values) else None
        if rarity is not None:
            stats.update(rare_mask=rarity[0], rare_count=rarity[1], last_rare_at=rarity[2])
        return stats

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
        kernel = self.kernel()
        if kernel is None:
            raise NotApplicable(f"{self.game_id!r} needs no precomputation: a closed form answers every heap")
        if family is not None and family != kernel.family:
            raise UnknownFamily(f"{self.game_id!r} stores only family {kernel.family!r}, not {family!r}")
        if not 1 <= upto <= MAX_UPTO:
            raise InvalidArgument(f"upto {upto} is outside 1..{MAX_UPTO}")
        return JobPlan(self.game_id, kernel.family, upto, fill)

    def kernel_for(self, family: str) -> SequenceKernel | None:
        kernel = self.kernel()
        return kernel if kernel is not None and kernel.family == family else None
