"""The solver against the truth: a brute-force negamax (tests/engine/rules/negamax.py) on every position
of tic-tac-toe (both forms), Connect Four 4 x 4 and the smallest Dots and Boxes board, and the known
facts (tic-tac-toe's 5,478 positions, a tie); on larger boards, random positions near the end."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from engine.rules.solve import solve_all, solve_tier
from engine.rules.tables import DRAW, TierTable, merged
from nimbase_rules.games.connect4 import Connect4
from nimbase_rules.games.dots_and_boxes import DotsAndBoxes
from nimbase_rules.games.tictactoe import TicTacToe
from tests.engine.rules.negamax import negamax


def _agree(rules: Any, tables: dict[int, TierTable], codes: list[int]) -> int:
    truth: Any = negamax(rules)
    checked = 0
    for code in codes:
        table = tables[rules.tier(code)]
        i = table.index(rules.canonical(code))
        assert i is not None, rules.format(code)
        want = truth(code)
        got = (
            int(table.margin[i]) if table.margin is not None else int(table.result[i]),
            int(table.remoteness[i]),
        )
        assert int(table.result[i]) != DRAW
        assert got == want, (rules.format(code), got, want)
        checked += 1
    return checked


@pytest.mark.parametrize("misere", [False, True])
def test_tictactoe_every_position(misere: bool) -> None:
    rules = TicTacToe(misere)
    tables = solve_all(rules)
    legal = [c for c in range(rules.size) if rules.legal(c)]
    assert len(legal) == 5478 == sum(len(t) for t in tables.values())
    assert _agree(rules, tables, legal) == 5478
    start = tables[0]
    assert (int(start.result[0]), int(start.remoteness[0])) == (0, 9)  # a tie, the board filled


def test_connect4_4x4_every_position() -> None:
    rules = Connect4(4, 4)
    tables = solve_all(rules)
    codes = [int(c) for t in tables.values() for c in t.codes]
    mirror = ["/".join(row[::-1] for row in rules.format(c).split("/")) for c in codes[::97]]
    mirrored = [m for m in (rules.parse(text) for text in mirror) if rules.canonical(m) != m]
    assert mirrored
    assert _agree(rules, tables, codes + mirrored) == len(codes) + len(mirrored)


def test_connect4_plain_python_rules_solve_the_same() -> None:
    compiled = solve_all(Connect4(4, 3))
    plain = solve_all(Connect4(4, 3, compiled=False))
    for tier, table in compiled.items():
        other = plain[tier]
        assert (table.codes == other.codes).all() and (table.result == other.result).all()
        assert (table.remoteness == other.remoteness).all()


def test_dots_and_boxes_2x2_every_position() -> None:
    rules = DotsAndBoxes(2, 2)
    tables = solve_all(rules)
    assert _agree(rules, tables, list(range(rules.size))) == 4096


@pytest.mark.parametrize(("rules", "deepest"), [(Connect4(5, 4), 13), (DotsAndBoxes(2, 3), 9)])
def test_larger_boards_agree_near_the_end(rules: Any, deepest: int) -> None:
    """Random positions near the end of the game (tiers from `deepest` on, solved from the last tier
    down, as their jobs would) against the negamax."""
    tables: dict[int, TierTable] = {}
    for tier in rules.tiers():
        if tier < deepest:
            break
        tables[tier] = solve_tier(rules, tier, merged([tables[t] for t in rules.tier_moves_to(tier)]))
    rng = np.random.default_rng(22)
    picked = [int(c) for t in tables.values() for c in rng.choice(t.codes, min(200, len(t)), replace=False)]
    assert _agree(rules, tables, picked) == len(picked)
