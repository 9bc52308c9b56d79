"""Chess answers from probes, built the way lila-tablebase builds them, whatever table answers.

A probe (kinds.chess.probe) gives a position's WDL, DTZ and DTM; this module adds what the board
itself says (checkmate, stalemate, insufficient material, the halfmove clock) and derives what lila's
tablebase answers: the `category` of a position, each legal move with the position it leads to, and the
moves ranked as lila ranks them (lila-tablebase's src/response.rs, `MoveInfo::sort_key`: category, then
mate, then DTM, then conversion and DTZ); `best_move_key` orders moves as the Syzygy probers' `best_move`
does (lila's main line follows it).

A move's position has its halfmove clock advanced (reset by a capture or a pawn move) and, after Black
moves, its move number: the board python-chess leaves after the move. A move's category is from the
position it leads to with the clock before the move; the position's own category is lila's too: from
its own DTZ and clock (`position_info`), or, with its moves, the opposite of its best move's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import chess

from kinds.chess import san
from kinds.chess.probe import ChessProbe

#: Looks a position up: its probe (InvalidPosition, LimitExceeded... when no table answers it).
Prober = Callable[[chess.Board], ChessProbe]

#: lila's categories, worst first for the side to move (its `Category` enum order).
CATEGORY_ORDER = (
    "loss",
    "unknown",
    "syzygy-loss",
    "maybe-loss",
    "blessed-loss",
    "draw",
    "cursed-win",
    "maybe-win",
    "syzygy-win",
    "win",
)
_RANK = {name: rank for rank, name in enumerate(CATEGORY_ORDER)}
#: A category seen from the other side (lila's `Neg for Category`).
_PAIRS = (
    ("loss", "win"),
    ("syzygy-loss", "syzygy-win"),
    ("maybe-loss", "maybe-win"),
    ("blessed-loss", "cursed-win"),
    ("draw", "draw"),
    ("unknown", "unknown"),
)
OPPOSITE = {a: b for a, b in _PAIRS} | {b: a for a, b in _PAIRS}
_POSITIVE = frozenset({"cursed-win", "maybe-win", "syzygy-win", "win"})
#: The halfmove clock at which the fifty-move rule lets either side claim a draw.
FIFTY_MOVES = 100


@dataclass(frozen=True, slots=True)
class PositionInfo:
    """What lila says of one position (its `PositionInfo`), with the probe's WDL behind it."""

    checkmate: bool
    stalemate: bool
    insufficient_material: bool
    dtz: int | None
    precise_dtz: int | None
    dtm: int | None
    category: str
    wdl: int

    def with_category(self, category: str) -> PositionInfo:
        return PositionInfo(
            self.checkmate,
            self.stalemate,
            self.insufficient_material,
            self.dtz,
            self.precise_dtz,
            self.dtm,
            category,
            self.wdl,
        )


@dataclass(frozen=True, slots=True)
class MoveInfo:
    """One legal move as lila lists it: its notations, whether it zeroes the clock or changes the
    material, and the position it leads to (`board`, `info`)."""

    uci: str
    san: str
    zeroing: bool
    conversion: bool
    capture: int | None
    promotion: int | None
    board: chess.Board
    info: PositionInfo


@dataclass(frozen=True, slots=True)
class Answer:
    """A position and its legal moves, ranked as lila ranks them."""

    board: chess.Board
    info: PositionInfo
    moves: list[MoveInfo]


def _from_dtz(dtz: int) -> str:
    """Syzygy's `Wdl::from_dtz`: the category of a DTZ counted from a zeroing move."""
    if dtz < -FIFTY_MOVES:
        return "blessed-loss"
    if dtz < 0:
        return "loss"
    if dtz == 0:
        return "draw"
    return "win" if dtz <= FIFTY_MOVES else "cursed-win"


def _add_plies(dtz: int, plies: int) -> int:
    """DTZ with `plies` more on its absolute value (0 stays 0)."""
    return 0 if dtz == 0 else dtz + plies if dtz > 0 else dtz - plies


