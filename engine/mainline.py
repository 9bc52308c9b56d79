"""The main line: best play from a position, one best move after another, for every kind of game.

Rivier's *partie idéale*: the winner hurries, the loser delays, a drawn line goes on until it comes back
to a position it has seen. A one-player puzzle's line is the press sequence of a fewest-press solution:
each press leaves a board one press nearer to solved. The line ends
- `terminal`: at a position without moves (the end of the game),
- `solved`: at a puzzle's solved board,
- `repetition`: at a move that reaches a position the line has passed (a drawn line going round),
- `max_plies`: after the number of moves asked for,
- `unknown`: at a puzzle whose fewest presses are not known (unsolvable, or beyond the search: the value
  says which), where no press is known to be best.

Each step is one `GameKind.line_moves` call with its own remoteness allowance (engine.kind.Allowance), so
a step costs what one BestMove of one move costs, whatever the length; the whole line shares the
request's deadline, checked before each step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from engine.errors import InvalidArgument, LimitExceeded
from engine.kind import Allowance, Context, GameKind
from engine.positions import quote_position
from engine.values import MoveValue, Source, Value, costliest

End = Literal["terminal", "solved", "repetition", "max_plies", "unknown"]


@dataclass(frozen=True, slots=True)
class Mainline:
    """The value of the position asked about, the moves of best play from it (each with the value of the
    position it reaches, marked best), and why the line ends there."""

    value: Value
    moves: list[MoveValue]
    end: End

    @property
    def source(self) -> Source:
        """The costliest source of the values on the line: the line is as final as its least final value
        (a value found live may be answered from the table later)."""
        return costliest([self.value.source, *(move.value.source for move in self.moves)])


def check_metric(kind: GameKind[Any], metric: str | None) -> str | None:
    """`metric` if the kind's main line follows it (None: the kind's own order); INVALID_ARGUMENT quoting
    it otherwise."""
    if metric is None or metric in kind.metrics:
        return metric
    if not kind.metrics:
        raise InvalidArgument(
            f"metric {quote_position(metric)}: the main line of {kind.game_id!r} takes no metric"
        )
    accepted = ", ".join(repr(name) for name in kind.metrics)
    raise InvalidArgument(
        f"metric {quote_position(metric)} is not one of the metrics of {kind.game_id!r}: {accepted}"
    )


def mainline(
    kind: GameKind[Any],
    position: Any,
    max_plies: int,
    metric: str | None,
    ctx: Context,
    kind_of: Callable[[str], GameKind[Any]],
) -> Mainline:
    """Best play from `position` for at most `max_plies` moves (at least 1), ranked by `metric` (checked
    with `check_metric`). A move may reach a position of another game (a capture in an endgame leaves
    another material: the value it reaches names its game), whose kind `kind_of` gives (the service's
    resolution of game ids)."""
    metric = check_metric(kind, metric)
    allowance = ctx.allowance.steps
    start = kind.format(position)
    seen = {kind.repetition_key(start)}
    moves: list[MoveValue] = []
    chars = 0
    first: Value | None = None
    while True:
        ctx.deadline.check(lambda: f"the main line of {quote_position(start)} ({len(moves)} moves found)")
        step = kind.line_moves(position, metric, replace(ctx, allowance=Allowance(allowance)))
        here = step.value
        if first is None:
            first = here
        end = _end_at(here, step.moves, len(moves), max_plies)
        if end is not None:
            return Mainline(first, moves, end)
        move = replace(step.moves[0], best=True)
        moves.append(move)
        reached = move.value.position
        chars += len(reached)
        if chars > ctx.limits.answer_chars:
            raise LimitExceeded(
                f"the main line of {quote_position(start)} holds more than {ctx.limits.answer_chars} "
                f"characters of positions after {len(moves)} moves, the most one answer may; ask for fewer "
                "(max_plies)"
            )
        if move.value.game != kind.game_id:
            kind = kind_of(move.value.game)
        key = kind.repetition_key(reached)
        if key in seen:
            return Mainline(first, moves, "repetition")
        if len(moves) == max_plies:
            return Mainline(first, moves, _end_of(move.value) or "max_plies")
        seen.add(key)
        position = kind.parse(reached)


def _end_at(value: Value, moves: list[MoveValue], played: int, max_plies: int) -> End | None:
    """Why the line ends at a position with this value and these moves (best first), or None."""
    if value.outcome is None:  # a puzzle: its fewest presses lead the way
        if value.remoteness is None:
            return "unknown"
        if value.remoteness == 0:
            return "solved"
    if not moves:
        return "terminal"
    return "max_plies" if played >= max_plies else None


def _end_of(value: Value) -> End | None:
    """Why the line ends at a position known only by its value (the last one it reaches), if it does."""
    if value.remoteness != 0:
        return None
    return "solved" if value.outcome is None else "terminal"
