"""Wythoff's game (seed 004): take any number from one pile, or the same number from both.

Not a heap game: a position is a sum of pairs `3,5 4,7`. A single pair is a P-position exactly when
it is (floor(n*phi), floor(n*phi) + n) for some rank n; with phi = (1 + sqrt 5) / 2,
floor(n*phi) = (n + isqrt(5 n^2)) // 2 (sqrt(5 n^2) is irrational for n > 0, so flooring it first
changes nothing), which is exact for pairs of any size. Sums need the Grundy values of the pairs:
from a precomputed table, from closed forms (g(0, b) = b, and 0 at P-pairs), or live within a bound.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from math import isqrt

import numpy as np
from numpy.typing import NDArray

from engine.errors import InvalidPosition, LimitExceeded
from engine.games.base import MAX_HEAP, MAX_HEAPS, GameInfo
from engine.kernels.wythoff import wythoff_table
from engine.kernels.wythoff_tiles import WythoffTileKernel

Pair = tuple[int, int]
Pairs = tuple[Pair, ...]

#: Live computation fills a square table of at most this side (about 4 s and 100 MB at 4096).
LIVE_SIDE = 2048

_PAIR = re.compile(r"(\d+),(\d+)")


def parse_pairs(text: str) -> Pairs:
    """Canonical pairs of a position: each pair sorted, pairs sorted, (0, 0) dropped."""
    tokens = text.split()
    if len(tokens) > MAX_HEAPS:
        raise InvalidPosition(f"too many pairs: {len(tokens)} (at most {MAX_HEAPS}) in {text[:80]!r}")
    pairs: list[Pair] = []
    for token in tokens:
        match = _PAIR.fullmatch(token)
        if match is None:
            raise InvalidPosition(
                f"invalid Wythoff pair {token!r} in {text[:80]!r}: expected two non-negative integers 'a,b'"
            )
        a, b = int(match.group(1)), int(match.group(2))
        if a > MAX_HEAP or b > MAX_HEAP:
            raise InvalidPosition(f"Wythoff pair {token!r} has a pile above 2^63-1")
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


class WythoffGame:
    """Sums of Wythoff pairs, normal play."""

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

    def parse(self, text: str) -> Pairs:
        return parse_pairs(text)

    def kernel(self) -> WythoffTileKernel:
        """The tiled Grundy table the worker precomputes (family 'pairs')."""
        return WythoffTileKernel()

    def format(self, pairs: Pairs) -> str:
        return format_pairs(pairs)
