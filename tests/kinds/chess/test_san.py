"""kinds.chess.san writes python-chess's SAN, character for character: every legal move of many
random positions (games played at random from the opening, and endgames with several men of a kind and
pawns about to promote or take en passant), with the check and mate suffix as move_info adds it; and the
board move_info plays a move on is python-chess's pushed board."""

from __future__ import annotations

import random

import chess
import pytest

from kinds.chess import san
from kinds.chess.answers import move_info, played
from kinds.chess.probe import ChessProbe

#: The opening position without castling rights (the tables' positions have none).
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"


def written(board: chess.Board, move: chess.Move, found: dict[tuple[int, int], int] | None) -> str:
    text = san.without_suffix(board, move, san.others(board, move, found))
    after = board.copy(stack=False)
    after.push(move)
    if after.is_check():
        text += "#" if after.is_checkmate() else "+"
    return text


def check_every_move(board: chess.Board) -> int:
    moves = list(board.legal_moves)
    found = san.origins(board, moves)
    for move in moves:
        expected = board.san(move)
        assert written(board, move, found) == expected, (board.fen(), move.uci())
        assert written(board, move, None) == expected, (board.fen(), move.uci())
    return len(moves)


def random_games(seed: int, games: int, plies: int) -> list[chess.Board]:
    rng = random.Random(seed)
    boards = []
    for _ in range(games):
        board = chess.Board(START)
        for _ in range(plies):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            boards.append(board.copy(stack=False))
    return boards


def random_endgames(seed: int, count: int) -> list[chess.Board]:
    """Legal positions of a few men: queens, rooks, knights and bishops doubled or tripled, pawns on
    their seventh rank, and en passant squares where a double step could have made them."""
    rng = random.Random(seed)
    boards: list[chess.Board] = []
    kinds = "QQQRRNNNBBPPPP"
    while len(boards) < count:
        board = chess.Board(None)
        board.turn = rng.choice((chess.WHITE, chess.BLACK))
        squares = rng.sample(chess.SQUARES, 9)
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for square in squares[2 : 2 + rng.randrange(2, 7)]:
            symbol = rng.choice(kinds)
            colour = rng.random() < 0.7 if board.turn == chess.WHITE else rng.random() < 0.3
            if symbol == "P":
                rank = 6 if colour == chess.WHITE else 1
                if rng.random() < 0.5:
                    square = chess.square(chess.square_file(square), rank)
            board.set_piece_at(square, chess.Piece(chess.Piece.from_symbol(symbol).piece_type, colour))
        for square in chess.SQUARES:  # en passant: a pawn that may just have made its double step
            piece = board.piece_at(square)
            rank = 4 if board.turn == chess.WHITE else 3
            theirs = piece is not None and piece.piece_type == chess.PAWN and piece.color != board.turn
            if theirs and chess.square_rank(square) == rank and rng.random() < 0.5:
                board.ep_square = square + (8 if board.turn == chess.WHITE else -8)
                beside = square + rng.choice((-1, 1))
                if chess.square_rank(beside) == rank and board.piece_at(beside) is None:
                    board.set_piece_at(beside, chess.Piece(chess.PAWN, board.turn))
                break
        if board.is_valid() and any(board.legal_moves):
            boards.append(board)
    return boards


@pytest.mark.parametrize("seed", range(4))
def test_the_san_of_every_move_of_random_games(seed: int) -> None:
    assert sum(check_every_move(board) for board in random_games(seed, 4, 120)) > 5000


@pytest.mark.parametrize("seed", range(4))
def test_the_san_of_every_move_of_random_endgames(seed: int) -> None:
    boards = random_endgames(seed, 400)
    assert sum(check_every_move(board) for board in boards) > 5000
    ambiguous = [b for b in boards if any(san.others(b, m, None) for m in b.legal_moves)]
    assert len(ambiguous) > 20  # disambiguation is exercised
    assert any(m.promotion for b in boards for m in b.legal_moves)
    assert any(b.is_en_passant(m) for b in boards for m in b.legal_moves)


def test_move_info_writes_pythons_san_with_its_suffix() -> None:
    """move_info's SAN, a mate's `#` from the table's probe (a loss in 0) or from the board itself."""
    mating = chess.Board("6k1/8/6K1/8/8/8/8/R7 w - - 0 1")
    mate = chess.Move.from_uci("a1a8")
    lost = ChessProbe(-2, -1, 0, True)
    assert move_info(mating, mate, lambda _board: lost).san == "Ra8#"
    assert move_info(mating, mate, lambda _board: lost, lost).san == "Ra8#"
    checking = chess.Move.from_uci("a1a7")
    drawn = ChessProbe(0, 0, 0, True)
    assert move_info(mating, checking, lambda _board: drawn).san == mating.san(checking) == "Ra7"
    check = chess.Board("8/8/8/8/8/2k5/8/KR6 w - - 0 1")
    move = chess.Move.from_uci("b1b3")
    assert move_info(check, move, lambda _board: ChessProbe(-2, -20, -20, True)).san == "Rb3+"


@pytest.mark.parametrize("seed", range(3))
def test_a_moves_board_is_pythons_pushed_board(seed: int) -> None:
    """`played` (move_info's board) is python-chess's copy and push, bit for bit: captures, en passant,
    promotions and the promoted pieces of random games, the clocks and the en passant square."""
    boards = random_games(seed, 4, 160) + random_endgames(seed, 200)
    promoted = 0
    for board in boards:
        for move in board.legal_moves:
            kind = board.piece_type_at(move.from_square) or 0
            pushed = board.copy(stack=False)
            pushed.push(move)
            mine = played(board, move, kind, board.is_zeroing(move))
            masks = ("pawns", "knights", "bishops", "rooks", "queens", "kings", "promoted", "occupied")
            assert [getattr(mine, name) for name in masks] == [getattr(pushed, name) for name in masks]
            assert mine.occupied_co == pushed.occupied_co and mine.ep_square == pushed.ep_square
            assert mine.fen() == pushed.fen() and mine.turn == pushed.turn
            promoted += bool(mine.promoted)
    assert promoted > 0