def _from_dtz_and_halfmoves(dtz: int, precise: bool, halfmoves: int) -> str:
    """Syzygy's `AmbiguousWdl::from_dtz_and_halfmoves`, lila's names: a rounded DTZ that lands exactly on
    the fifty-move edge leaves the result open (`syzygy-win`, `syzygy-loss`)."""
    if halfmoves == 0:
        return _from_dtz(dtz)
    total = _add_plies(dtz, halfmoves)
    if not precise and total == FIFTY_MOVES:
        return "syzygy-win"
    if not precise and total == -FIFTY_MOVES:
        return "syzygy-loss"
    return _from_dtz(total)


def _from_wdl(wdl: int, halfmoves_before: int) -> str:
    """The category of a table without DTZ: its WDL, the fifty-move rule only once the clock ran out."""
    if wdl == 0:
        return "draw"
    if halfmoves_before >= FIFTY_MOVES:
        return "cursed-win" if wdl > 0 else "blessed-loss"
    return {2: "win", 1: "cursed-win", -1: "blessed-loss", -2: "loss"}[wdl]


def category(
    board: chess.Board,
    probe: ChessProbe,
    dtz: int | None,
    halfmoves_before: int,
    flags: tuple[bool, ...],
    root: bool = False,
) -> str:
    """lila's `PartialPositionInfo::with_dtc` (no DTC): the category of `board` for its side to move,
    `halfmoves_before` being the clock of the position the question starts from. A table without DTZ
    gives its WDL, cursed once the clock of the position asked (`root`: its own) has run out, so that
    the position's category and the opposite of its best move's agree."""
    return category_at(board.halfmove_clock, probe, dtz, halfmoves_before, flags, root)


def category_at(
    clock: int,
    probe: ChessProbe,
    dtz: int | None,
    halfmoves_before: int,
    flags: tuple[bool, ...],
    root: bool = False,
) -> str:
    """`category` of a position whose halfmove clock is `clock` (no board needed)."""
    checkmate, stalemate, insufficient = flags
    if stalemate or insufficient or dtz == 0:
        return "draw"
    if checkmate:
        return "loss" if halfmoves_before < FIFTY_MOVES else "blessed-loss"
    if dtz is None:
        return _from_wdl(probe.wdl, clock if root else halfmoves_before)
    if halfmoves_before < FIFTY_MOVES:
        return _from_dtz_and_halfmoves(dtz, probe.precise_dtz, clock)
    return "blessed-loss" if dtz < 0 else "cursed-win"


def position_info(board: chess.Board, probe: ChessProbe, halfmoves_before: int | None = None) -> PositionInfo:
    """lila's view of `board` from its probe; `halfmoves_before` defaults to the clock before the last
    move (lila's root position: one less than its own clock)."""
    root = halfmoves_before is None
    if halfmoves_before is None:
        halfmoves_before = max(board.halfmove_clock - 1, 0)
    return info_at(board.halfmove_clock, probe, halfmoves_before, game_end(board, board.is_check()), root)


def game_end(board: chess.Board, check: bool) -> tuple[bool, bool, bool]:
    """The game-end flags of `board` (checkmate, stalemate, insufficient material), `check` being
    whether its side to move is in check."""
    moves = any(True for _ in board.generate_legal_moves())
    return (not moves and check, not moves and not check, board.is_insufficient_material())


def info_at(
    clock: int, probe: ChessProbe, halfmoves_before: int, flags: tuple[bool, bool, bool], root: bool = False
) -> PositionInfo:
    """`position_info` of a position whose halfmove clock is `clock` and whose game-end flags
    (checkmate, stalemate, insufficient material) are known."""
    checkmate, stalemate, insufficient = flags
    dtz = probe.dtz
    precise = probe.precise_dtz
    if checkmate:
        dtz, precise = -1, True  # Syzygy's DTZ of a mated side (a table's probe may say 0: game over)
    elif stalemate:
        dtz, precise = 0, True
    return PositionInfo(
        checkmate,
        stalemate,
        insufficient,
        dtz,
        dtz if precise else None,
        probe.dtm,
        category_at(clock, probe, dtz, halfmoves_before, flags, root),
        probe.wdl,
    )


