"""Disjunctive sums of components: the one `GameKind` implementation behind heap games and Wythoff pairs.

A position is a canonical (sorted) tuple of components; a move replaces one component by zero, one or
more components. Under normal play the sum's Grundy value is the nim-sum of its components' values
(Sprague-Grundy), so a subclass only says what one component is: how it parses and moves, and where
its Grundy value comes from. Equal components cancel in pairs, so only sizes of odd multiplicity are
looked up. Misère play has no such shortcut; subclasses that allow it say how their sums are solved.

A sum may have 100,000 components and a move list 10,000 moves, so every loop over components or
moves checks the request's deadline (`ctx.deadline`), and a move's value is found from the parent's
nim-sum and the few components the move changes, not by looking every component up again.
"""

from __future__ import annotations

import bisect
from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from engine.errors import DeadlineExceeded, LimitExceeded, NimbaseError
from engine.kind import Context, GameKind
from engine.moves import MoveTo, list_moves
from engine.positions import quote_position
from engine.records import MoveRecord
from engine.values import BestMoveResult, Outcome, Source, Value, costliest

C = TypeVar("C", bound=Any)

#: A bulk answer checks its deadline once per this many positions (each costs microseconds).
DEADLINE_EVERY = 64

#: Sums of more components than this are valued off the service's event loop, even from memory.
QUICK_COMPONENTS = 256

#: What a bulk lookup gives for each component: its Grundy value and source, or why it has none.
Found = tuple[int, Source] | Exception


def apply_move(position: tuple[C, ...], index: int, result: tuple[C, ...]) -> tuple[C, ...]:
    """The canonical position after position[index] is replaced by the components of `result`."""
    out = list(position)
    del out[index]
    for component in result:
        bisect.insort(out, component)
    return tuple(out)


def distinct(position: tuple[C, ...]) -> Iterator[tuple[int, C]]:
    """(index of first occurrence, component) for each distinct component of a canonical position."""
    for i, component in enumerate(position):
        if i == 0 or position[i - 1] != component:
            yield i, component


def odd_components(position: tuple[C, ...]) -> list[C]:
    """The components that occur an odd number of times (the others cancel under nim-sum)."""
    out: list[C] = []
    for i, component in distinct(position):
        count = 1
        while i + count < len(position) and position[i + count] == component:
            count += 1
        if count % 2:
            out.append(component)
    return out


