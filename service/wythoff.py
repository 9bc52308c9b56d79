"""Wythoff sums: pair values from closed forms, the stored tiled table, or a live table.

A single pair's outcome always has a closed form (Wythoff's P-pairs); Grundy values, which sums
need, come from the table, and a sum whose pairs lie beyond every table is answered only where the
closed forms decide it, else RESOURCE_EXHAUSTED names the largest pile that can be answered.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from math import isqrt

import numpy as np
from numpy.typing import NDArray

from engine.errors import InvalidArgument, LimitExceeded
from engine.games.wythoff import (
    LIVE_SIDE,
    Pair,
    Pairs,
    WythoffGame,
    format_pairs,
    is_p_pair,
    lower_of_rank,
    pair_options,
    parse_pairs,
)
from engine.kernels.wythoff import wythoff_table
from engine.kernels.wythoff_tiles import PAIRS, TILE, TILE_VALUES, tile_index
from engine.values import Source, Value, costliest
from service.sequences import HeapSequences
from storage.errors import CorruptChunk, StorageUnavailable

PairValue = tuple[int, Source] | None


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


class WythoffValues:
    """Values of Wythoff sums, with a live table grown on demand up to LIVE_SIDE."""

    def __init__(self, sequences: HeapSequences, game: WythoffGame) -> None:
        self._sequences = sequences
        self._game = game
        self._live: NDArray[np.uint32] | None = None
        self._lock = threading.Lock()

    def stored_side(self) -> int:
        """Side of the square table the worker has stored."""
        info = self._sequences.info(self._game, PAIRS)
        if info is None:
            return 0
        return isqrt(info.computed_upto // TILE_VALUES) * TILE

    def pair_value(self, a: int, b: int) -> PairValue:
        a, b = min(a, b), max(a, b)
        if a == 0:
            return b, "formula"
        if is_p_pair(a, b):
            return 0, "formula"
        if b < self.stored_side():
            try:
                chunk = self._sequences.chunk(self._game.game_id, tile_index(a // TILE, b // TILE), PAIRS)
                return int(chunk[(a % TILE) * TILE + b % TILE]), "table"
            except (CorruptChunk, StorageUnavailable):
                pass
        if b < LIVE_SIDE:
            return int(self._live_table(b + 1)[a, b]), "live"
        return None

    def _live_table(self, side: int) -> NDArray[np.uint32]:
        with self._lock:
            if self._live is None or self._live.shape[0] < side:
                self._sequences.require_blocking_allowed()
                grown = 256
                while grown < side:
                    grown *= 2
                self._live = wythoff_table(min(grown, LIVE_SIDE), min(grown, LIVE_SIDE))
            return self._live

    @staticmethod
    def p_pair(rank: int) -> Pair:
        lower = lower_of_rank(rank)
        return lower, lower + rank

    def largest_answerable(self) -> int:
        return max(self.stored_side(), LIVE_SIDE) - 1

    def value(self, pairs: Pairs) -> Value:
        position = format_pairs(pairs)
        total = 0
        sources: list[Source] = []
        unknown: list[Pair] = []
        for a, b in pairs:
            found = self.pair_value(a, b)
            if found is None:
                unknown.append((a, b))
                continue
            total ^= found[0]
            sources.append(found[1])
        if not unknown:
            remoteness = 0 if not pairs else None
            return Value(
                self._game.game_id,
                position,
                "P" if total == 0 else "N",
                total,
                remoteness,
                costliest(sources),
            )
        if len(unknown) == 1 and total == 0:
            # Every P-pair is known in closed form, so the one unknown pair is an N-position; the
            # rest sum to 0, so the whole sum is N (its exact Grundy value is not known).
            return Value(self._game.game_id, position, "N", None, None, costliest([*sources, "formula"]))
        a, b = unknown[0]
        raise LimitExceeded(
            f"Wythoff pair {a},{b} in {position!r} is beyond the table and the live limit: Grundy values "
            f"of pairs are known for piles up to {self.largest_answerable()}"
        )

    def parse(self, text: str) -> Pairs:
        return parse_pairs(text)

    def value_of(self, text: str) -> Value:
        """The value of a position given as text."""
        return self.value(parse_pairs(text))

    def count_moves(self, pairs: Pairs) -> int:
        total = 0
        for i, (a, b) in enumerate(pairs):
            if i and pairs[i - 1] == (a, b):
                continue
            total += b + (a if a < b else 0) + a - (1 if 0 < b - a <= a else 0)
        return total

    def moves(self, pairs: Pairs) -> Iterator[tuple[str, Pairs]]:
        """Every move, lazily: pair by distinct pair, in pair_options order."""
        for i, pair in enumerate(pairs):
            if i and pairs[i - 1] == pair:
                continue
            for child in pair_options(*pair):
                yield self._move(pairs, i, child)

    def winning_moves(self, pairs: Pairs) -> list[tuple[str, Pairs]]:
        """Moves to a sum of value 0 that can be found without enumerating huge piles."""
        values = [self.pair_value(a, b) for a, b in pairs]
        total = 0
        for found in values:
            total ^= found[0] if found is not None else 0
        unknown = [i for i, found in enumerate(values) if found is None]
        if unknown:
            if len(unknown) > 1 or total != 0:
                return []
            # The rest sum to 0: win by moving the one unknown (N-)pair to a P-pair.
            index = unknown[0]
            return [self._move(pairs, index, child) for child in moves_to_p(*pairs[index])]
        if total == 0:
            return []
        out: list[tuple[str, Pairs]] = []
        for i, (pair, found) in enumerate(zip(pairs, values, strict=True)):
            assert found is not None
            target = found[0] ^ total
            if target >= found[0] or (i and pairs[i - 1] == pair):
                continue
            if target == 0:
                out += [self._move(pairs, i, child) for child in moves_to_p(*pair)]
            elif pair[1] < max(self.stored_side(), LIVE_SIDE):
                for child in pair_options(*pair):
                    child_value = self.pair_value(*child)
                    if child_value is not None and child_value[0] == target:
                        out.append(self._move(pairs, i, child))
        return out

    @staticmethod
    def _move(pairs: Pairs, index: int, child: Pair) -> tuple[str, Pairs]:
        a, b = pairs[index]
        rest = [*pairs[:index], *pairs[index + 1 :]]
        if child != (0, 0):
            rest.append(child)
        return f"{a},{b} -> {child[0]},{child[1]}", tuple(sorted(rest))

    def row(self, family: str, start: int, stop: int) -> tuple[list[int], Source]:
        """g(K, n) for start <= n < stop, family 'row:K' (default 'row:0', single piles)."""
        name, _, param = family.partition(":")
        if name != "row" or not param.isdigit():
            raise InvalidArgument(f"Wythoff family {family!r} is not of the form 'row:K'")
        k = int(param)
        values: list[int] = []
        sources: list[Source] = []
        for n in range(start, stop):
            found = self.pair_value(k, n)
            if found is None:
                raise LimitExceeded(
                    f"g({k}, {n}) is beyond the table and the live limit: piles up to "
                    f"{self.largest_answerable()} can be answered"
                )
            values.append(found[0])
            sources.append(found[1])
        return values, costliest(sources)
