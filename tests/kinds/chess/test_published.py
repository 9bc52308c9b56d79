"""The chess tables' longest wins against statistics others published from their own tables
(`tests/data/chess_longest_wins.json`, sources in `tests/data/README.md`): the longest mate of each
material from the Gaviota tables (both sides to move, both winners), the longest wins by side to move
Kryukov's forum and OEIS give with their positions, Conrady's longest Nalimov mates, and the Syzygy
generator's longest DTZ win per winning side, cursed wins apart.

`make test` checks every 3-man material and a sample of 4-man ones, without and with pawns, whose tables
the Syzygy checks solve too (the same disk cache); every 4-man material is checked marked slow. Five-man
materials take minutes each: `python -m bench.bench_chess_truth` compares them.

The figures differ in form, never in value: Conrady counts plies over both sides to move (KPK's 56 is
Black to move losing in 28 moves; White to move wins in 28 moves, 55 plies), Kryukov's forum and OEIS
count the winner's moves (2n - 1 plies with the winner to move, 2n with the loser), and KR-KP's 85 plies
are the pawn's side winning (it queens and mates), side B here, not the rook's. None of these tables
knows castling; DTM ignores the fifty-move rule, the Syzygy DTZ keeps it (its cursed wins apart).
"""

from __future__ import annotations

from typing import Any

import chess
import pytest

from kinds.chess.material import materials_of, parse_material
from kinds.chess.tables import board_material
from tests.facts import load_facts
from tests.kinds.chess.longest import longest, named
from tests.kinds.chess.test_syzygy import Solved

FACTS = load_facts("chess_longest_wins")
MATERIALS = [m.name for m in materials_of(4) if m.name != "KvK"]
#: 4-man materials whose tables the Syzygy checks' `make test` run solves anyway: queen against rook,
#: the longest mate of pieces alone, a pawn material, and the tables its captures and promotions
#: lead to.
SAMPLE = {"KQvKR", "KBNvK", "KRvKP", "KRvKR", "KRvKB", "KRvKN"}
QUICK = [name for name in MATERIALS if len(name) == 4 or name in SAMPLE]
CASES = [pytest.param(name, marks=() if name in QUICK else pytest.mark.slow) for name in MATERIALS]


@pytest.fixture(scope="module")
def solved() -> Solved:
    return Solved()


def test_the_published_figures_agree_among_themselves() -> None:
    """Conrady's Nalimov figures and the side-by-side mates are the Gaviota maximum (or under it, where
    the side to move is the one a longer mate has not)."""
    dtm = FACTS["longest_dtm"]
    assert len(dtm) == 143  # every material of 3 to 5 men with a mate, all but KBvK and KNvK
    assert len(FACTS["longest_dtz"]) == 145
    for fact in FACTS["longest_by_conrady"]:
        assert dtm[fact["material"]]["plies"] == fact["plies"], fact
    for fact in FACTS["mates_by_side"]:
        moves, plies = fact["moves"], fact["plies"]
        assert plies == (2 * moves - 1 if fact["to_move"] == fact["winner"] else 2 * moves), fact
        assert plies <= dtm[fact["material"]]["plies"], fact


@pytest.mark.parametrize("name", CASES)
def test_the_longest_mate_is_the_published_one(solved: Solved, name: str) -> None:
    """GetStats' longest win or loss (plies, either side to move) is Gaviota's longest mate."""
    table = solved.table(name)
    stats = table.stats()
    win, loss = stats["longest_win"], stats["longest_loss"]
    assert isinstance(win, int) and isinstance(loss, int)
    ours = max(win, loss)
    published = FACTS["longest_dtm"].get(name)
    if published is None:  # no mate at all: no win, no loss
        assert stats["wins"] == stats["losses"] == 0
        return
    assert ours == published["plies"], (name, stats)
    per_side = longest(table.material, table.packed, "dtm", named(table.material))
    assert per_side.either == ours


@pytest.mark.parametrize("name", CASES)
def test_the_longest_dtz_per_winner_is_syzygys(solved: Solved, name: str) -> None:
    """DTZ (with the fifty-move rule): the longest win of each side, either side to move, and the
    longest cursed one, as the Syzygy generator counted them (0 where it names none)."""
    table = solved.table(name)
    per_side = longest(table.material, table.packed, "dtz", named(table.material))
    published: dict[str, Any] = FACTS["longest_dtz"][name]
    for side in ("a", "b"):
        expected = published.get(f"win_{side}", {"plies": 0})["plies"]
        cursed = published.get(f"cursed_win_{side}", {"plies": 0})["plies"]
        assert (per_side.winner(side), per_side.cursed_winner(side)) == (expected, cursed), (name, side)


def _winner_to_move(board: chess.Board, winner: str) -> bool:
    _material, flip = board_material(board)
    a_colour = chess.BLACK if flip else chess.WHITE
    return (board.turn == a_colour) == (winner == "a")


@pytest.mark.parametrize("name", CASES)
def test_the_published_positions_hold_their_published_depth(solved: Solved, name: str) -> None:
    """Each position a source gives with a longest win is, probed here, a win or loss in exactly those
    plies: DTM for the mates, DTZ for Syzygy's."""
    table = solved.table(name)
    seen = 0
    for fact in FACTS["mates_by_side"]:
        if fact["material"] != name:
            continue
        board = chess.Board(fact["position"])
        assert board_material(board)[0] == parse_material(name)
        assert _winner_to_move(board, fact["winner"]) == (fact["to_move"] == fact["winner"])
        sign = 1 if fact["to_move"] == fact["winner"] else -1
        assert table.probe(board).dtm == sign * fact["plies"], fact
        seen += 1
    for key, fact in FACTS["longest_dtz"][name].items():
        if not key.startswith(("win_", "cursed_win_")):
            continue
        board = chess.Board(fact["position"])
        sign = 1 if _winner_to_move(board, key[-1]) else -1
        assert table.probe(board).dtz == sign * fact["plies"], (key, fact)
        seen += 1
    assert seen or name in ("KBvK", "KNvK")