class ComponentSum(GameKind[tuple[C, ...]]):
    """A sum of independent components; subclasses describe one component."""

    misere: bool = False

    # -- what a subclass says about one component ----------------------------------------------

    @abstractmethod
    def options(self, component: C) -> Iterator[tuple[C, ...]]:
        """What one move can leave in place of `component` (lazily: there may be 2^63 of them)."""

    @abstractmethod
    def option_count(self, component: C) -> int:
        """How many options `component` has (to bound enumeration without enumerating)."""

    @abstractmethod
    def move_text(self, component: C, result: tuple[C, ...]) -> str:
        """The text of the move from `component` to `result`, e.g. `"12 -> 8"`."""

    def move_record(self, component: C, result: tuple[C, ...]) -> MoveRecord | None:
        """What the kind adds to the move beside its text (engine.records), if anything."""
        return None

    @abstractmethod
    def component_value(self, component: C, ctx: Context) -> tuple[int, Source]:
        """The Grundy value of one component and its source; LimitExceeded where it is beyond reach."""

    def component_values(self, components: list[C], ctx: Context) -> dict[C, Found]:
        """Values of many distinct components; subclasses with tables look them up in bulk."""
        out: dict[C, Found] = {}
        for component in components:
            ctx.deadline.check(lambda: f"looking up {len(components)} components of {self.game_id!r}")
            try:
                out[component] = self.component_value(component, ctx)
            except NimbaseError as error:
                out[component] = error
        return out

    def component_is_p(self, component: C) -> bool | None:
        """Whether one component is a P-position by a closed form, None where none is known."""
        return None

    def targets(
        self, component: C, value: int | None, target: int, value_of: Callable[[C], int]
    ) -> Iterator[tuple[C, ...]]:
        """Options of `component` (of Grundy value `value`, None if unknown) whose value is `target`;
        `value_of` gives the value of any component (LimitExceeded where it cannot)."""
        if value is None:
            return
        for option in self.options_to_search(component):
            total = 0
            for part in option:
                total ^= value_of(part)
            if total == target:
                yield option

    def options_to_search(self, component: C) -> Iterator[tuple[C, ...]]:
        """The options `targets` tries, each once, in the order it tries them: `options` by default; a
        kind whose `options` of a large component come in an order that puts every value late overrides
        it (octal games: the splits by their smaller part)."""
        return self.options(component)

    def remoteness(self, position: tuple[C, ...], ctx: Context) -> int | None:
        """Exact remoteness where it can be found within the limits (the empty sum has 0)."""
        return 0 if not position else None

    def misere_value(self, position: tuple[C, ...], ctx: Context) -> tuple[Outcome, Source, int | None]:
        """Outcome, source and (if found) remoteness under misère play; only misère kinds have one."""
        raise NotImplementedError(f"{self.game_id!r} has no misère play")

    def misere_winning_moves(self, position: tuple[C, ...], ctx: Context) -> list[MoveTo[tuple[C, ...]]]:
        """Winning misère moves that are cheap to find (none by default)."""
        return []

    # -- the GameKind protocol ------------------------------------------------------------------

    def value(self, position: tuple[C, ...], ctx: Context) -> Value:
        if len(position) > QUICK_COMPONENTS:
            ctx.tables.may_compute()  # a long sum is not worth holding the event loop for
        return self._value(position, ctx, remoteness=True)

    def values(self, texts: Sequence[str], ctx: Context) -> list[Value | NimbaseError]:
        """Parse every item, look every component up once in bulk, then combine per position."""
        parsed: list[tuple[C, ...] | NimbaseError] = []
        for text in texts:
            try:
                parsed.append(self.parse(text))
            except NimbaseError as error:
                parsed.append(error)
        found: dict[C, Found] = {}
        if not self.misere:
            wanted = sorted({c for item in parsed if not isinstance(item, NimbaseError) for c in item})
            found = self.component_values(wanted, ctx)
        out: list[Value | NimbaseError] = []
        late: DeadlineExceeded | None = None
        for index, item in enumerate(parsed):
            if isinstance(item, NimbaseError):
                out.append(item)
                continue
            if late is None and index % DEADLINE_EVERY == 0:
                try:  # past the deadline each remaining item gets the error in its slot, without work
                    ctx.deadline.check(lambda: f"answering {len(parsed)} positions of {self.game_id!r}")
                except DeadlineExceeded as error:
                    late = error
            if late is not None:
                out.append(late)
                continue
            if self.misere:
                out.append(_guarded(self._value, item, ctx, False))
            else:
                out.append(_guarded(self._combine, item, found, ctx, False))
        return out

    def best_moves(self, position: tuple[C, ...], limit: int | None, ctx: Context) -> BestMoveResult:
        if self.misere:
            return list_moves(
                self._value(position, ctx, remoteness=True),
                self.count_moves(position),
                lambda: self.every_move(position),
                lambda: self.winning_moves(position, ctx, limit or 1),
                lambda child, ranked: self._value(child, ctx, remoteness=ranked),
                limit,
                ctx.limits,
                ctx.deadline,
            )
        children = _Children(self, position, ctx)
        return list_moves(
            children.parent(),
            self.count_moves(position),
            children.every,
            lambda: children.winning(limit or 1),
            children.value,
            limit,
            ctx.limits,
            ctx.deadline,
        )

    # -- sums -----------------------------------------------------------------------------------

    def count_moves(self, position: tuple[C, ...]) -> int:
        """How many moves `every_move` yields, without enumerating them."""
        return sum(self.option_count(c) for _, c in distinct(position))

    def every_move(self, position: tuple[C, ...]) -> Iterator[MoveTo[tuple[C, ...]]]:
        """Every move, lazily: distinct components in order, each in `options` order (moves on equal
        components lead to the same position, so each is listed once)."""
        for index, component in distinct(position):
            for option in self.options(component):
                yield self.move(position, index, option)

    def move(self, position: tuple[C, ...], index: int, result: tuple[C, ...]) -> MoveTo[tuple[C, ...]]:
        """The move replacing position[index] by `result`: text, record and the position reached."""
        component = position[index]
        return (
            self.move_text(component, result),
            self.move_record(component, result),
            apply_move(position, index, result),
        )

    def winning_moves(self, position: tuple[C, ...], ctx: Context, limit: int) -> list[MoveTo[tuple[C, ...]]]:
        """Moves to a P-position that can be found without enumerating every move (at most `limit`)."""
        if self.misere:
            return self.misere_winning_moves(position, ctx)
        return [
            self.move(position, index, result) for index, result in self.winning_results(position, ctx, limit)
        ]

    def winning_results(
        self, position: tuple[C, ...], ctx: Context, limit: int
    ) -> list[tuple[int, tuple[C, ...]]]:
        """Normal play: (index, what position[index] becomes) of the winning moves `winning_moves` finds."""
        known: dict[C, int | None] = {}
        for _, component in distinct(position):
            ctx.deadline.check(lambda: f"looking for winning moves of {self._quote(position)}")
            try:
                known[component] = self.component_value(component, ctx)[0]
            except LimitExceeded:
                known[component] = None

        def value_of(component: C) -> int:
            ctx.deadline.check(lambda: f"looking for winning moves of {self._quote(position)}")
            value = known.get(component)
            return value if value is not None else self.component_value(component, ctx)[0]

        unknown = [i for i, c in enumerate(position) if known[c] is None]
        if not unknown:
            return self.zeroing_results(position, value_of, limit)
        total = 0
        for component in position:
            total ^= known[component] or 0
        if len(unknown) > 1 or total != 0:
            return []
        # The rest sums to 0: win by moving the one unknown (N-)component to a P-position.
        index = unknown[0]
        return [(index, r) for r in self.targets(position[index], None, 0, value_of)]

    def zeroing_moves(
        self, position: tuple[C, ...], value_of: Callable[[C], int], limit: int
    ) -> list[MoveTo[tuple[C, ...]]]:
        """Normal-play moves to a sum of nim-sum 0, given each component's value (at most `limit`)."""
        return [
            self.move(position, index, result)
            for index, result in self.zeroing_results(position, value_of, limit)
        ]

    def zeroing_results(
        self, position: tuple[C, ...], value_of: Callable[[C], int], limit: int
    ) -> list[tuple[int, tuple[C, ...]]]:
        """(index, what position[index] becomes) of the moves `zeroing_moves` lists."""
        total = 0
        for component in position:
            total ^= value_of(component)
        found: list[tuple[int, tuple[C, ...]]] = []
        if total == 0:
            return found
        for index, component in distinct(position):
            value = value_of(component)
            for result in self.targets(component, value, value ^ total, value_of):
                found.append((index, result))
                if len(found) >= limit:
                    return found
        return found

    def _value(self, position: tuple[C, ...], ctx: Context, remoteness: bool) -> Value:
        if self.misere:
            outcome, source, known = self.misere_value(position, ctx)
            if known is None and remoteness:
                known = self.remoteness(position, ctx)
            return Value(self.game_id, self.format(position), outcome, None, known, source)
        if len(position) == 1:  # the commonest request, a single component: its value is the sum's
            component = position[0]
            one = self._one(component, ctx)
            if isinstance(one, Exception):  # `_combine` says what is known without it
                return self._combine(position, {component: one}, ctx, remoteness, [component])
            grundy, source = one
            known = self.remoteness(position, ctx) if remoteness else None
            return Value(
                self.game_id, self.format(position), "P" if grundy == 0 else "N", grundy, known, source
            )
        found: dict[C, Found] = {}
        odd = odd_components(position)
        self._look_up(odd, found, ctx)
        return self._combine(position, found, ctx, remoteness, odd)

    def _look_up(self, components: list[C], found: dict[C, Found], ctx: Context) -> None:
        """Add to `found` the components it lacks (there may be 100,000: the deadline is checked)."""
        for component in components:
            if component not in found:
                ctx.deadline.check(
                    lambda: f"looking up the {len(components)} components of a {self.game_id!r} sum"
                )
                found[component] = self._one(component, ctx)

    def _quote(self, position: tuple[C, ...]) -> str:
        """A position as error messages quote it (shortened when long)."""
        return f"{self.game_id!r} position {quote_position(self.format(position))}"

    def _one(self, component: C, ctx: Context) -> Found:
        try:
            return self.component_value(component, ctx)
        except LimitExceeded as error:
            return error

    def _combine(
        self,
        position: tuple[C, ...],
        found: dict[C, Found],
        ctx: Context,
        remoteness: bool,
        odd: list[C] | None = None,
    ) -> Value:
        """The normal-play value of a sum from its components' values (an error if one is missing);
        `odd` is `odd_components(position)` where the caller has it already."""
        total = 0
        sources: list[Source] = []
        unknown: list[tuple[C, Exception]] = []
        for component in odd_components(position) if odd is None else odd:
            value = found[component]
            if isinstance(value, Exception):
                unknown.append((component, value))
                continue
            total ^= value[0]
            sources.append(value[1])
        text = self.format(position)
        if unknown:
            component, error = unknown[0]
            if (
                len(unknown) == 1
                and total == 0
                and isinstance(error, LimitExceeded)
                and self.component_is_p(component) is False
            ):
                # A closed form says the one unknown component is N and the rest sums to 0, so the
                # whole sum is N (its exact Grundy value is not known).
                return Value(self.game_id, text, "N", None, None, costliest([*sources, "formula"]))
            raise error
        known = self.remoteness(position, ctx) if remoteness else (0 if not position else None)
        return Value(self.game_id, text, "P" if total == 0 else "N", total, known, costliest(sources))