def _tightening(metric: int | None) -> tuple[int, int]:
    """lila's `tightening_metric_sort_key`: the opponent's losses, nearest first, then unknown or 0, then
    the opponent's wins, farthest first."""
    if metric is not None and metric < 0:
        return (0, -metric)
    if metric is not None and metric > 0:
        return (2, -metric)
    return (1, 0)


def sort_key(move: MoveInfo) -> tuple[object, ...]:
    """lila's `MoveInfo::sort_key` (its categories are of the position reached, the opponent's)."""
    return rank_key(move.info, move.zeroing, move.conversion, move.capture, move.promotion)


def rank_key(
    info: PositionInfo, zeroing: bool, conversion: bool, capture: int | None, promotion: int | None
) -> tuple[object, ...]:
    """`sort_key` of a move from its parts: the position it reaches (`info`) and what it does."""
    not_positive = info.category not in _POSITIVE
    return (
        _RANK[info.category],
        not info.checkmate,
        (not info.stalemate, not info.insufficient_material),
        _tightening(info.dtm),
        conversion ^ not_positive,
        (zeroing ^ not_positive, (0, 0) if info.dtz is None else (1, -info.dtz)),
        (-(capture or 0), -(promotion or 0)),
    )


def move_infos(
    board: chess.Board, probe: Prober, known: Mapping[chess.Move, ChessProbe] | None = None
) -> list[MoveInfo]:
    """Every legal move of `board` with the position it leads to, in python-chess's order (`known`: the
    probes of those positions, when already looked up)."""
    moves = list(board.generate_legal_moves())
    origins = san.origins(board, moves)
    if known is None:
        return [move_info(board, move, probe, None, origins) for move in moves]
    return [move_info(board, move, probe, known[move], origins) for move in moves]


def move_info(
    board: chess.Board,
    move: chess.Move,
    probe: Prober,
    known: ChessProbe | None = None,
    origins: Mapping[tuple[int, int], int] | None = None,
) -> MoveInfo:
    """One legal move of `board` with the position it leads to (`known`: that position's probe, already
    looked up; from a table with DTM, a won or lost position's checkmate is the table's loss in 0 and it
    has moves, so its own moves are not generated). Its SAN is written from the board and the squares
    the other legal moves start from (`origins`, kinds.chess.san; found here when not given):
    python-chess's `san` would generate the moves again, and those of the position reached."""
    start, target = move.from_square, move.to_square
    kind = board.piece_type_at(start) or 0
    if kind == chess.PAWN and target == board.ep_square and abs(target - start) in (7, 9):
        capture: int | None = chess.PAWN  # en passant
    else:
        capture = board.piece_type_at(target) if board.occupied_co[not board.turn] >> target & 1 else None
    zeroing = kind == chess.PAWN or capture is not None
    written = san.written_with_others(board, move, kind, capture is not None, origins)
    after = played(board, move, kind, zeroing)
    check = after.is_check()
    before = board.halfmove_clock
    if known is not None and known.dtm is not None and known.wdl != 0:
        flags = (known.wdl < 0 and known.dtm == 0, False, after.is_insufficient_material())
    else:
        known = probe(after) if known is None else known
        flags = game_end(after, check)
    info = info_at(after.halfmove_clock, known, before, flags)
    if check:
        written += "#" if flags[0] else "+"
    conversion = capture is not None or move.promotion is not None
    return MoveInfo(move.uci(), written, zeroing, conversion, capture, move.promotion, after, info)


