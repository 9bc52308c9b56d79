"""Reading a FEN for an endgame table: every reason a table cannot answer it, each named.

A table answers a legal position of its material with no castling rights; the FEN's en passant square is
kept where a double step could have made it (the tables play en passant), and so are its halfmove clock (the
fifty-move rule: lila's `category`) and move number (the FENs of moves count on from it). InvalidPosition
quotes the FEN and says what is wrong: malformed (a character outside ASCII too); castling rights (the
castling field); an en passant square no double step could have made; the side not to move in check; pawns
on the first or last rank; more men than tables hold (`MAX_TABLE_MEN`: nimbase's own; `MAX_SYZYGY_MEN` for a
material only Syzygy files answer), or than the material; another material.
"""

from __future__ import annotations

from typing import Protocol

import chess

from engine.errors import InvalidPosition
from engine.positions import quote_position

#: Most men of a position a table may hold (tablebases of up to five men).
MAX_TABLE_MEN = 5
#: Most men of a position the user's Syzygy files may hold (Syzygy tables go up to seven men).
MAX_SYZYGY_MEN = 7
#: Longest FEN text looked at (a FEN of these materials is under 70 characters).
MAX_FEN_CHARS = 120

#: Statuses python-chess reports that the tables accept: a check no legal move could have given is
#: still a position with legal moves.
_ACCEPTED_STATUS = chess.STATUS_IMPOSSIBLE_CHECK | chess.STATUS_TOO_MANY_CHECKERS
_STATUS_TEXT = (
    (chess.STATUS_NO_WHITE_KING, "White has no king"),
    (chess.STATUS_NO_BLACK_KING, "Black has no king"),
    (chess.STATUS_TOO_MANY_KINGS, "too many kings"),
    (chess.STATUS_EMPTY, "the board is empty"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "a pawn stands on the first or last rank"),
    (chess.STATUS_OPPOSITE_CHECK, "the side not to move is in check (or the kings are adjacent)"),
    (chess.STATUS_TOO_MANY_WHITE_PAWNS, "White has more than 8 pawns"),
    (chess.STATUS_TOO_MANY_BLACK_PAWNS, "Black has more than 8 pawns"),
    (chess.STATUS_TOO_MANY_WHITE_PIECES, "White has more than 16 men"),
    (chess.STATUS_TOO_MANY_BLACK_PIECES, "Black has more than 16 men"),
)


class TableMaterial(Protocol):
    """What a FEN is checked against: a material's name, id and number of men (chess_tables' Material)."""

    @property
    def name(self) -> str: ...

    @property
    def game_id(self) -> str: ...

    @property
    def men(self) -> int: ...


def material_name(board: chess.Board) -> str:
    """The board's material in the usual tablebase naming, White's side first (`KRvK`, `KvKR`)."""
    order = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)

    def side(colour: chess.Color) -> str:
        return "K" + "".join(chess.piece_symbol(t).upper() * len(board.pieces(t, colour)) for t in order)

    return f"{side(chess.WHITE)}v{side(chess.BLACK)}"


def parse_fen(text: str, most: int = MAX_TABLE_MEN) -> chess.Board:
    """The legal position a FEN names (any material of at most `most` men), with its en passant square
    and clocks: the checks of the module docstring but the material's (lila's routes read FENs of any
    material)."""
    if len(text) > MAX_FEN_CHARS:
        raise InvalidPosition(f"FEN {quote_position(text)} is longer than {MAX_FEN_CHARS} characters")
    if not text.isascii():  # python-chess reads clocks with int(), which takes any script's digits
        raise InvalidPosition(f"malformed FEN {quote_position(text)}: {not_ascii(text)}")
    try:
        board = chess.Board(text)
    except ValueError as error:
        raise InvalidPosition(f"malformed FEN {quote_position(text)}: {error}") from None
    return check_board(board, text, most)


def not_ascii(text: str) -> str:
    """What is wrong with a FEN holding a character outside ASCII (the first one named): a FEN is ASCII,
    and its clocks ASCII digits ('\u0663', an Arabic-Indic three, is no clock)."""
    char = next(c for c in text if not c.isascii())
    return f"it holds {char!r} (U+{ord(char):04X}), not an ASCII character"