class _Children(Generic[C]):
    """The moves of one normal-play sum, each valued from the parent's nim-sum and source counts.

    A move replaces one component by a few: the child's nim-sum is the parent's with those toggled,
    and its source the costliest left among its odd components. Moves are made lazily, one at a time,
    and each is valued right after it is made (as `list_moves` does), so the last one made says what
    changed; any other child, or one with a component of unknown value, is valued in full.
    """

    def __init__(self, kind: ComponentSum[C], position: tuple[C, ...], ctx: Context) -> None:
        self.kind = kind
        self.position = position
        self.ctx = ctx
        self.odd = odd_components(position)
        self.found: dict[C, Found] = {}
        kind._look_up(self.odd, self.found, ctx)
        self.odd_set = set(self.odd)
        self.total: int | None = 0
        self.sources: dict[Source, int] = {}
        for component in self.odd:
            known = self.found[component]
            if isinstance(known, Exception):
                self.total = None
                break
            self.total ^= known[0]
            self.sources[known[1]] = self.sources.get(known[1], 0) + 1
        self.last: tuple[tuple[C, ...], C, tuple[C, ...]] | None = None

    def parent(self) -> Value:
        return self.kind._combine(self.position, self.found, self.ctx, True, self.odd)

    def _made(self, index: int, result: tuple[C, ...]) -> MoveTo[tuple[C, ...]]:
        move = self.kind.move(self.position, index, result)
        self.last = (move[2], self.position[index], result)
        return move

    def every(self) -> Iterator[MoveTo[tuple[C, ...]]]:
        """`every_move`, remembering what each move changes."""
        for index, component in distinct(self.position):
            for result in self.kind.options(component):
                yield self._made(index, result)

    def winning(self, limit: int) -> Iterator[MoveTo[tuple[C, ...]]]:
        """`winning_moves`, remembering what each move changes."""
        for index, result in self.kind.winning_results(self.position, self.ctx, limit):
            yield self._made(index, result)

    def value(self, child: tuple[C, ...], ranked: bool) -> Value:
        """The value of a position one move away (with its remoteness when the list is `ranked`)."""
        last = self.last
        if last is None or last[0] is not child or self.total is None:
            return self._in_full(child, ranked)
        _, component, result = last
        flips: dict[C, int] = {component: 1}
        for part in result:
            flips[part] = flips.get(part, 0) ^ 1
        total = self.total
        sources = dict(self.sources)
        for part, flip in flips.items():
            if not flip:
                continue
            if part not in self.found:
                self.found[part] = self.kind._one(part, self.ctx)
            known = self.found[part]
            if isinstance(known, Exception):
                return self._in_full(child, ranked)
            total ^= known[0]
            sources[known[1]] = sources.get(known[1], 0) + (-1 if part in self.odd_set else 1)
        kind = self.kind
        remoteness = kind.remoteness(child, self.ctx) if ranked else (0 if not child else None)
        source = costliest([s for s, count in sources.items() if count > 0])
        return Value(kind.game_id, kind.format(child), "P" if total == 0 else "N", total, remoteness, source)

    def _in_full(self, child: tuple[C, ...], ranked: bool) -> Value:
        odd = odd_components(child)
        self.kind._look_up(odd, self.found, self.ctx)
        return self.kind._combine(child, self.found, self.ctx, ranked, odd)


def _guarded(answer: Any, *args: Any) -> Value | NimbaseError:
    """The answer, or the error that is its answer (one bad item never fails a whole batch)."""
    try:
        result: Value = answer(*args)
    except NimbaseError as error:
        return error
    return result