def played(board: chess.Board, move: chess.Move, kind: int, zeroing: bool) -> chess.Board:
    """The board after the legal `move` of `board` (whose piece is `kind`, and which `zeroing` says
    zeroes the clock): python-chess's `copy(stack=False)` then `push`, but for the move stack, which
    stays empty, with the move's bits set directly instead of push's bookkeeping for undoing it (a
    third of an answer's time went there). A board with castling rights is pushed."""
    after = board.copy(stack=False)
    if board.castling_rights:
        after.push(move)
        return after
    start, target, turn = move.from_square, move.to_square, board.turn
    moved, reached = 1 << start, 1 << target
    cleared = moved | reached
    if kind == chess.PAWN and target == board.ep_square and abs(target - start) in (7, 9):
        cleared |= 1 << (target - 8 if turn == chess.WHITE else target + 8)  # the pawn taken en passant
    keep = ~cleared
    after.pawns, after.knights, after.bishops = board.pawns & keep, board.knights & keep, board.bishops & keep
    after.rooks, after.queens, after.kings = board.rooks & keep, board.queens & keep, board.kings & keep
    placed = move.promotion or kind
    setattr(after, _MASKS[placed], getattr(after, _MASKS[placed]) | reached)
    promoted = bool(board.promoted & moved) or move.promotion is not None
    after.promoted = (board.promoted & keep) | (reached if promoted else 0)
    after.occupied_co[turn] = (board.occupied_co[turn] & keep) | reached
    after.occupied_co[not turn] = board.occupied_co[not turn] & keep
    after.occupied = after.occupied_co[chess.WHITE] | after.occupied_co[chess.BLACK]
    after.ep_square = (start + target) // 2 if kind == chess.PAWN and abs(target - start) == 16 else None
    after.halfmove_clock = 0 if zeroing else board.halfmove_clock + 1
    if turn == chess.BLACK:
        after.fullmove_number += 1
    after.turn = not turn
    return after


#: The board's attribute holding each piece type's squares.
_MASKS = ("", "pawns", "knights", "bishops", "rooks", "queens", "kings")


#: lila's repair of categories a rounded DTZ left open, from the position's own category: (position's
#: category, the moves' open category, what it is then).
_REPAIRS = (
    ("win", "syzygy-loss", "loss"),
    ("cursed-win", "syzygy-loss", "blessed-loss"),
    ("blessed-loss", "syzygy-win", "cursed-win"),
    ("loss", "syzygy-win", "win"),
)


def answer(board: chess.Board, probe: Prober, known: Mapping[chess.Move, ChessProbe] | None = None) -> Answer:
    """lila's answer for `board`: its view, its moves ranked (lila's `Tablebases::probe`), the open
    categories of the first moves repaired from the position's own, and the position's category the
    opposite of its best move's (`known`: the probes of the positions its moves reach, when already
    looked up)."""
    moves = sorted(move_infos(board, probe, known), key=sort_key)
    info = position_info(board, probe(board))
    for own, open_category, settled in _REPAIRS:
        if info.category == own:
            for k, move in enumerate(moves):
                if move.info.category != open_category:
                    break
                moves[k] = _with_info(move, move.info.with_category(settled))
    if moves:
        info = info.with_category(OPPOSITE[moves[0].info.category])
    return Answer(board, info, moves)


def _with_info(move: MoveInfo, info: PositionInfo) -> MoveInfo:
    return MoveInfo(
        move.uci, move.san, move.zeroing, move.conversion, move.capture, move.promotion, move.board, info
    )


def wdl_of(outcome: str | None, dtz: int | None) -> int:
    """A position's WDL counted from a zeroing move (the probe's `wdl`), from its DTZ where known, else
    from its outcome."""
    if dtz is None:
        return {"N": 2, "P": -2}.get(outcome or "D", 0)
    if dtz == 0:
        return 0
    if dtz < 0:
        return -1 if dtz < -FIFTY_MOVES else -2
    return 1 if dtz > FIFTY_MOVES else 2


def best_move_key(outcome: str | None, dtz: int | None, checkmate: bool, zeroing: bool) -> tuple[int, ...]:
    """The Syzygy probers' `best_move` order of a move, from the position it leads to (its outcome, DTZ
    and whether it is mate) and whether it zeroes the clock: the least WDL for the opponent, a mate
    first, then a zeroing move when winning (the last when losing), then the best DTZ. Without DTZ only
    the WDL and the mate count (the first of moves ranked by `sort_key` wins the tie)."""
    wdl = wdl_of(outcome, dtz)
    if dtz is None:
        return (wdl, int(not checkmate))
    return (wdl, int(not checkmate), int(zeroing ^ (dtz < 0)), -dtz)
