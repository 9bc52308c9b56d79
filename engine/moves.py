"""Listing moves best first, the same way for every kind of game.

With few moves every one is valued and they are ranked; with many (a heap of 10^18 tokens has that
many) the caller must pass a limit, and the list is the winning moves first, then the others in the
kind's order, each valued only as far as the limit reaches.

Valuing a move can cost as much as valuing a position, so the listing checks the request's deadline
before each move. A list cut short by it is not answered: the answer would look complete (fewer moves
than the limit also means "that is all of them"), so the caller gets DEADLINE_EXCEEDED saying how many
moves fitted, and can ask for fewer.

Each move carries the text of the position it leads to, as long as the position itself: 10,000 moves of
a 3,000-heap sum would be 130 MB, more than a gRPC answer may be. Such a list is refused before any
move is valued (RESOURCE_EXHAUSTED, naming the limit that fits), not after the work.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable
from dataclasses import replace
from typing import TypeVar

from engine.deadline import Deadline
from engine.errors import InvalidArgument, LimitExceeded
from engine.kind import RequestLimits
from engine.positions import quote_position
from engine.records import MoveRecord
from engine.values import BestMoveResult, MoveValue, Value

P = TypeVar("P", bound=Hashable)

#: A move as a kind enumerates it: its text, its kind record (engine.records) and the position it leads to.
MoveTo = tuple[str, MoveRecord | None, P]


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
    deadline: Deadline | None = None,
) -> BestMoveResult:
    """Every move ranked best first when there are few; else winning moves first, then the rest in
    order, up to `limit` (the evaluation flag says whether the move list is being ranked).

    `deadline` is checked before each move (DeadlineExceeded, or Cancelled once the client has gone).
    """
    wanted = count if limit is None or count <= limits.ranked_moves else min(count, limit)
    if wanted * len(value.position) > limits.answer_chars:
        raise _too_long(value, wanted, limits.answer_chars)
    moves: list[MoveValue] = []
    chars = 0

    def check() -> None:
        if chars > limits.answer_chars:  # a move may leave more components than it takes (a split)
            raise _too_long(value, wanted, limits.answer_chars)
        if deadline is not None:
            deadline.check(
                lambda: (
                    f"listing the moves of {quote_position(value.position)} ({len(moves)} of {wanted} valued)"
                )
            )

    if count <= limits.ranked_moves:
        for text, record, child in every():
            check()
            moves.append(_move(text, evaluate(child, True), record))
            chars += len(moves[-1].value.position)
        moves.sort(key=move_rank)
        return BestMoveResult(value, moves[:limit] if limit is not None else moves)
    if limit is None:
        raise LimitExceeded(
            f"position {quote_position(value.position)} has {count} moves, more than the "
            f"{limits.ranked_moves} listed without a limit; pass limit (at most {limits.listed_moves})"
        )
    seen: set[P] = set()
    for text, record, child in itertools.chain(winning(), every()):
        if len(moves) >= limit:
            break
        check()
        if child in seen:
            continue
        seen.add(child)
        try:
            moves.append(_move(text, evaluate(child, False), record))
        except LimitExceeded:
            continue  # a move whose value is beyond the limits is left out, not the whole answer
        chars += len(moves[-1].value.position)
    return BestMoveResult(value, moves)


def _move(text: str, value: Value, record: MoveRecord | None) -> MoveValue:
    return MoveValue(text, value, None if record is None else record.reached(value.kind))


def _too_long(value: Value, wanted: int, answer_chars: int) -> LimitExceeded:
    fits = max(1, answer_chars // max(1, len(value.position)))
    return LimitExceeded(
        f"{wanted} moves of the {len(value.position)}-character position "
        f"{quote_position(value.position)} would hold more than {answer_chars} characters of "
        f"positions, the most one answer may; ask for at most {fits} moves (limit)"
    )


def move_rank(move: MoveValue) -> tuple[int, int, str]:
    """Best first: moves to P-positions (fastest win first), then draws, then the slowest loss;
    ties by text. Puzzles (no outcome): boards left solvable (as the press's record says), fewest presses
    first (those not searched after), then unsolvable ones."""
    value = move.value
    if value.outcome is None:
        if not getattr(move.kind, "solvable", False):
            return (4, 0, move.move)
        return (3, value.remoteness if value.remoteness is not None else 1 << 62, move.move)
    if value.outcome == "P":
        return (0, value.remoteness if value.remoteness is not None else 1 << 62, move.move)
    if value.outcome == "D":
        return (1, 0, move.move)
    return (2, -(value.remoteness if value.remoteness is not None else -1), move.move)


def ties(move: MoveValue, first: MoveValue) -> bool:
    """Whether `move` is as good as `first`: the same rank but for the text that breaks ties (the same
    outcome, and the same remoteness where it counts)."""
    return move_rank(move)[:2] == move_rank(first)[:2]


def mark_best(moves: list[MoveValue]) -> list[MoveValue]:
    """The moves, each that ties with the first marked `best` (the first included): the moves a player
    may choose between without giving anything away."""
    if not moves:
        return moves
    first = moves[0]
    return [replace(move, best=True) if ties(move, first) else move for move in moves]
