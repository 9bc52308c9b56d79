"""Five-man chess tables, which no reference file covers, checked from the rules (tests.kinds.chess.rules):
random positions (placed at random, either colouring) hold their retrograde equations, every capture
landing in a four-man table whose value there Syzygy confirms; short mates and losses agree with a
plain search. KQRvKR is checked marked slow (its solve takes minutes); the same checks run on KQvKR in
`make test`, its captures landing in three-man tables."""

from __future__ import annotations

import random
from collections.abc import Iterator

import chess
import chess.syzygy
import numpy as np
import pytest

from kinds.chess.material import parse_material
from kinds.chess.tables import board_of_slot, slot_of_board
from tests.kinds.chess import rules
from tests.kinds.chess.test_syzygy import Solved
from tests.reference.chess_files import syzygy_dir

#: A five-man solve takes minutes, more on a loaded machine (the tests' time bound is 10 minutes).
FIVE = (pytest.mark.slow, pytest.mark.timeout(3600))
CASES = [("KQvKR", 200), pytest.param("KQRvKR", 400, marks=FIVE)]
NAMES = ["KQvKR", pytest.param("KQRvKR", marks=FIVE)]


@pytest.fixture(scope="module")
def solved() -> Solved:
    return Solved()


@pytest.fixture(scope="module")
def syzygy() -> Iterator[chess.syzygy.Tablebase]:
    with chess.syzygy.open_tablebase(str(syzygy_dir())) as tablebase:
        yield tablebase


def _wdl(dtz: int) -> int:
    """The fifty-move rule's outcome of a DTZ value, as Syzygy's WDL (2 win ... -2 loss)."""
    if dtz > 0:
        return 2 if dtz <= rules.RULE else 1
    if dtz < 0:
        return -2 if -dtz - 1 <= rules.RULE else -1
    return 0


def random_board(name: str, rng: random.Random) -> chess.Board:
    """A legal position of material `name`, men placed at random, White or Black holding side A."""
    material = parse_material(name)
    swap = rng.random() < 0.5
    while True:
        board = chess.Board(None)
        squares = rng.sample(range(64), material.men)
        men = [(chess.KING, 0), (chess.KING, 1), *material.pieces]
        for square, (kind, owner) in zip(squares, men, strict=True):
            board.set_piece_at(square, chess.Piece(kind, (owner == 0) != swap))
        board.turn = rng.random() < 0.5
        if board.is_valid():
            return board


def test_the_plain_index_places_boards_where_the_tables_do() -> None:
    """tests.kinds.chess.rules.slot (the index's plain reference) against the tables' own, both colourings."""
    rng = random.Random(3)
    for name in ("KQvKR", "KRRvK", "KQRvKR", "KRPvKR"):
        material = parse_material(name)
        for _ in range(50):
            board = random_board(name, rng)
            assert rules.slot(material, board) == slot_of_board(material, board), board.fen()


@pytest.mark.parametrize(("name", "count"), CASES)
def test_random_positions_hold_the_retrograde_equations(
    solved: Solved, syzygy: chess.syzygy.Tablebase, name: str, count: int
) -> None:
    material = parse_material(name)
    captures = 0

    def lookup(board: chess.Board) -> tuple[int, int]:
        nonlocal captures
        found, _ = rules.material_of(board)
        values = solved.table(found.name).packed.lookup(rules.slot(found, board))
        if found != material and found.men >= 3:
            captures += 1  # a capture: Syzygy confirms the four-man (or three-man) table there
            assert _wdl(values[1]) == syzygy.probe_wdl(board), board.fen()
        return values

    rng = random.Random(name)
    table = solved.table(name)
    for _ in range(count):
        board = random_board(name, rng)
        ours = table.packed.lookup(rules.slot(material, board))
        assert ours == rules.expected(board, lookup), board.fen()
    assert captures > count // 4


@pytest.mark.parametrize("name", NAMES)
def test_short_mates_agree_with_a_plain_search(solved: Solved, name: str) -> None:
    """Wins in 1 and 3 plies and losses in 0 and 2 are the search's; longer wins and draws have no
    mate within 3 plies."""
    material = parse_material(name)
    dtm = solved.table(name).packed.dtm
    rng = np.random.default_rng(11)
    for value, count in ((1, 6), (3, 6), (-1, 4), (-3, 6), (7, 4), (0, 4)):
        slots = np.flatnonzero(dtm == value)
        assert slots.size, value
        for slot in rng.choice(slots, min(count, slots.size), replace=False).tolist():
            board = board_of_slot(material, slot)
            if board is None:  # a slot naming no position holds its neighbour's value
                continue
            if value > 0:
                assert rules.mate_in(board, 3) == (value if value <= 3 else None), board.fen()
            elif value < 0:
                assert rules.mated_in(board, 2) == -value - 1, board.fen()
            else:
                assert rules.mate_in(board, 3) is None, board.fen()
