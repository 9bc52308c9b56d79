"""The solver against the truth: a brute-force negamax (tests/kinds/rules/negamax.py) on every position
of tic-tac-toe (both forms), Connect Four 4 x 4 and the smallest Dots and Boxes board, and the known
facts (tic-tac-toe's 5,478 positions, a tie); on larger boards, random positions near the end."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from engine.kernels.retrograde import csr_from_edges, solve_graph_reference
from kinds.rules.fused import scanner
from kinds.rules.solve import solve_all, solve_tier
from kinds.rules.tables import DRAW, TierTable, merged
from nimbase_rules import LOSS, TIE, Move, Rules
from nimbase_rules.games.connect4 import Connect4
from nimbase_rules.games.dots_and_boxes import DotsAndBoxes
from nimbase_rules.games.tictactoe import TicTacToe
from tests.kinds.rules.negamax import negamax


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


@pytest.mark.parametrize("rules", [Connect4(4, 3, compiled=False), TicTacToe(), TicTacToe(misere=True)])
def test_the_plain_reference_solves_tiers_as_the_kernels_do(rules: Any) -> None:
    """Each tier solved by the compiled kernels and by the plain reference, from the same later tiers."""
    solved: dict[int, TierTable] = {}
    for tier in rules.tiers():
        later = merged([solved[t] for t in rules.tier_moves_to(tier)])
        compiled = solve_tier(rules, tier, later, plain_positions=0)
        plain = solve_tier(rules, tier, later, plain_positions=1 << 40)
        assert (compiled.result == plain.result).all() and (compiled.remoteness == plain.remoteness).all()
        solved[tier] = compiled


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


class _GraphRules(Rules):
    """A loopy game on a random graph: a position is a vertex, a move follows an edge; a vertex with no
    move is a loss, or a tie where marked."""

    name = description = position_syntax = "graph"
    examples = ("0",)

    def __init__(self, n: int, edges: list[tuple[int, int]], ties: set[int]) -> None:
        self.game_id = "random-graph"
        self.size = n
        self.max_moves = n
        self.succ = {v: sorted({b for a, b in edges if a == v}) for v in range(n)}
        self.ties = ties

    def initial(self) -> int:
        return 0

    def parse(self, text: str) -> int:
        return int(text)

    def format(self, code: int) -> str:
        return str(code)

    def moves(self, code: int) -> list[Move]:
        return [Move(str(w), w) for w in self.succ[code]]

    def end(self, code: int) -> int:
        return TIE if code in self.ties else LOSS


@pytest.mark.parametrize("seed", range(6))
def test_loopy_games_agree_with_the_graph_solver(seed: int) -> None:
    """Win, loss and draw against the retrograde reference of game graphs (ties counted as draws there);
    ties against the definition: a drawn position whose least remoteness to a finished tie through drawn
    positions is its remoteness; the plain reference and the kernels alike."""
    rng = np.random.default_rng(seed)
    n = 60
    edges = [(int(a), int(b)) for a, b in rng.integers(0, n, (90, 2))]
    rules = _GraphRules(n, edges, {int(v) for v in rng.choice(n, 6, replace=False)})
    indptr, indices = csr_from_edges(n, *zip(*[(a, b) for a in range(n) for b in rules.succ[a]], strict=True))
    terminal = [0 if v in rules.ties else -1 for v in range(n)]
    outcome, remoteness = solve_graph_reference(indptr, indices, terminal)
    for plain in (0, 1 << 40):
        table = solve_tier(rules, 0, merged([]), plain_positions=plain)
        drawn = [v for v in range(n) if outcome[v] == 0]
        assert [int(r) for r in table.result] == [
            {1: 1, -1: -1}.get(outcome[v], 0 if table.result[v] == 0 else 2) for v in range(n)
        ]
        for v in range(n):
            if outcome[v] != 0:
                assert int(table.remoteness[v]) == remoteness[v]
        # ties: breadth-first from the finished ties through drawn positions
        level = {v: 0 for v in drawn if not rules.succ[v] and v in rules.ties}
        frontier = list(level)
        while frontier:
            nxt = []
            for u in frontier:
                for v in drawn:
                    if v not in level and u in rules.succ[v]:
                        level[v] = level[u] + 1
                        nxt.append(v)
            frontier = nxt
        for v in drawn:
            assert (int(table.result[v]), int(table.remoteness[v])) == (
                (0, level[v]) if v in level else (2, -1)
            )


def test_connect4_enumerates_each_tier_as_a_scan_of_every_code_would() -> None:
    """Connect Four's own enumeration of a tier's positions (`tier_positions`) against the default: every
    code tried with the rules' legal, canonical and tier kernels."""
    rules = Connect4(4, 4)
    kernels = rules.kernels()
    assert kernels is not None
    for tier in rules.tiers():
        scanned = scanner(kernels)(rules.size, tier)
        assert np.array_equal(np.asarray(rules.tier_positions(tier)), scanned), tier
