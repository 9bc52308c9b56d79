"""The move a chess main line plays next, chosen from the table arrays without building BestMove's answer.

BestMove values every legal move with its SAN, the FEN it reaches and that position's own legal moves
(python-chess for each); a main line keeps one move a ply. Here the children that stay in the table's
material (neither a capture nor a promotion, nor a double step that may leave an en passant capture) are
valued in one numba call from the index's squares (kinds.chess.kernels.lookup), the others probed
board by board as BestMove probes them, and each move ranked by the same keys BestMove sorts with
(kinds.chess.answers: lila's order; with "dtm", engine.moves' `move_rank`: outcome, DTM, then
UCI). What only the board says (stalemate, insufficient material) is asked of python-chess for the drawn
children only, and only when a draw is the best there is: it orders draws among themselves. Checkmate is
the table's: a loss in 0 plies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import chess
import numpy as np

from kinds.chess.answers import (
    CATEGORY_ORDER,
    OPPOSITE,
    PositionInfo,
    Prober,
    category_at,
    info_at,
    rank_key,
)
from kinds.chess.kernels.values import dtm_plies, dtz_plies, wdl
from kinds.chess.probe import ChessProbe
from kinds.chess.tables import ChessTable, TableOf, board_material, board_squares

_RANK = {name: rank for rank, name in enumerate(CATEGORY_ORDER)}
_DRAW = _RANK["draw"]


@dataclass(frozen=True, slots=True)
class Choice:
    """A main line's next move, and lila's category of the position asked (the opposite of its best
    move's in lila's order, whatever the metric)."""

    move: chess.Move
    category: str
    #: How many legal moves the position has.
    count: int
    #: The probe of the position the move reaches.
    probe: ChessProbe


@dataclass(slots=True)
class _Child:
    move: chess.Move
    probe: ChessProbe
    zeroing: bool
    conversion: bool
    capture: int | None
    info: PositionInfo


def _probe_of(vm: int, vz: int) -> ChessProbe:
    return ChessProbe(wdl(vz), dtz_plies(vz), dtm_plies(vm), True)


def _info(board: chess.Board, child: _Child, flags: tuple[bool, bool, bool]) -> PositionInfo:
    clock = 0 if child.zeroing else board.halfmove_clock + 1
    return info_at(clock, child.probe, board.halfmove_clock, flags)


def _dtm_rank(child: _Child) -> tuple[int, int, str]:
    """engine.moves' `move_rank` of the move's value (outcome from WDL, remoteness from DTM)."""
    info = child.probe
    uci = child.move.uci()
    if info.wdl < 0:
        return (0, abs(info.dtm) if info.dtm is not None else 1 << 62, uci)
    if info.wdl == 0:
        return (1, 0, uci)
    return (2, -(abs(info.dtm) if info.dtm is not None else -1), uci)


def child_probes(
    board: chess.Board, probe: Prober, own: Callable[[], ChessTable], others: TableOf | None = None
) -> dict[chess.Move, ChessProbe]:
    """The probe of the position each legal move of `board` reaches, in python-chess's order of the
    moves (BestMove's answer takes them instead of probing each board)."""
    return {child.move: child.probe for child in _children(board, probe, own, others)}


def _children(
    board: chess.Board, probe: Prober, own: Callable[[], ChessTable], others: TableOf | None = None
) -> list[_Child]:
    """Every legal move of `board` with the probe of the position it reaches (`info` not filled yet)."""
    moves = list(board.generate_legal_moves())
    children: list[_Child] = []
    staying: list[_Child] = []
    rows: list[list[int]] = []
    material, flip = board_material(board)
    xor = 56 if flip else 0
    table: ChessTable | None = None
    men: dict[int, int] = {}
    squares: list[int] = []
    ep = board.ep_square
    pawns = board.pawns
    theirs = board.occupied_co[not board.turn]
    for move in moves:
        pawn = bool(pawns >> move.from_square & 1)
        capture = bool(theirs >> move.to_square & 1) or (pawn and move.to_square == ep)
        if capture or move.promotion is not None or (pawn and abs(move.to_square - move.from_square) == 16):
            captured = chess.PAWN if pawn and move.to_square == ep else board.piece_type_at(move.to_square)
            after = board.copy(stack=False)
            after.push(move)
            conversion = capture or move.promotion is not None
            children.append(
                _Child(move, probe(after), True, conversion, captured if capture else None, _EMPTY)
            )
            continue
        if table is None:
            table = own()
            squares = board_squares(material, board, flip)
            men = {square: k for k, square in enumerate(squares[: material.men])}
        row = list(squares)
        row[men[move.from_square ^ xor]] = move.to_square ^ xor
        rows.append(row)
        child = _Child(move, _NO_PROBE, pawn, False, None, _EMPTY)
        staying.append(child)
        children.append(child)
    if rows:
        assert table is not None
        stm = 0 if board.turn == (chess.BLACK if flip else chess.WHITE) else 1
        stms = np.full(len(rows), 1 - stm, dtype=np.int64)
        values = table.encoded_rows(np.array(rows, dtype=np.int64), stms, others)
        for k, child in enumerate(staying):
            if values is None:  # not expected of a legal board: probe it as BestMove would
                after = board.copy(stack=False)
                after.push(child.move)
                child.probe = probe(after)
            else:
                child.probe = _probe_of(int(values[k, 0]), int(values[k, 1]))
    return children


def choose(
    board: chess.Board,
    metric: str | None,
    probe: Prober,
    own: Callable[[], ChessTable],
    others: TableOf | None = None,
) -> Choice | None:
    """The move a main line plays from `board` ("dtm": the fastest mate, slowest loss; else lila's first
    move), None when it has no legal move. `probe` looks a board up as BestMove does; `own` is the table
    of the board's material (looked up when a move stays in it, in the order BestMove looks tables up)."""
    done = _children(board, probe, own, others)
    if not done:
        return None
    before = board.halfmove_clock
    ranks: list[int] = []
    for child in done:  # each move's category first (lila ranks by it first): cheaply, from the probe
        found = child.probe
        flags = (False, False, False)
        if found.wdl < 0 and found.dtm == 0:  # mated (python-chess may still call it a draw)
            after = board.copy(stack=False)
            after.push(child.move)
            flags = (True, False, after.is_insufficient_material())
        child.info = _info(board, child, flags) if flags[0] else _EMPTY
        clock = 0 if child.zeroing else before + 1
        dtz = -1 if flags[0] else found.dtz
        ranks.append(_RANK[category_at(clock, found, dtz, before, flags)])
    top = min(ranks)
    candidates = [child for child, rank in zip(done, ranks, strict=True) if rank == top]
    for child in candidates:  # lila's whole key for the moves of the best category
        if child.info is _EMPTY:
            flags = (False, False, False)
            if top == _DRAW:  # draws rank by stalemate and insufficient material
                after = board.copy(stack=False)
                after.push(child.move)
                stuck = not any(True for _ in after.generate_legal_moves())
                flags = (False, stuck and not after.is_check(), after.is_insufficient_material())
            child.info = _info(board, child, flags)
    best = min(candidates, key=_key)
    category = OPPOSITE[best.info.category]
    if metric == "dtm":
        best = min(done, key=_dtm_rank)
    return Choice(best.move, category, len(done), best.probe)


def _key(child: _Child) -> tuple[object, ...]:
    return rank_key(child.info, child.zeroing, child.conversion, child.capture, child.move.promotion)


_NO_PROBE = ChessProbe(0, 0, 0)
_EMPTY = PositionInfo(False, False, False, 0, 0, 0, "draw", 0)
