"""A chess table's values checked from the rules alone, for tables no reference file covers (five men).

Nothing here comes from the solver: python-chess gives the moves, the values follow from the
definitions, and boards are placed in a table by the index's plain-Python reference
(kinds.chess.kernels.index.canonical_reference), which the index tests check on their own.

- `expected`: a position's DTM and DTZ from its children's (the retrograde equations: a win is one ply
  more than the quickest move to a loss, a loss one more than the slowest move to a win; a zeroing
  move, a capture or pawn move, counts the fifty-move rule's outcome it reaches), in the tables'
  encoding (kinds.chess.kernels.values: d > 0 a win in d plies, -(d + 1) a loss in d, 0 a draw);
- `mate_in`: a plain search for the quickest forced mate within a few plies.
"""

from __future__ import annotations

from collections.abc import Callable

import chess

from kinds.chess.kernels import index as ix
from kinds.chess.material import Material

#: Plies of the fifty-move rule.
RULE = 100

Lookup = Callable[[chess.Board], tuple[int, int]]


def material_of(board: chess.Board) -> tuple[Material, bool]:
    """The board's material (stronger side first) and whether its side A is Black."""
    men = board.piece_map().values()
    white = tuple(p.piece_type for p in men if p.color == chess.WHITE and p.piece_type != chess.KING)
    black = tuple(p.piece_type for p in men if p.color == chess.BLACK and p.piece_type != chess.KING)
    return Material.of(white, black)


def slot(material: Material, board: chess.Board) -> int:
    """The board's slot in `material`'s table (the colours swapped and the board mirrored top to bottom
    when Black holds side A)."""
    found, flip = material_of(board)
    assert found == material, (found.name, material.name)
    a = chess.BLACK if flip else chess.WHITE
    xor = 56 if flip else 0
    ka, kb = board.king(a), board.king(not a)
    assert ka is not None and kb is not None
    squares = [ka ^ xor, kb ^ xor]
    for kind, owner in dict.fromkeys(material.pieces):
        colour = a if owner == 0 else not a
        squares += sorted(s ^ xor for s in board.pieces(kind, colour))
    return ix.canonical_reference(material.spec, squares, 0 if board.turn == a else 1)


def _rank(v: int) -> tuple[int, int]:
    """The mover's preference: the quickest win, then a draw, then the slowest loss."""
    if v > 0:
        return (2, -v)
    if v == 0:
        return (1, 0)
    return (0, -v)


def _through(child: int) -> int:
    """The mover's value of a move into a position of value `child` (its opponent to move)."""
    if child < 0:
        return -child  # the opponent loses in -child - 1 plies: a win one ply later
    if child > 0:
        return -(child + 2)  # the opponent wins in `child`: a loss in child + 1
    return 0


def _zeroing(child: int) -> int:
    """The mover's DTZ value of a zeroing move into a position of DTZ value `child` (the fifty-move
    counter back at 0): only the rule's outcome it reaches counts."""
    if child < 0:
        return 1 if -child - 1 <= RULE else RULE + 1  # the opponent loses (blessed past the rule)
    if child > 0:
        return -2 if child <= RULE else -(RULE + 2)  # the opponent wins (cursed past the rule)
    return 0


def expected(board: chess.Board, lookup: Lookup) -> tuple[int, int]:
    """The (DTM, DTZ) the rules give `board` from its children's values (`lookup`)."""
    moves = list(board.legal_moves)
    if not moves:
        return (-1, -1) if board.is_check() else (0, 0)
    dtm: list[int] = []
    dtz: list[int] = []
    for move in moves:
        zeroing = board.is_zeroing(move)
        board.push(move)
        child_m, child_z = lookup(board)
        board.pop()
        dtm.append(_through(child_m))
        dtz.append(_zeroing(child_z) if zeroing else _through(child_z))
    return max(dtm, key=_rank), max(dtz, key=_rank)


def mate_in(board: chess.Board, plies: int) -> int | None:
    """The plies of the quickest mate the side to move forces within `plies` (odd counts), else None."""
    for depth in range(1, plies + 1, 2):
        if _forces_mate(board, depth):
            return depth
    return None


def mated_in(board: chess.Board, plies: int) -> int | None:
    """The plies of the slowest forced mate of the side to move within `plies` (even counts; 0 when it
    is mated), else None: every move leads to a mate the opponent forces."""
    for depth in range(0, plies + 1, 2):
        if _loses(board, depth):
            return depth
    return None


def _forces_mate(board: chess.Board, depth: int) -> bool:
    """The side to move mates within `depth` plies (odd) whatever the defence."""
    for move in list(board.legal_moves):
        board.push(move)
        mated = _loses(board, depth - 1)
        board.pop()
        if mated:
            return True
    return False


def _loses(board: chess.Board, depth: int) -> bool:
    """The side to move is mated within `depth` plies (even) whatever it plays."""
    if board.is_checkmate():
        return True
    if depth == 0 or board.is_stalemate() or board.is_insufficient_material():
        return False
    for move in list(board.legal_moves):
        board.push(move)
        mates = _forces_mate(board, depth - 1)
        board.pop()
        if not mates:
            return False
    return True
