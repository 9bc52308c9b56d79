"""Wythoff's game (seed 004): take any number from one pile, or the same number from both.

A position is a sum of pairs `3,5 4,7`, a `ComponentSum` whose components are pairs. A single pair
is a P-position exactly when it is (floor(n*phi), floor(n*phi) + n) for some rank n; with
phi = (1 + sqrt 5) / 2,
floor(n*phi) = (n + isqrt(5 n^2)) // 2 (sqrt(5 n^2) is irrational for n > 0, so flooring it first
changes nothing), which is exact for pairs of any size. Sums need the Grundy values of the pairs:
from a precomputed table, from closed forms (g(0, b) = b, and 0 at P-pairs), or live within a bound.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from math import isqrt
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.component_sum import ComponentSum
from engine.errors import InvalidArgument, InvalidGameId, InvalidPosition, LimitExceeded, UnknownFamily
from engine.families import Family
from engine.kind import Context, GameKind, SequenceKernel
from engine.positions import (
    MAX_HEAP,
    MAX_HEAPS,
    check_length,
    parse_decimal,
    quote_position,
    quote_token,
    token_at,
)
from engine.precompute import MAX_WYTHOFF_SIDE, JobPlan
from engine.records import MoveRecord
from engine.values import GameInfo, SequenceResult, Source, costliest
from kinds.wythoff import stats as table_stats
from kinds.wythoff.kernels.table import wythoff_table
from kinds.wythoff.kernels.tile_order import TILE, TILE_VALUES
from kinds.wythoff.kernels.tiles import PAIRS, WythoffTileKernel, value_index, values_for_side

Pair = tuple[int, int]
Pairs = tuple[Pair, ...]

#: Live computation fills a square table of at most this side (about 4 s and 100 MB at 4096).
LIVE_SIDE = 2048
#: A sequence's lookups between two checks of the request's deadline.
_CHECK_EVERY = 1024

#: Anything but ASCII digits, commas and the separators of heap positions.
_BAD_CHAR = re.compile(r"[^0-9, \t\r\n]")


def parse_pairs(text: str) -> Pairs:
    """Canonical pairs of a position: each pair sorted, pairs sorted, (0, 0) dropped.

    As strict as heap positions: ASCII digits, commas and ASCII blanks only (`\\d` would take `٣` and
    str.split() would split at U+00A0), each pile bounded by 2^63-1 before anything converts it.
    """
    check_length(text)
    bad = _BAD_CHAR.search(text)
    if bad is not None:
        raise InvalidPosition(
            f"invalid Wythoff pair {quote_token(token_at(text, bad.start()))} in {quote_position(text)}: "
            "expected two non-negative decimal integers 'a,b' (ASCII digits)"
        )
    tokens = text.split()
    if len(tokens) > MAX_HEAPS:
        raise InvalidPosition(
            f"too many pairs: {len(tokens)} (at most {MAX_HEAPS}) in {quote_position(text)}"
        )
    pairs: list[Pair] = []
    for token in tokens:
        first, comma, second = token.partition(",")
        if not comma or "," in second:
            raise InvalidPosition(
                f"invalid Wythoff pair {quote_token(token)} in {quote_position(text)}: expected two "
                "non-negative integers 'a,b'"
            )
        try:
            a = parse_decimal(first, what="pile")
            b = parse_decimal(second, what="pile")
        except InvalidPosition as error:
            raise InvalidPosition(
                f"{error} in Wythoff pair {quote_token(token)} of {quote_position(text)}"
            ) from None
        if a or b:
            pairs.append((min(a, b), max(a, b)))
    return tuple(sorted(pairs))


def format_pairs(pairs: Pairs) -> str:
    """The canonical text of a position (the empty position is the empty string)."""
    return " ".join(f"{a},{b}" for a, b in sorted((min(p), max(p)) for p in pairs if p != (0, 0)))


def lower_of_rank(n: int) -> int:
    """floor(n * phi), exactly."""
    return (n + isqrt(5 * n * n)) // 2


def p_pair_of_rank(n: int) -> Pair:
    """The P-pair of rank n: (floor(n*phi), floor(n*phi^2)) = (a_n, a_n + n)."""
    if n < 0:
        raise ValueError(f"rank must be non-negative, got {n}")
    a = lower_of_rank(n)
    return (a, a + n)


def is_p_pair(a: int, b: int) -> bool:
    """Whether the single pair (a, b) is a P-position (the player to move loses)."""
    if a < 0 or b < 0:
        raise ValueError(f"piles must be non-negative, got ({a}, {b})")
    a, b = min(a, b), max(a, b)
    return lower_of_rank(b - a) == a


def pair_options(a: int, b: int) -> Iterator[Pair]:
    """Each pair one move reaches, sorted and each once (lazily: piles may be huge).

    Taking k from the larger pile, then from the smaller (skipped for equal piles, where it is the
    same), then from both; the one diagonal move that repeats a one-pile result (k = b - a when
    b - a <= a, reaching (2a - b, a)) is skipped.
    """
    a, b = min(a, b), max(a, b)
    for k in range(1, b + 1):
        yield (min(a, b - k), max(a, b - k))
    if a < b:
        for k in range(1, a + 1):
            yield (a - k, b)
    for k in range(1, a + 1):
        if k == b - a:
            continue
        yield (a - k, b - k)


def pair_value(a: int, b: int, table: NDArray[np.uint32] | None = None) -> int | None:
    """g(a, b) from a closed form or the table, or None when neither covers the pair."""
    a, b = min(a, b), max(a, b)
    if a == 0:
        return b
    if is_p_pair(a, b):
        return 0
    if table is not None and b < table.shape[0] and a < table.shape[1]:
        return int(table[b, a])
    return None


def live_pair_value(a: int, b: int, max_side: int = LIVE_SIDE) -> int:
    """g(a, b) computed now, or LimitExceeded naming the largest answerable piles."""
    known = pair_value(a, b)
    if known is not None:
        return known
    a, b = min(a, b), max(a, b)
    if b >= max_side:
        raise LimitExceeded(
            f"Wythoff pair {a},{b} is beyond the live limit: piles up to {max_side - 1} can be computed"
        )
    return int(wythoff_table(a + 1, b + 1)[a, b])


def rank_of_lower(a: int) -> int | None:
    """The n with floor(n*phi) == a, if a is a lower Wythoff number."""
    guess = (isqrt(5 * a * a) - a) // 2
    for n in range(max(0, guess - 2), guess + 3):
        if lower_of_rank(n) == a:
            return n
    return None


def rank_of_upper(b: int) -> int | None:
    """The n with floor(n*phi) + n == b, if b is an upper Wythoff number."""
    guess = (3 * b - isqrt(5 * b * b)) // 2
    for n in range(max(0, guess - 2), guess + 3):
        if lower_of_rank(n) + n == b:
            return n
    return None


def moves_to_p(a: int, b: int) -> list[Pair]:
    """Every P-pair one move from (a, b), in closed form (piles of any size)."""
    a, b = min(a, b), max(a, b)
    found: set[Pair] = set()
    d = b - a
    x = lower_of_rank(d)
    if a > x:
        found.add((x, x + d))  # the same number from both piles
    n = rank_of_lower(a)
    if n is not None and b > a + n:
        found.add((a, a + n))  # from the larger pile
    n = rank_of_upper(a)
    if n is not None:
        found.add((lower_of_rank(n), a))  # the larger pile down below the smaller
    n = rank_of_upper(b)
    if n is not None and a > lower_of_rank(n):
        found.add((lower_of_rank(n), b))  # the smaller pile, keeping the larger
    return sorted(p for p in found if p != (a, b))


def _as_components(pair: Pair) -> tuple[Pair, ...]:
    """A pair as what replaces a component: nothing once both piles are empty."""
    return () if pair == (0, 0) else (pair,)


@dataclass(frozen=True, slots=True)
class WythoffMove(MoveRecord):
    """A Wythoff move: the pair moved in and the pair it becomes."""

    pair: tuple[int, int]
    """Wythoff: the pair moved in, [a, b]."""
    to: tuple[int, int]
    """Wythoff: the pair it becomes, [c, d] ([0, 0] when both piles are emptied)."""


class WythoffGame(ComponentSum[Pair]):
    """Sums of Wythoff pairs, normal play: P-pairs in closed form, Grundy values from the tiled table."""

    game_id = "wythoff"
    misere = False

    def info(self) -> GameInfo:
        return GameInfo(
            id=self.game_id,
            name="Wythoff's game",
            description=(
                "Two piles per game: take any number from one pile, or the same number from both; "
                "a position is a sum of such games."
            ),
            position_syntax="pairs 'a,b' separated by spaces, e.g. '3,5 4,7'",
            examples=("3,5", "3,5 4,7", "1,2 6,10"),
        )

    def kernel(self) -> WythoffTileKernel:
        """The tiled Grundy table the worker precomputes (family 'pairs')."""
        return WythoffTileKernel()

    # -- one component: a pair ------------------------------------------------------------------

    def parse(self, text: str) -> Pairs:
        return parse_pairs(text)

    def format(self, position: Pairs) -> str:
        return format_pairs(position)

    def options(self, component: Pair) -> Iterator[Pairs]:
        return (_as_components(child) for child in pair_options(*component))

    def option_count(self, component: Pair) -> int:
        a, b = component
        return b + (a if a < b else 0) + a - (1 if 0 < b - a <= a else 0)

    def move_text(self, component: Pair, result: Pairs) -> str:
        to = result[0] if result else (0, 0)
        return f"{component[0]},{component[1]} -> {to[0]},{to[1]}"

    def move_record(self, component: Pair, result: Pairs) -> WythoffMove:
        return WythoffMove(component, result[0] if result else (0, 0))

    def component_is_p(self, component: Pair) -> bool:
        return is_p_pair(*component)

    def component_value(self, component: Pair, ctx: Context) -> tuple[int, Source]:
        """g(a, b): closed forms, then the stored tiles, then a live table; else LimitExceeded."""
        a, b = component
        if a == 0:
            return b, "formula"
        if is_p_pair(a, b):
            return 0, "formula"
        stored = ctx.tables.stored_value(self.game_id, PAIRS, value_index(a, b))
        if stored is not None:
            return stored, "table"
        if b < LIVE_SIDE:
            return int(self._live_table(b + 1, ctx)[a, b]), "live"
        raise LimitExceeded(
            f"Wythoff pair {a},{b} is beyond the table and the live limit: Grundy values of pairs are "
            f"known for piles up to {self.largest_answerable(ctx)}"
        )

    def targets(
        self, component: Pair, value: int | None, target: int, value_of: Callable[[Pair], int]
    ) -> Iterator[Pairs]:
        """P-pairs in closed form for any piles; other targets by looking at each option's value."""
        if target == 0:
            yield from (_as_components(p) for p in moves_to_p(*component))
            return
        if value is None or target >= value:
            return
        for child in self.options(component):
            try:
                if (value_of(child[0]) if child else 0) == target:
                    yield child
            except LimitExceeded:
                return  # the pair is beyond every table: only its moves to P-pairs are known

    # -- the table ------------------------------------------------------------------------------

    def _live_table(self, side: int, ctx: Context) -> NDArray[np.uint32]:
        """A square table of at least `side` (a power of two up to LIVE_SIDE), computed once."""
        grown = 256
        while grown < side:
            grown *= 2
        grown = min(grown, LIVE_SIDE)

        def compute() -> NDArray[np.uint32]:
            ctx.tables.may_compute()
            return wythoff_table(grown, grown)

        return ctx.memo.get_or_compute(("wythoff-live", grown), compute)

    def stored_side(self, ctx: Context) -> int:
        """Side of the square table the workers have stored."""
        return isqrt(ctx.tables.stored_size(self.game_id, PAIRS) // TILE_VALUES) * TILE

    def largest_answerable(self, ctx: Context) -> int:
        return max(self.stored_side(ctx), LIVE_SIDE) - 1

    def sequence(self, family: str | None, start: int, stop: int, ctx: Context) -> SequenceResult:
        """g(K, n) for start <= n < stop, family 'row:K' (default 'row:0', single piles)."""
        family = family or "row:0"
        name, _, param = family.partition(":")
        if name != "row":
            raise UnknownFamily(
                f"{self.game_id!r} has no sequence family {quote_token(family)}; its families are 'row:K'"
            )
        k = parse_decimal(
            param,
            what="row",
            where=f" in Wythoff family {quote_token(family)} (expected 'row:K', K from 0 to {MAX_HEAP})",
            error=InvalidArgument,
        )
        values: list[int] = []
        sources: list[Source] = []
        for n in range(start, stop):
            if (n - start) % _CHECK_EVERY == 0:  # up to NIMBASE_LIMITS_SEQUENCE_VALUES lookups
                ctx.deadline.check(lambda: f"reading {self.game_id!r} row {k} from {start} to {stop}")
            try:
                value, source = self.component_value((min(k, n), max(k, n)), ctx)
            except LimitExceeded:
                raise LimitExceeded(
                    f"g({k}, {n}) is beyond the table and the live limit: piles up to "
                    f"{self.largest_answerable(ctx)} can be answered"
                ) from None
            values.append(value)
            sources.append(source)
        return SequenceResult(self.game_id, family, start, stop, values, None, costliest(sources))

    def stats(self, ctx: Context) -> dict[str, object]:
        """The table's side and P-positions (closed form), and the largest Grundy value of the stored
        table and where it is first reached, from the statistics its worker stored (kinds.wythoff.stats;
        left out of a table stored without them)."""
        side = self.stored_side(ctx)
        p_pairs = 0
        while p_pair_of_rank(p_pairs)[1] < side:
            p_pairs += 1
        out: dict[str, object] = {
            "game": self.game_id,
            "table_side": side,
            "computed_upto": side * side,
            "live_side": self.largest_answerable(ctx) + 1,
            "p_positions": p_pairs,
            "period": None,
        }
        stored = ctx.tables.stored_stats(self.game_id, PAIRS) if side else None
        if stored is not None and table_stats.readable(stored) and stored["upto"] == values_for_side(side):
            out.update(max_value=stored["max_value"], max_value_at=stored["max_value_at"])
        return out

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
        if family is not None and family != PAIRS:
            raise UnknownFamily(f"{self.game_id!r} stores only family {PAIRS!r}, not {family!r}")
        if not 1 <= upto <= MAX_WYTHOFF_SIDE:
            raise InvalidArgument(
                f"upto {upto} is outside 1..{MAX_WYTHOFF_SIDE} (the side of the Wythoff table)"
            )
        # A table has no period to stop at: it is always filled to the requested side.
        return JobPlan(self.game_id, PAIRS, values_for_side(upto), fill=True)

    def kernel_for(self, family: str) -> SequenceKernel | None:
        return self.kernel() if family == PAIRS else None


def _parse_wythoff(params: str | None, text: str) -> GameKind[Any]:
    if params is not None:
        raise InvalidGameId(f"game id {text!r}: Wythoff's game takes no parameters, use 'wythoff'")
    return WythoffGame()


#: The family's registry entry (pyproject.toml's entry point `wythoff`).
ENTRY = Family(parse=_parse_wythoff, info=lambda: WythoffGame().info(), misere=False, order=50)
