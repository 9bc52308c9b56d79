"""Sums of heaps: values from single-heap values, and the moves of a sum in a fixed order.

Normal play: a sum's Grundy value is the nim-sum of its heaps' values (Sprague-Grundy), so it is P
exactly when that is 0. Misère Nim has Bouton's rule; other misère sums need `engine.search`.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator
from functools import reduce
from operator import xor

from engine.games.base import HeapGame, Heaps
from engine.games.nim import NimGame


def nim_sum(values: Iterable[int]) -> int:
    """Bitwise XOR of the values."""
    return reduce(xor, values, 0)


def misere_nim_is_p(heaps: Iterable[int]) -> bool:
    """Bouton: with every heap <= 1, P iff the 1-heaps are odd in number; else P iff nim-sum 0."""
    total = 0
    ones = 0
    big = False
    for h in heaps:
        total ^= h
        if h == 1:
            ones += 1
        elif h > 1:
            big = True
    if big:
        return total == 0
    return ones % 2 == 1


def format_move(n: int, result: Heaps) -> str:
    """`n -> a`, `n -> a+b` (a split) or `n -> 0` (the heap vanishes)."""
    if not result:
        return f"{n} -> 0"
    return f"{n} -> {'+'.join(map(str, result))}"


def apply_move(heaps: Heaps, index: int, result: Heaps) -> Heaps:
    """The canonical position after heaps[index] is replaced by the heaps in `result`."""
    out = list(heaps)
    del out[index]
    for h in result:
        if h:
            bisect.insort(out, h)
    return tuple(out)


def _distinct(heaps: Heaps) -> Iterator[tuple[int, int]]:
    """(index of first occurrence, size) for each distinct heap size of a canonical position."""
    previous = -1
    for i, h in enumerate(heaps):
        if h != previous:
            previous = h
            yield i, h


def iter_sum_moves(game: HeapGame, heaps: Heaps) -> Iterator[tuple[str, Heaps]]:
    """Every move of the sum, lazily: distinct heap sizes ascending, each in heap_options order.

    Moves on equal heaps lead to the same position, so each is listed once.
    """
    for index, h in _distinct(heaps):
        for option in game.heap_options(h):
            yield format_move(h, option), apply_move(heaps, index, option)


def count_sum_moves(game: HeapGame, heaps: Heaps) -> int:
    """How many moves `iter_sum_moves` yields, without enumerating them."""
    return sum(game.option_count(h) for _, h in _distinct(heaps))


def winning_moves_normal(
    game: HeapGame,
    heaps: Heaps,
    heap_value: Callable[[int], int],
    *,
    limit: int | None = None,
) -> list[tuple[str, Heaps]]:
    """The normal-play moves to a position of nim-sum 0, in `iter_sum_moves` order.

    Nim is done by arithmetic (the target heap is h ^ total, valid when smaller than h), so a
    heap of 2^63-1 costs nothing; other games check each option's nim-sum against the target.
    `limit` stops after that many moves (a 100,000-heap Nim sum can have 50,000 of them).
    """
    if game.misere:
        raise ValueError(f"winning_moves_normal needs a normal-play game, got {game.game_id!r}")
    total = nim_sum(heap_value(h) for h in heaps)
    moves: list[tuple[str, Heaps]] = []
    if total == 0:
        return moves
    is_nim = isinstance(game, NimGame)
    for index, h in _distinct(heaps):
        if limit is not None and len(moves) >= limit:
            break
        target = heap_value(h) ^ total
        if is_nim:
            if target < h:
                option: Heaps = (target,) if target else ()
                moves.append((format_move(h, option), apply_move(heaps, index, option)))
            continue
        for option in game.heap_options(h):
            if nim_sum(heap_value(x) for x in option) == target:
                moves.append((format_move(h, option), apply_move(heaps, index, option)))
                if limit is not None and len(moves) >= limit:
                    break
    return moves