def check_board(board: chess.Board, text: str, most: int = MAX_TABLE_MEN) -> chess.Board:
    """`board` if `parse_fen(text, most)` would read it (the board `text` names): every check of `parse_fen`
    but reading the text again."""
    fields = text.split()
    if len(fields) >= 3 and fields[2] != "-":
        raise InvalidPosition(
            f"position {quote_position(text)} has castling rights in its castling field ({fields[2]!r}), "
            "which endgame tables do not play (use '-')"
        )
    status = board.status()
    if board.ep_square is not None and status & chess.STATUS_INVALID_EP_SQUARE:
        square = chess.square_name(board.ep_square)
        raise InvalidPosition(
            f"position {quote_position(text)} has the en passant square {square!r}, which no double step "
            "of a pawn could have made"
        )
    men = chess.popcount(board.occupied)
    if men > most:
        raise InvalidPosition(f"position {quote_position(text)} has {men} men: tables hold at most {most}")
    status &= ~_ACCEPTED_STATUS
    if status:
        reasons = [why for flag, why in _STATUS_TEXT if status & flag] or ["it is not a legal position"]
        raise InvalidPosition(f"illegal position {quote_position(text)}: {'; '.join(reasons)}")
    return board


def check_material(material: TableMaterial, found: str, board: chess.Board, text: str) -> chess.Board:
    """`board` (read from `text` by `parse_fen`) when it is of `material`, `found` being the canonical
    name of its material: InvalidPosition quoting the FEN when it holds more men than the material or
    another material."""
    men = chess.popcount(board.occupied)
    if men > material.men:
        raise InvalidPosition(
            f"position {quote_position(text)} has {men} men, more than the {material.men} of "
            f"{material.name}: it is {found}, not the material of {material.game_id!r}"
        )
    if found != material.name:
        raise InvalidPosition(
            f"position {quote_position(text)} is {found}, not the material of {material.game_id!r}"
        )
    return board


def _row_templates() -> tuple[list[str], list[tuple[int, ...]]]:
    """For each rank's occupancy (a byte, file a the lowest bit): the rank's FEN with `{}` for each man
    and the files the men stand on."""
    templates, files = [], []
    for byte in range(256):
        text, gap, men = "", 0, []
        for file in range(8):
            if byte >> file & 1:
                text, gap = text + (str(gap) if gap else "") + "{}", 0
                men.append(file)
            else:
                gap += 1
        templates.append(text + (str(gap) if gap else ""))
        files.append(tuple(men))
    return templates, files


_ROW_TEMPLATES, _ROW_FILES = _row_templates()
#: The ranks' shifts, from the eighth rank down, as a FEN lists them.
_RANK_SHIFTS = (56, 48, 40, 32, 24, 16, 8, 0)


def position_fen(board: chess.Board) -> str:
    """The FEN answers give: no castling rights, the en passant square only where a capture can use it,
    the halfmove clock and the move number as they are (python-chess's `board.fen(en_passant="legal")`
    of a board without castling rights, written rank by rank from the few men there are, each rank from
    its occupancy's template: BestMove writes one for every move)."""
    pawns, knights, bishops, rooks, queens = (
        board.pawns,
        board.knights,
        board.bishops,
        board.rooks,
        board.queens,
    )
    white = board.occupied_co[chess.WHITE]
    occupied = board.occupied
    rows: list[str] = []
    for shift in _RANK_SHIFTS:
        byte = occupied >> shift & 255
        if not byte:
            rows.append("8")
            continue
        letters = []
        for file in _ROW_FILES[byte]:
            bit = 1 << (shift + file)
            letter = (
                "p"
                if pawns & bit
                else "n"
                if knights & bit
                else "b"
                if bishops & bit
                else "r"
                if rooks & bit
                else "q"
                if queens & bit
                else "k"
            )
            letters.append(letter.upper() if white & bit else letter)
        rows.append(_ROW_TEMPLATES[byte].format(*letters))
    ep = "-"
    if board.ep_square is not None and board.has_legal_en_passant():
        ep = chess.square_name(board.ep_square)
    turn = "w" if board.turn == chess.WHITE else "b"
    return f"{'/'.join(rows)} {turn} - {ep} {board.halfmove_clock} {board.fullmove_number}"
