"""Sums of heaps as plain functions: nim-sums, Bouton's misère rule, and the moves of a sum.

The service goes through `HeapGame`'s methods (engine.component_sum); these functions are the same
operations for callers holding a game and a position, such as the search and the tests.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from functools import reduce
from operator import xor
from typing import TYPE_CHECKING

from engine import component_sum
from engine.games.nim import misere_nim_is_p

if TYPE_CHECKING:
    from engine.games.base import HeapGame, Heaps

__all__ = [
    "apply_move",
    "count_sum_moves",
    "format_move",
    "iter_sum_moves",
    "misere_nim_is_p",
    "nim_sum",
    "winning_moves_normal",
]


def nim_sum(values: Iterable[int]) -> int:
    """Bitwise XOR of the values."""
    return reduce(xor, values, 0)


def apply_move(heaps: Heaps, index: int, result: Heaps) -> Heaps:
    """The canonical position after heaps[index] is replaced by the heaps in `result` (zeros dropped)."""
    return component_sum.apply_move(heaps, index, tuple(h for h in result if h))


def format_move(n: int, result: Heaps) -> str:
    """`n -> a`, `n -> a+b` (a split) or `n -> 0` (the heap vanishes)."""
    return f"{n} -> {'+'.join(map(str, result)) if result else 0}"


def iter_sum_moves(game: HeapGame, heaps: Heaps) -> Iterator[tuple[str, Heaps]]:
    """Every move of the sum, lazily: distinct heap sizes ascending, each in heap_options order."""
    return ((text, child) for text, _, child in game.every_move(heaps))


def count_sum_moves(game: HeapGame, heaps: Heaps) -> int:
    """How many moves `iter_sum_moves` yields, without enumerating them."""
    return game.count_moves(heaps)


def winning_moves_normal(
    game: HeapGame,
    heaps: Heaps,
    heap_value: Callable[[int], int],
    *,
    limit: int | None = None,
) -> list[tuple[str, Heaps]]:
    """The normal-play moves to a position of nim-sum 0, in `iter_sum_moves` order (at most `limit`)."""
    if game.misere:
        raise ValueError(f"winning_moves_normal needs a normal-play game, got {game.game_id!r}")
    found = game.zeroing_moves(heaps, heap_value, sys.maxsize if limit is None else limit)
    return [(text, child) for text, _, child in found]
