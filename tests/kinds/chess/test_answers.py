"""lila's rules as kinds.chess.answers applies them, on probes made up for the case: the category
from DTZ and the halfmove clock (Syzygy's `AmbiguousWdl::from_dtz_and_halfmoves`, lila's
`PartialPositionInfo::with_dtc`), the opposite categories, lila's DTM ordering, the Syzygy best-move order,
and FEN reading (castling, en passant, men)."""

from __future__ import annotations

import chess
import pytest

from engine.errors import InvalidPosition
from kinds.chess.answers import (
    CATEGORY_ORDER,
    OPPOSITE,
    _tightening,
    answer,
    best_move_key,
    position_info,
    wdl_of,
)
from kinds.chess.fen import parse_fen, position_fen
from kinds.chess.probe import ChessProbe

#: KRvK, White to move, not mate.
KRVK = "8/8/8/8/8/2k5/8/KR6 w - - {clock} 40"


def category_of(dtz: int, clock: int, precise: bool = True, before: int | None = None) -> str:
    board = chess.Board(KRVK.format(clock=clock))
    wdl = wdl_of("N" if dtz > 0 else "P", dtz)
    return position_info(board, ChessProbe(wdl, dtz, None, precise), before).category


@pytest.mark.parametrize(
    ("dtz", "clock", "precise", "category"),
    [
        (27, 0, True, "win"),
        (27, 73, True, "win"),  # 100 plies to the zeroing move: just in time
        (27, 73, False, "syzygy-win"),  # rounded: maybe 101
        (27, 74, True, "cursed-win"),
        (-27, 73, True, "loss"),
        (-27, 73, False, "syzygy-loss"),
        (-27, 74, True, "blessed-loss"),
        (110, 0, True, "cursed-win"),  # won, but not within fifty moves of the zeroing move
        (-110, 0, True, "blessed-loss"),
        (100, 0, False, "win"),  # right after a zeroing move the value is a win whatever the rounding
    ],
)
def test_category_from_dtz_and_the_clock(dtz: int, clock: int, precise: bool, category: str) -> None:
    assert category_of(dtz, clock, precise) == category


def test_past_the_fifty_moves_only_the_sign_counts() -> None:
    assert category_of(3, 101) == "cursed-win" and category_of(-3, 101) == "blessed-loss"
    assert category_of(3, 100, before=100) == "cursed-win"


def test_a_table_without_dtz_gives_its_wdl() -> None:
    board = chess.Board(KRVK.format(clock=0))
    assert position_info(board, ChessProbe(2, None, 27)).category == "win"
    assert position_info(board, ChessProbe(0, None, 0)).category == "draw"
    late = chess.Board(KRVK.format(clock=101))
    assert position_info(late, ChessProbe(2, None, 27)).category == "cursed-win"


def test_the_opposite_of_a_category() -> None:
    assert all(OPPOSITE[OPPOSITE[c]] == c for c in CATEGORY_ORDER)
    assert OPPOSITE["draw"] == "draw" and OPPOSITE["cursed-win"] == "blessed-loss"


def test_lilas_tightening_order() -> None:
    """lila's own test of `tightening_metric_sort_key` (src/metric.rs)."""
    metrics = [-1, -2, None, 0, 2, 1]
    assert sorted(metrics, key=_tightening) == metrics


def test_the_syzygy_best_move_order() -> None:
    keys = [
        best_move_key("P", -1, True, False),  # mate
        best_move_key("P", -5, False, True),  # zeroing while winning
        best_move_key("P", -5, False, False),
        best_move_key("P", -9, False, False),
        best_move_key("P", -120, False, False),  # cursed
        best_move_key("D", 0, False, False),
        best_move_key("N", 3, False, False),  # losing: keep from zeroing
        best_move_key("N", 3, False, True),
    ]
    assert keys == sorted(keys)


def test_moves_count_the_clocks_on_and_rank_as_lila() -> None:
    board = chess.Board("8/8/8/8/8/8/k7/1R5K b - - 7 30")  # Black may take the rook

    def probe(after: chess.Board) -> ChessProbe:
        if len(after.piece_map()) == 2:
            return ChessProbe(0, 0, 0)
        return ChessProbe(2, 5, 9)  # every other reply leaves White winning

    found = answer(board, probe)
    first = found.moves[0]
    assert (first.uci, first.zeroing, first.conversion, first.info.category) == ("a2b1", True, True, "draw")
    assert position_fen(first.board) == "8/8/8/8/8/8/8/1k5K w - - 0 31"
    assert found.info.category == "draw"
    others = [m for m in found.moves[1:]]
    assert all(position_fen(m.board).endswith(" 8 31") and m.info.category == "win" for m in others)


@pytest.mark.parametrize(
    ("fen", "why"),
    [
        ("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "castling field ('Q')"),
        ("4k3/8/8/8/8/8/8/R3K3 w Kq - 0 1", "castling field ('Kq')"),
        ("4k3/8/8/8/8/8/4P3/4K3 b - e3 0 1", "en passant square 'e3'"),
        ("4k3/8/8/8/4P3/8/8/4K3 w - e3 0 1", "en passant square 'e3'"),
        ("4k3/8/8/8/8/8/PPPP4/4K3 w - - 0 1", "6 men: tables hold at most 5"),
        ("4k3/8/8/8/8/8/8/4RK2 w - - 0 1", "side not to move is in check"),
        ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", "first or last rank"),
        # Clocks in digits of another script: int() reads '\u0663' (Arabic-Indic three) as 3.
        ("4k3/8/8/8/8/8/8/R3K3 w - - \u0663 1", "'\u0663' (U+0663), not an ASCII character"),
        ("4k3/8/8/8/8/8/8/R3K3 w - - 0 \u0661\u0662", "'\u0661' (U+0661), not an ASCII character"),
    ],
)
def test_fens_the_tables_refuse(fen: str, why: str) -> None:
    with pytest.raises(InvalidPosition) as error:
        parse_fen(fen)
    assert why in str(error.value) and repr(fen) in str(error.value)


def test_a_double_step_keeps_its_en_passant_square() -> None:
    board = parse_fen("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1")
    assert board.ep_square == chess.E3 and board.halfmove_clock == 0


def test_the_answers_fen_is_python_chess_fen() -> None:
    """`position_fen` writes what `board.fen(en_passant="legal")` writes (boards without castling)."""
    import random

    rng = random.Random(4)
    kinds = "PNBRQpnbrq"
    for _ in range(2000):
        board = chess.Board(None)
        for square in rng.sample(chess.SQUARES, rng.randrange(2, 9)):
            board.set_piece_at(square, chess.Piece.from_symbol(rng.choice(kinds)))
        board.turn = rng.random() < 0.5
        board.halfmove_clock, board.fullmove_number = rng.randrange(120), rng.randrange(1, 300)
        assert position_fen(board) == board.fen(en_passant="legal")
    double_step = chess.Board("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1")
    double_step.push_uci("e2e4")
    assert (
        position_fen(double_step)
        == double_step.fen(en_passant="legal")
        == "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1"
    )
