"""`octal:CODE:misere` and `grundy:misere`: misère sums of heaps answered through the game's misère quotient.

A sum is a P-position exactly when the product of its heaps' elements lies in the quotient's P-portion
(Plambeck and Siegel), so a value costs one table lookup per heap. The quotient comes from the keeper
(`stored.QUOTIENTS`): kept, else stored by a worker's job (family "quotient"), else computed for the
request up to `MisereSettings.live_heaps` heaps. A heap the quotient does not cover (beyond an
uncertified bound) falls back to the bounded search of engine.search, and past its budget to the refusal
naming the job that stores the quotient.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

from engine.errors import InvalidArgument, LimitExceeded, NimbaseError, UnknownFamily
from engine.keep import Kept
from engine.kind import Context, SequenceKernel
from engine.moves import MoveTo
from engine.positions import quote_position
from engine.precompute import PROCESS_BYTES, JobPlan
from engine.search import estimate_states
from engine.stored_bytes import read_stored, words_for
from engine.values import GameInfo, Outcome, SequenceResult, Source, Value
from kinds.heaps.base import HEAP, HOPELESS, HeapGame, Heaps
from kinds.heaps.misere.batch import OK, parse_fold
from kinds.heaps.misere.construct import Construction, HeapRules, OutOfTime, StoppedInTime
from kinds.heaps.misere.fold import fold
from kinds.heaps.misere.monoid import Quotient
from kinds.heaps.misere.stored import (
    QUOTIENT,
    QUOTIENTS,
    MisereSettings,
    MisereValue,
    QuotientKernel,
    job_heaps,
)
from kinds.heaps.misere.tame import tame_genus

#: The suffix of a misère game id.
SUFFIX = ":misere"
#: What a walk stopped for time is kept as, beside its game's quotient (in the same keeper).
WALK = "quotient walk"
#: Largest `upto` a quotient job may ask for: the walk over heaps is quadratic in them, and a quotient
#: that is not certified by then is beyond any size limit anyway.
MAX_QUOTIENT_UPTO = 100_000
#: A batch is parsed in parts of at most this many positions and characters, the deadline checked
#: between them. A part of 96 KiB keeps its buffers (the joined text, its bytes, the kernel's output)
#: below the mmap threshold a server fixes (glibc's, 128 KiB: service.malloc), so they are carved from
#: the heap and used again part after part: a part of 1 MiB was mapped afresh and faulted in, page by
#: page, each time (1,000-heap sums under the server's malloc settings: 37 us a value; 14 in parts of
#: 96 KiB, with the trim threshold service.malloc sets).
PART_POSITIONS = 4096
PART_CHARS = 96 << 10


def _parts(texts: Sequence[str]) -> Iterator[tuple[int, int]]:
    """(start, stop) of consecutive parts of `texts` within PART_POSITIONS and PART_CHARS (a longer text
    makes a part of its own)."""
    start = 0
    chars = 0
    for i, text in enumerate(texts):
        if i > start and (i - start >= PART_POSITIONS or chars + len(text) > PART_CHARS):
            yield start, i
            start, chars = i, 0
        chars += len(text)
    if start < len(texts):
        yield start, len(texts)


#: Seconds at least a request keeps, once its quotient's walk is given up, to answer from what it made.
ANSWER_SECONDS = 0.05


class MisereHeapGame(HeapGame):
    """The misère form of a heap game whose moves the construction can read (octal games, Grundy's)."""

    misere = True

    def __init__(self, base: HeapGame, t: int | None) -> None:
        self.base = base
        self.game_id = base.game_id + SUFFIX
        self.splits = base.splits
        self.rules = HeapRules(self.game_id, base.heap_options, t, base.splits)

    def __repr__(self) -> str:
        return f"MisereHeapGame({self.base.game_id!r})"

    def info(self) -> GameInfo:
        info = self.base.info()
        return GameInfo(
            id=self.game_id,
            name=f"{info.name} (misère)",
            description=info.description.replace("normal play", "misère play (the last player to move loses)")
            + " Answered through the game's misère quotient (Plambeck and Siegel).",
            position_syntax=info.position_syntax,
            examples=info.examples,
        )

    def heap_options(self, n: int) -> Iterator[Heaps]:
        return self.base.heap_options(n)

    def option_count(self, component: int) -> int:
        return self.base.option_count(component)

    def single_heap_remoteness(self, n: int, ctx: Context) -> int | None:
        return None

    # -- the quotient ----------------------------------------------------------------------------

    def quotient(self, ctx: Context) -> Kept[Quotient]:
        """The game's quotient: kept, stored, or computed now (within the request's deadline).

        A computation that has spent half the request's time stops before its next heap (which would
        likely run past the deadline: a wild game's heaps grow dearer), and one still in a heap near the
        deadline stops there; either answers this request from the heaps done, rather than run out of
        time with nothing. That shorter quotient is not kept, so a request with a short deadline cannot
        leave the next ones a quotient shorter than theirs makes; the job storing the whole one is queued
        where the service queues jobs by itself, so later requests read it instead of walking again.
        Meanwhile the walk itself is kept (`construct.Construction`): the next request goes on from the
        heaps done instead of walking them again, and does not start a heap an earlier request was
        stopped in part way after more time than it has itself (it answers at once instead)."""
        settings = ctx.settings_for(MisereSettings)
        keeper = ctx.kept.keeper(QUOTIENTS)
        walk_key = (WALK, self.game_id)

        def make() -> Quotient:
            started = time.monotonic()
            halfway = started + (ctx.deadline.at - started) / 2
            # A heap still under way this close to the deadline is given up, leaving time to answer.
            last_call = ctx.deadline.at - max(ANSWER_SECONDS, (ctx.deadline.at - started) / 10)

            def check() -> None:
                ctx.deadline.check(lambda: f"computing the misère quotient of {self.game_id!r}")
                if time.monotonic() >= last_call:
                    raise OutOfTime

            kept = keeper.peek(walk_key)  # a walk an earlier request stopped (made under the same lock)
            walk = kept.value if kept is not None else None
            if not isinstance(walk, Construction):
                walk = Construction(self.rules, settings.live_heaps, settings.limits())
            try:
                quotient = walk.run(
                    check=check, enough=lambda: time.monotonic() >= halfway, room=last_call - started
                )
            except Exception:
                keeper.keep(walk_key, walk, "live", walk.weight())
                raise
            keeper.discard(walk_key)
            return quotient

        try:
            return ctx.kept.keeper(QUOTIENTS).get(
                (QUOTIENT, self.game_id),
                ctx.deadline,
                what=f"computing the misère quotient of {self.game_id!r}",
                read=lambda: read_stored(
                    self.game_id,
                    QUOTIENT,
                    ctx,
                    "a stored quotient",
                    lambda b: Quotient.from_bytes(b, self.game_id),
                ),
                make=make,
                weigh=Quotient.weight,
                before_make=ctx.tables.may_compute,
            )
        except StoppedInTime as stopped:
            ctx.tables.want_stored(self.game_id, QUOTIENT)  # a worker's job makes it whole, once
            return Kept(stopped.quotient, "live", Quotient.weight(stopped.quotient))

    def element(self, position: Heaps, ctx: Context) -> tuple[int, Source, Quotient] | None:
        """The position's element, where it came from and the quotient, or None where a heap is past it."""
        kept = self.quotient(ctx)
        q = kept.value
        if position and position[-1] > q.bound:  # heaps are sorted: the last is the largest
            if q.period is None:
                return None
            return fold(q, position), "period", q
        return fold(q, position), kept.source, q

    # -- values ----------------------------------------------------------------------------------

    def misere_value(self, position: Heaps, ctx: Context) -> tuple[Outcome, Source, int | None]:
        found = self.element(position, ctx)
        if found is None:
            return self.searched(position, ctx)
        z, source, q = found
        return ("P" if q.p_list[z] else "N"), source, (0 if not position else None)

    def searched(self, position: Heaps, ctx: Context) -> tuple[Outcome, Source, int | None]:
        """A sum past the quotient's bound: the bounded search, else the refusal naming the job that
        stores the quotient."""
        budget = ctx.limits.search_states
        estimate = estimate_states(self, position)
        try:
            if estimate > HOPELESS * budget:
                raise LimitExceeded(
                    f"solving {self.game_id!r} position {quote_position(self.format(position))} would visit "
                    f"about {estimate:.3g} positions, beyond the live search budget of {budget}, and its "
                    "misère quotient does not reach its largest heap"
                )
            result = self.search(position, budget, ctx)
        except LimitExceeded as error:
            raise ctx.tables.refusal(self.game_id, QUOTIENT, str(error)) from None
        return result.outcome, "live", result.remoteness

    def _value(self, position: Heaps, ctx: Context, remoteness: bool) -> Value:
        found = self.element(position, ctx)
        if found is None:
            searched, how, steps = self.searched(position, ctx)
            return Value(self.game_id, self.format(position), searched, None, steps, how)
        z, source, q = found
        known = self.remoteness(position, ctx) if remoteness else (0 if not position else None)
        outcome: Outcome = "P" if q.p_list[z] else "N"
        return Value(self.game_id, self.format(position), outcome, None, known, source, MisereValue(z))

    def values(self, texts: Sequence[str], ctx: Context) -> list[Value | NimbaseError]:
        """Many sums: the quotient found once, the texts parsed and folded in one pass (`batch`), part by
        part with the deadline checked between them; a text the pass leaves alone (bad, or past the
        quotient's bound) goes the per-position way and gets its own value or error."""
        kept = self.quotient(ctx)
        q = kept.value
        records = [MisereValue(x) for x in range(q.order)]
        p = q.p_list
        out: list[Value | NimbaseError] = []
        for start, stop in _parts(texts):
            try:
                ctx.deadline.check(lambda: f"answering {len(texts)} positions of {self.game_id!r}")
            except NimbaseError as error:
                out.extend([error] * (len(texts) - start))
                return out
            folded = parse_fold(q, texts[start:stop])
            status, element, top = folded.status.tolist(), folded.element.tolist(), folded.top.tolist()
            for i, position in enumerate(folded.positions):
                if status[i] != OK or position is None:
                    out.append(self._parsed_alone(texts[start + i], q, kept.source, ctx))
                    continue
                z = element[i]
                source: Source = "period" if top[i] > q.bound else kept.source
                outcome: Outcome = "P" if p[z] else "N"
                out.append(
                    Value(
                        self.game_id, position, outcome, None, 0 if not position else None, source, records[z]
                    )
                )
        return out

    def _parsed_alone(self, text: str, q: Quotient, source: Source, ctx: Context) -> Value | NimbaseError:
        """One sum of a batch the one-pass parse left alone: its value, or its error quoting it."""
        try:
            position = self.parse(text)
            if position and not q.covers(position[-1]):
                return self._value(position, ctx, False)
            z = fold(q, position)
        except NimbaseError as error:
            return error
        if position and position[-1] > q.bound:
            source = "period"
        outcome: Outcome = "P" if q.p_list[z] else "N"
        known = None if position else 0
        return Value(self.game_id, self.format(position), outcome, None, known, source, MisereValue(z))

    def remoteness(self, position: Heaps, ctx: Context) -> int | None:
        if not position:
            return 0
        if len(position) > 6:  # a search is hopeless on long sums: remoteness is left out
            return None
        return super().remoteness(position, ctx)

    def misere_winning_moves(self, position: Heaps, ctx: Context) -> list[MoveTo[Heaps]]:
        """Every move to a P-position, from the products of the other heaps (prefix and suffix products)."""
        q = self.quotient(ctx).value
        if position and not q.covers(position[-1]):
            return []
        elements = [q.element_of(h) for h in position]
        prefix = [0]
        for x in elements:
            prefix.append(int(q.table[prefix[-1], x]))
        suffix = [0] * (len(elements) + 1)
        for i in range(len(elements) - 1, -1, -1):
            suffix[i] = int(q.table[elements[i], suffix[i + 1]])
        found: list[MoveTo[Heaps]] = []
        for i, heap in enumerate(position):
            if i and position[i - 1] == heap:
                continue
            ctx.deadline.check(
                lambda: f"looking for winning moves of {quote_position(self.format(position))}"
            )
            rest = int(q.table[prefix[i], suffix[i + 1]])
            for option in self.heap_options(heap):
                if not all(q.covers(h) for h in option):
                    continue
                z = rest
                for h in option:
                    z = int(q.table[z, q.element_of(h)])
                if q.p[z]:
                    found.append(self.move(position, i, option))
        return found

    # -- whole-game answers ------------------------------------------------------------------------

    def sequence(self, family: str | None, start: int, stop: int, ctx: Context) -> SequenceResult:
        """The pretending function: each heap's element of the quotient (family "heap")."""
        family = family or HEAP
        if family != HEAP:
            raise UnknownFamily(f"{self.game_id!r} has no sequence family {family!r}; its family is 'heap'")
        kept = self.quotient(ctx)
        q = kept.value
        if stop > q.bound + 1 and q.period is None:
            raise ctx.tables.refusal(
                self.game_id,
                QUOTIENT,
                f"heaps {start}..{stop - 1} of {self.game_id!r}: its misère quotient covers heaps up to "
                f"{q.bound}" + (f" ({q.note})" if q.note else ""),
            )
        values = [q.element_of(n) for n in range(start, stop)]
        period = None
        if q.period is not None:
            from engine.periods import Period

            period = Period(q.period.preperiod, q.period.period, 0, True)
        source: Source = kept.source if stop <= q.bound + 1 else "period"
        return SequenceResult(self.game_id, family, start, stop, values, period, source)

    def stats(self, ctx: Context) -> dict[str, object]:
        """The quotient: order, P-portion, presentation, heap bound, certified; tameness and genus."""
        kept = self.quotient(ctx)
        q = kept.value
        genus = tame_genus(q, self.base)
        return {
            "game": self.game_id,
            "source": kept.source,
            "computed_upto": q.bound + 1,
            "quotient": {
                "order": q.order,
                "p_portion": q.p_portion(),
                "presentation": q.presentation(),
                "heap_bound": q.bound,
                "certified": q.certified,
                "period": None
                if q.period is None
                else {"preperiod": q.period.preperiod, "period": q.period.period},
                "pretending_function": q.phi.tolist(),
                "table": q.table.tolist() if q.order <= 64 else None,
                "note": q.note,
            },
            "tame": genus is not None,
            "genus": genus,
            "p_positions": [n for n in range(1, q.bound + 1) if q.p[int(q.phi[n])]],
        }

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
        """The job storing the quotient whole (family "quotient"): it computes the quotient of heaps
        0..upto-1 (`upto` counts heap sizes, as for every heap game; 0, the job a refusal queues, asks for
        `stored.JOB_HEAPS`), stopping sooner once certified or at a size limit. Its progress counts heaps.
        A quotient stored whole is not computed again (engine.precompute: an object made whole)."""
        if family not in (None, QUOTIENT):
            raise UnknownFamily(f"{self.game_id!r} stores only family {QUOTIENT!r}, not {family!r}")
        if not 0 <= upto <= MAX_QUOTIENT_UPTO:
            raise InvalidArgument(
                f"upto {upto} is outside 0..{MAX_QUOTIENT_UPTO} (the heaps a misère quotient job computes)"
            )
        heaps = job_heaps(upto)
        settings = MisereSettings()
        table = 64 * settings.max_order**2 + 16 * heaps
        memory = PROCESS_BYTES + 8 * words_for(table)
        # values: the heap sizes 0..heaps, which the worker hands back to the kernel (`QuotientKernel.aim`)
        return JobPlan(self.game_id, QUOTIENT, heaps + 1, True, memory_bytes=memory)

    def kernel_for(self, family: str) -> SequenceKernel | None:
        return QuotientKernel(self.rules) if family == QUOTIENT else None
