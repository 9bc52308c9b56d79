"""A chess main line's step from the table arrays (kinds.chess.line, `ChessGame.line_moves`) gives
exactly the answer of the step built from BestMove's whole answer (`slow_line_moves`, BestMove probing
board by board): the same move, the same values of the position and of the one reached, for both
metrics. BestMove with its moves' positions valued in one call gives the answer it gives probing board by
board. Checked on random positions of several materials (pawns with promotions, drawn materials whose
draws rank by stalemate and insufficient material, four men with captures into three), under every
colouring and with halfmove clocks around the fifty-move rule; en passant positions (KPvKP) are checked
marked slow."""

from __future__ import annotations

import random
from collections.abc import Iterator

import chess
import pytest

from engine.errors import InvalidPosition
from engine.kind import Context
from engine.stored_bytes import encode_words
from kinds.chess import kind as chess_kind
from kinds.chess.kind import TABLE, ChessGame
from kinds.chess.tables import ChessTable, parse_material
from tests.engine.contexts import StoredWords, engine_context
from tests.kinds.chess.test_syzygy import Solved
from tests.kinds.chess.test_tables import disguise, valid_boards

#: Halfmove clocks the positions are given: fresh, around the rule's edge, past it.
CLOCKS = (0, 37, 80, 99, 100, 130)
METRICS = (None, "dtz", "dtm")


def context_of(tables: dict[str, ChessTable]) -> Context:
    """A request's context whose storage holds `tables` as workers store them (nothing kept yet)."""
    stored = StoredWords()
    for table in tables.values():
        stored.words[(table.material.game_id, TABLE)] = encode_words(table.to_bytes())
    return engine_context(stored)


def with_clock(board: chess.Board, rng: random.Random) -> chess.Board:
    out = board.copy()
    out.halfmove_clock = rng.choice(CLOCKS)
    out.fullmove_number = rng.randrange(1, 90)
    return out


def boards(name: str, count: int, seed: int) -> Iterator[chess.Board]:
    rng = random.Random(seed)
    for _, board in valid_boards(parse_material(name), rng, count):
        yield with_clock(disguise(board, rng), rng)


def same_steps(game: ChessGame, board: chess.Board, ctx: Context) -> None:
    """The fast step and BestMove are the answers BestMove gives probing each board on its own."""
    fen = board.fen()
    fast_moves = game.best_moves(game.parse(fen), None, ctx)
    fast_steps = [game.line_moves(game.parse(fen), metric, ctx) for metric in METRICS]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chess_kind, "child_probes", lambda *_args: None)  # BestMove probes board by board
        assert game.best_moves(game.parse(fen), None, ctx) == fast_moves, fen
        for metric, fast in zip(METRICS, fast_steps, strict=True):
            assert game.slow_line_moves(game.parse(fen), metric, ctx) == fast, (fen, metric)


@pytest.mark.parametrize("name", ["KQvK", "KRvK", "KPvK", "KNvK", "KBvK"])
def test_the_fast_step_is_the_slow_one_for_three_men(tablebase: dict[str, ChessTable], name: str) -> None:
    ctx = context_of(tablebase)
    game = ChessGame(parse_material(name))
    for board in boards(name, 150, seed=len(name) * 7 + ord(name[1])):
        same_steps(game, board, ctx)


@pytest.fixture(scope="module")
def solved() -> Solved:
    return Solved()


def test_the_fast_step_is_the_slow_one_for_queen_against_rook(solved: Solved) -> None:
    table = solved.table("KQvKR")
    ctx = context_of(solved.tables)
    game = ChessGame(table.material)
    for board in boards("KQvKR", 150, seed=11):
        same_steps(game, board, ctx)


def en_passant_boards(count: int, seed: int) -> Iterator[chess.Board]:
    """KPvKP positions with an en passant capture to play, reached by a double step."""
    rng = random.Random(seed)
    found = 0
    for _, board in valid_boards(parse_material("KPvKP"), rng, 100 * count):
        for move in list(board.legal_moves):
            if chess.square_distance(move.from_square, move.to_square) == 2 and board.pawns & (
                1 << move.from_square
            ):
                after = board.copy()
                after.push(move)
                if after.has_legal_en_passant():
                    found += 1
                    yield with_clock(after, rng)
                    if found == count:
                        return


@pytest.mark.slow
def test_the_fast_step_is_the_slow_one_with_en_passant(solved: Solved) -> None:
    table = solved.table("KPvKP")
    ctx = context_of(solved.tables)
    game = ChessGame(table.material)
    for board in [*en_passant_boards(40, seed=3), *boards("KPvKP", 100, seed=4)]:
        same_steps(game, board, ctx)


def test_a_position_reached_by_a_capture_is_still_refused_by_the_material_left(
    tablebase: dict[str, ChessTable],
) -> None:
    """A main line step keeps the board it reached for the next step's parse; a capture's board is of
    another material, which the kind still refuses to read."""
    ctx = context_of(tablebase)
    game = ChessGame(parse_material("KRvK"))
    step = game.line_moves(game.parse("8/8/8/8/8/8/1k6/1R2K3 b - - 0 1"), None, ctx)
    reached = step.moves[0].value
    assert reached.game == "chess:KvK"
    with pytest.raises(InvalidPosition):
        game.parse(reached.position)
