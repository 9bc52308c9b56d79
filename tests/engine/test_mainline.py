"""engine.mainline without a service: the kind's metric hook, the bounds of a line (its answer's size, the
request's deadline, a fresh remoteness allowance per step) and a move into another game."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pytest

from engine.deadline import Deadline
from engine.errors import DeadlineExceeded, InvalidArgument, LimitExceeded
from engine.kind import Context, GameKind
from engine.mainline import check_metric, mainline
from engine.values import BestMoveResult
from kinds.heaps.nim import NimGame
from nimbase.settings import Limits
from tests.engine.contexts import ROOMY, heap_context


class MetricNim(NimGame):
    """Nim whose main line takes two metrics: `fast` (BestMove's order) and `slow`, which plays the
    last-listed winning move; it records each step's metric and remoteness allowance."""

    metrics = ("fast", "slow")

    def __init__(self) -> None:
        super().__init__()
        self.steps: list[tuple[str | None, int]] = []

    def line_moves(self, position: Any, metric: str | None, ctx: Context) -> BestMoveResult:
        self.steps.append((metric, ctx.allowance.steps))
        ranked = self.best_moves(position, None, ctx)
        ctx.allowance.spend(ctx.allowance.steps)  # a step spends what is left: the next gets its own
        if metric != "slow" or not ranked.moves:
            return ranked
        best = [m for m in ranked.moves if m.value.outcome == ranked.moves[0].value.outcome]
        return BestMoveResult(ranked.value, [best[-1], *ranked.moves])


def nim_context(limits: Limits = ROOMY) -> Context:
    """A context answering Nim's single heaps (g(n) = n), roomy unless `limits` are given."""
    return replace(heap_context(lambda n: n), limits=limits)


def nim_kind(_game: str) -> GameKind[Any]:
    raise AssertionError("a nim line stays in nim")


def test_a_kind_takes_its_metrics_and_no_other() -> None:
    kind = MetricNim()
    assert check_metric(kind, None) is None and check_metric(kind, "slow") == "slow"
    with pytest.raises(InvalidArgument, match="'dtx' is not one of the metrics of 'nim': 'fast', 'slow'"):
        check_metric(kind, "dtx")
    with pytest.raises(InvalidArgument, match="'dtm': the main line of 'nim' takes no metric"):
        check_metric(NimGame(), "dtm")


def test_the_metric_reaches_every_step_each_with_its_own_allowance() -> None:
    kind = MetricNim()
    ctx = nim_context()
    line = mainline(kind, kind.parse("1 2 3 4"), 50, "slow", ctx, nim_kind)
    assert line.end == "terminal" and line.value.position == "1 2 3 4"
    assert {metric for metric, _ in kind.steps} == {"slow"}
    assert {steps for _, steps in kind.steps} == {ctx.allowance.steps}  # never the spent remainder
    assert all(move.best for move in line.moves)
    fast = mainline(kind, kind.parse("1 2 3 4"), 50, "fast", nim_context(), nim_kind)
    assert [m.move for m in fast.moves] != [m.move for m in line.moves]
    assert len(fast.moves) == kind.value(kind.parse("1 2 3 4"), nim_context()).remoteness == 7


def test_a_line_too_long_for_one_answer_is_refused() -> None:
    kind = NimGame()
    # Each step lists one move (more moves than are ranked), the line's positions add up past 12 characters.
    ctx = nim_context(Limits(**{**_fields(ROOMY), "answer_chars": 12, "ranked_moves": 2}))
    with pytest.raises(LimitExceeded, match=r"after 3 moves.*\(max_plies\)"):
        mainline(kind, kind.parse("3 5 7"), 100, None, ctx, nim_kind)


def test_a_line_past_its_deadline_stops_saying_how_far_it_got() -> None:
    kind = NimGame()
    ctx = replace(nim_context(), deadline=Deadline(time.monotonic() - 1))
    with pytest.raises(DeadlineExceeded, match=r"the main line of '3 5 7' \(0 moves found\)"):
        mainline(kind, kind.parse("3 5 7"), 100, None, ctx, nim_kind)


def test_a_move_into_another_game_goes_on_in_that_game() -> None:
    """A kind whose moves reach another game's positions (an endgame's captures) hands the line over to
    the kind `kind_of` resolves: here a Nim whose one-heap positions belong to plain Nim."""

    class Handing(NimGame):
        game_id = "nim:handing"

        def best_moves(self, position: Any, limit: int | None, ctx: Context) -> BestMoveResult:
            ranked = super().best_moves(position, limit, ctx)
            moves = [
                replace(m, value=m.value._replace(game="nim")) if " " not in m.value.position else m
                for m in ranked.moves
            ]
            return BestMoveResult(ranked.value, moves)

    asked: list[str] = []

    def kind_of(game: str) -> GameKind[Any]:
        asked.append(game)
        return NimGame()

    handing = Handing()
    handing.game_id = "nim:handing"
    line = mainline(handing, handing.parse("2 3"), 50, None, nim_context(), kind_of)
    assert asked == ["nim"] and line.end == "terminal"
    assert line.moves[0].move == "3 -> 2" and line.moves[-1].value.position == ""


def _fields(limits: Limits) -> dict[str, Any]:
    return {name: getattr(limits, name) for name in limits.__dataclass_fields__}
