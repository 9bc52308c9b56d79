"""lichess's tablebase API (`GET /standard?fen=`, `GET /standard/mainline?fen=`), answered as
lila-tablebase answers it, so that a client of lichess's tablebase works by changing its base URL.

The answers are the chess kind's (BestMove: lila's view of the position and its moves, ranked as lila ranks
them; kinds.chess.answers) in lila's JSON shape: its field names and order, `null` for what is
unknown (`dtw` and `dtc`, which standard chess has not, always), `variant_win` and `variant_loss` always
false. lila's errors: a FEN it cannot read, or an illegal position, is 400 with the reason as plain text (an
en passant square no double step of a pawn could have made, or a character outside ASCII, is 400 too);
castling rights, too many men (more than seven, or more than five without Syzygy files), or a material no
table answers (here: one nimbase neither has stored nor may solve for the request, nor finds in the Syzygy
files) is 404; like lila, castling rights the board contradicts, and an en passant square no pawn can take
on, are ignored, not refused. Other failures (the deadline, the server stopping) keep the status the rest of
the API gives, with the message as plain text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import chess

from engine.deadline import Deadline
from engine.errors import InvalidGameId, InvalidPosition, LimitExceeded, NimbaseError
from engine.positions import quote_position
from engine.values import BestMoveResult, MoveValue
from kinds.chess.answers import FIFTY_MOVES, best_move_key
from kinds.chess.fen import (
    MAX_SYZYGY_MEN,
    MAX_TABLE_MEN,
    check_board,
    material_name,
    not_ascii,
    position_fen,
)
from kinds.chess.kind import BeyondTables
from kinds.chess.records import ChessMove, ChessValue
from kinds.chess.tables import parse_material
from service.calls import BestMove
from service.convert import http_status, public_error
from service.core import NimbaseService

#: Most plies of a main line: lila stops at the fifty-move rule, which a main line of DTZ moves never
#: reaches; this bounds one without DTZ.
MAINLINE_PLIES = 1000


class LilaError(Exception):
    """An answer lila gives as an error: its HTTP status and its plain-text message."""

    def __init__(self, status: int, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        #: The API's code name of the status (the metrics count answers by it).
        self.code = code or {400: "INVALID_ARGUMENT", 404: "NOT_FOUND"}.get(status, "INTERNAL")


@dataclass(frozen=True, slots=True)
class Asked:
    """A FEN as lila reads it: the board (castling rights and en passant square the board contradicts
    dropped), its FEN for the chess kind, and the kind's game id."""

    board: chess.Board
    fen: str
    game: str


def read(fen: str | None) -> Asked:
    """The position lila would probe (LilaError 400 for a FEN it cannot read or an illegal position,
    404 for castling rights, more men than Syzygy tables hold or a material no table of nimbase's covers;
    past nimbase's own five men, the kind says whether the Syzygy files answer)."""
    if fen is None:
        raise LilaError(400, "Failed to deserialize query string: missing field `fen`")
    text = fen.replace("_", " ").strip()
    if not text.isascii():  # python-chess reads clocks with int(), which takes any script's digits
        raise LilaError(400, f"invalid fen {quote_position(fen)}: {not_ascii(text)}")
    try:
        board = chess.Board(text)
    except ValueError as error:
        raise LilaError(400, f"invalid fen {quote_position(fen)}: {error}") from None
    board.castling_rights = board.clean_castling_rights()
    if board.castling_rights:
        raise LilaError(404, "syzygy tables do not contain position with castling rights")
    if board.ep_square is not None:
        if board.status() & chess.STATUS_INVALID_EP_SQUARE:
            square = chess.square_name(board.ep_square)
            raise LilaError(
                400,
                f"illegal position {quote_position(fen)}: the en passant square {square!r} is not one a "
                "double step of a pawn could have made",
            )
        if not board.has_legal_en_passant():
            board.ep_square = None
    men = chess.popcount(board.occupied)
    if men > MAX_SYZYGY_MEN:
        raise _too_many(MAX_SYZYGY_MEN, men)
    canonical = position_fen(board)  # its castling rights cleared: board.fen(en_passant="legal")
    try:
        check_board(board, canonical, MAX_SYZYGY_MEN)  # parse_fen(canonical), without reading it again
    except InvalidPosition as error:
        raise LilaError(400, str(error)) from None
    try:
        material = parse_material(material_name(board), MAX_SYZYGY_MEN)
    except InvalidGameId as error:
        raise LilaError(404, f"required table not found: {material_name(board)} ({error})") from None
    return Asked(board, canonical, material.game_id)


def _too_many(most: int, men: int) -> LilaError:
    return LilaError(404, f"too many pieces: tables hold at most {most} men, the position has {men}")


def _failure(exc: NimbaseError) -> LilaError:
    """A service error as lila would give it: a table not stored (nor in the Syzygy files) is lila's
    missing table, 404, and so is a material past nimbase's own five men (too many pieces where no Syzygy
    files are set); anything else keeps the API's status."""
    if isinstance(exc, LimitExceeded) and exc.code == "RESOURCE_EXHAUSTED":
        return LilaError(404, f"required table not found: {exc}")
    if isinstance(exc, BeyondTables):
        if not exc.syzygy_set:
            return _too_many(MAX_TABLE_MEN, exc.men)
        return LilaError(404, f"required table not found: {exc}")
    if isinstance(exc, InvalidPosition | InvalidGameId):
        return LilaError(400, str(exc))
    code, message = public_error(exc)
    return LilaError(http_status(code), message, code)


