"""Standard algebraic notation of a legal move, written from what the move list already says.

python-chess's `Board.san` generates the legal moves again for each move (which other pieces of the
same kind reach the same square), then plays the move and generates the moves of the position reached
to tell a check from a mate. An answer lists every legal move at once: `origins` finds, in one pass over
the moves already generated, the squares each piece kind reaches a square from, and the caller knows
from the position reached whether a check mates (`without_suffix` leaves the `+` or `#` to it). The
text is python-chess's, character for character (tests compare them); castling is never written here:
the tables play positions without castling rights (python-chess writes a castling move).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import chess

#: The SAN letter of each piece type ("" for a pawn).
_LETTERS = ("", "", "N", "B", "R", "Q", "K")
#: Each square's name, and the names of the files and ranks.
_SQUARES = chess.SQUARE_NAMES
_FILES = chess.FILE_NAMES
_RANKS = chess.RANK_NAMES


def origins(board: chess.Board, moves: Iterable[chess.Move]) -> dict[tuple[int, int], int]:
    """For each (piece type, target square) of `board`'s legal `moves` but a pawn's, the squares those
    moves start from, as a bitboard (what disambiguates a move in SAN)."""
    found: dict[tuple[int, int], int] = {}
    pawns = board.pawns
    for move in moves:
        start = move.from_square
        if pawns >> start & 1:
            continue
        key = (board.piece_type_at(start) or 0, move.to_square)
        found[key] = found.get(key, 0) | 1 << start
    return found


def others(board: chess.Board, move: chess.Move, found: Mapping[tuple[int, int], int] | None) -> int:
    """The squares other legal moves of the same piece type to the same square start from (`found`:
    `origins` of the board's legal moves; generated here when None)."""
    return _others(board, move, board.piece_type_at(move.from_square) or 0, found)


def _others(
    board: chess.Board, move: chess.Move, kind: int, found: Mapping[tuple[int, int], int] | None
) -> int:
    start = move.from_square
    if kind == chess.PAWN:
        return 0
    if found is None:
        mask = board.pieces_mask(kind, board.turn) & ~chess.BB_SQUARES[start]
        candidates = board.generate_legal_moves(mask, chess.BB_SQUARES[move.to_square])
        return sum({1 << candidate.from_square for candidate in candidates})
    return found.get((kind, move.to_square), 0) & ~(1 << start)


def without_suffix(board: chess.Board, move: chess.Move, other_origins: int) -> str:
    """The SAN of the legal `move` of `board` without its check or mate suffix; `other_origins` is
    `others(board, move, ...)`."""
    kind = board.piece_type_at(move.from_square) or 0
    en_passant = (
        kind == chess.PAWN
        and move.to_square == board.ep_square
        and abs(move.to_square - move.from_square) in (7, 9)
    )
    capture = en_passant or bool(board.occupied_co[not board.turn] >> move.to_square & 1)
    return written(board, move, kind, capture, other_origins)


def written(board: chess.Board, move: chess.Move, kind: int, capture: bool, other_origins: int) -> str:
    """`without_suffix` of a move whose piece type (`kind`) and whether it captures are known; a castling
    move is python-chess's to write."""
    if board.castling_rights and board.is_castling(move):
        return board.san(move).rstrip("+#")
    start, target = move.from_square, move.to_square
    if kind == chess.PAWN:
        text = _FILES[start & 7] + "x" if capture else ""
    else:
        text = _LETTERS[kind]
        if other_origins:
            column = bool(other_origins & chess.BB_RANKS[start >> 3])
            row = bool(other_origins & chess.BB_FILES[start & 7])
            if column or not row:
                text += _FILES[start & 7]
            if row:
                text += _RANKS[start >> 3]
        if capture:
            text += "x"
    text += _SQUARES[target]
    if move.promotion:
        text += "=" + _LETTERS[move.promotion]
    return text


def written_with_others(
    board: chess.Board,
    move: chess.Move,
    kind: int,
    capture: bool,
    found: Mapping[tuple[int, int], int] | None,
) -> str:
    """`written`, the other moves' origins taken from `found` (`origins`; generated when None)."""
    return written(board, move, kind, capture, _others(board, move, kind, found))
