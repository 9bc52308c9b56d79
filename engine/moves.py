"""Listing moves best first, the same way for every kind of game.

With few moves every one is valued and they are ranked; with many (a heap of 10^18 tokens has that
many) the caller must pass a limit, and the list is the winning moves first, then the others in the
kind's order, each valued only as far as the limit reaches.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

from engine.errors import InvalidArgument, LimitExceeded
from engine.kind import RequestLimits
from engine.values import BestMoveResult, MoveValue, Value

P = TypeVar("P", bound=Hashable)

#: A move as a kind enumerates it: its text, its structured fields and the position it leads to.
MoveTo = tuple[str, tuple[tuple[str, object], ...], P]


def check_limit(limit: int | None, limits: RequestLimits) -> None:
    """Refuse a `limit` below 1 or above what one call may list."""
    if limit is not None and limit < 1:
        raise InvalidArgument(f"limit {limit} is below 1")
    if limit is not None and limit > limits.listed_moves:
        raise InvalidArgument(f"limit {limit} is above the maximum of {limits.listed_moves}")


def list_moves(
    value: Value,
    count: int,
    every: Callable[[], Iterable[MoveTo[P]]],
    winning: Callable[[], Iterable[MoveTo[P]]],
    evaluate: Callable[[P, bool], Value],
    limit: int | None,
    limits: RequestLimits,
) -> BestMoveResult:
    """Every move ranked best first when there are few; else winning moves first, then the rest in
    order, up to `limit` (the evaluation flag says whether the move list is being ranked)."""
    if count <= limits.ranked_moves:
        moves = [MoveValue(text, evaluate(child, True), fields) for text, fields, child in every()]
        moves.sort(key=move_rank)
        return BestMoveResult(value, moves[:limit] if limit is not None else moves)
    if limit is None:
        raise LimitExceeded(
            f"position {value.position!r} has {count} moves, more than the {limits.ranked_moves} "
            f"listed without a limit; pass limit (at most {limits.listed_moves})"
        )
    listed: list[MoveValue] = []
    seen: set[P] = set()
    for text, fields, child in itertools.chain(winning(), every()):
        if len(listed) >= limit:
            break
        if child in seen:
            continue
        seen.add(child)
        try:
            listed.append(MoveValue(text, evaluate(child, False), fields))
        except LimitExceeded:
            continue  # a move whose value is beyond the limits is left out, not the whole answer
    return BestMoveResult(value, listed)


def move_rank(move: MoveValue) -> tuple[int, int, str]:
    """Best first: moves to P-positions (fastest win first), then draws, then the slowest loss;
    ties by text."""
    value = move.value
    if value.outcome == "P":
        return (0, value.remoteness if value.remoteness is not None else 1 << 62, move.move)
    if value.outcome == "D":
        return (1, 0, move.move)
    return (2, -(value.remoteness if value.remoteness is not None else -1), move.move)