def _probe(service: NimbaseService, asked: Asked, deadline: Deadline) -> BestMoveResult:
    try:
        return service.best_move(BestMove(asked.game, asked.fen, deadline=deadline))
    except NimbaseError as exc:
        raise _failure(exc) from None


def _position(record: ChessValue) -> dict[str, Any]:
    """lila's `PositionInfo`, its fields in its order."""
    return {
        "checkmate": record.checkmate,
        "stalemate": record.stalemate,
        "variant_win": False,
        "variant_loss": False,
        "insufficient_material": record.insufficient_material,
        "dtz": record.dtz,
        "precise_dtz": record.precise_dtz,
        "dtm": record.dtm,
        "dtw": None,
        "dtc": None,
        "category": record.category,
    }


def _records(move: MoveValue) -> tuple[ChessMove, ChessValue]:
    kind, reached = move.kind, move.value.kind
    assert isinstance(kind, ChessMove) and isinstance(reached, ChessValue), "a chess move"
    return kind, reached


def standard(service: NimbaseService, fen: str | None, deadline: Deadline) -> dict[str, Any]:
    """`GET /standard?fen=`: lila's `TablebaseResponse` (LilaError as lila answers errors)."""
    asked = read(fen)
    result = _probe(service, asked, deadline)
    root = result.value.kind
    assert isinstance(root, ChessValue), "a chess value"
    moves = []
    for move in result.moves:
        kind, reached = _records(move)
        moves.append(
            {"uci": kind.uci, "san": kind.san, "zeroing": kind.zeroing, "conversion": kind.conversion}
            | _position(reached)
        )
    return _position(root) | {"moves": moves}


def standard_json(service: NimbaseService, fen: str | None, deadline: Deadline) -> bytes:
    """`standard`'s answer as the JSON bytes the REST app would send for it (compact, as JSONResponse
    writes it), written directly: no dictionaries per move, no encoder walking them. Its strings (UCI,
    SAN, categories) need no escaping."""
    asked = read(fen)
    result = _probe(service, asked, deadline)
    root = result.value.kind
    assert isinstance(root, ChessValue), "a chess value"
    moves = []
    for move in result.moves:
        kind, reached = _records(move)
        moves.append(
            f'{{"uci":"{kind.uci}","san":"{kind.san}","zeroing":{_JSON[kind.zeroing]},'
            f'"conversion":{_JSON[kind.conversion]},{_position_json(reached)}}}'
        )
    return f'{{{_position_json(root)},"moves":[{",".join(moves)}]}}'.encode()


#: JSON of booleans and null.
_JSON = {True: "true", False: "false", None: "null"}


def _number(value: int | None) -> str:
    return "null" if value is None else str(value)


def _position_json(record: ChessValue) -> str:
    """`_position`'s fields as JSON, without the braces."""
    return (
        f'"checkmate":{_JSON[record.checkmate]},"stalemate":{_JSON[record.stalemate]},'
        f'"variant_win":false,"variant_loss":false,'
        f'"insufficient_material":{_JSON[record.insufficient_material]},"dtz":{_number(record.dtz)},'
        f'"precise_dtz":{_number(record.precise_dtz)},"dtm":{_number(record.dtm)},"dtw":null,"dtc":null,'
        f'"category":"{record.category}"'
    )


def mainline(service: NimbaseService, fen: str | None, deadline: Deadline) -> dict[str, Any]:
    """`GET /standard/mainline?fen=`: lila's `MainlineResponse`, the moves the Syzygy probers' best move
    chooses (the best WDL, a mate first, zeroing when winning, the best DTZ), from the position asked
    until the game ends or the halfmove clock reaches 100; none for a draw."""
    asked = read(fen)
    result = _probe(service, asked, deadline)
    root = result.value.kind
    assert isinstance(root, ChessValue), "a chess value"
    board = asked.board
    steps: list[dict[str, Any]] = []
    drawn = root.dtz == 0 or (root.dtz is None and result.value.outcome == "D")
    while not drawn and result.moves and board.halfmove_clock < FIFTY_MOVES and len(steps) < MAINLINE_PLIES:
        move = min(result.moves, key=lambda m: best_move_key(m.value.outcome, *_flags(m)))
        kind, reached = _records(move)
        steps.append(
            {"uci": kind.uci, "san": kind.san, "dtz": reached.dtz, "precise_dtz": reached.precise_dtz}
        )
        board.push_uci(kind.uci)
        asked = Asked(board, move.value.position, move.value.game)
        result = _probe(service, asked, deadline)
    winner = None
    if board.is_checkmate():
        winner = "b" if board.turn == chess.WHITE else "w"
    return {"mainline": steps, "winner": winner, "dtz": root.dtz, "precise_dtz": root.precise_dtz}


def _flags(move: MoveValue) -> tuple[int | None, bool, bool]:
    kind, reached = _records(move)
    return reached.dtz, reached.checkmate, kind.zeroing
