"""Every position of a chess table checked against its whole-table retrograde equations (numba), for
tables no reference file covers (five men).

Nothing here is the solver's: the moves are generated again from the rules on a plain 64-square mailbox
(pieces by offsets, sliders walking rays, en passant after a double step, promotions to any piece), and
the values follow from their definitions in the tables' encoding (kinds.chess.kernels.values: d > 0 a
win in d plies, -(d + 1) a loss in d, 0 a draw), written out again here. Boards are placed in a table
(board -> slot) by the index's numba `canonical` (kinds.chess.kernels.index), which the index tests
check on their own against its plain reference; Material names which side of a board is a table's side
A and in what order the index lists the men. The tables a capture or promotion reaches are read from
the stored table objects given (the three- and four-man ones are checked against Syzygy elsewhere).

Each board of the material is enumerated (side A's king in the a1-d1-d4 triangle without pawns, on files
a-d with pawns: every position has such an image) and each legal one placed; its slot is checked once:

- DTM: the stored value is the best the mover gets over its moves, a move into a value v being worth
  `_through(v)` (one ply more, the sides swapped). That is: a win in d has a move to a loss in d - 1 and
  none to a quicker loss; a loss in d has only moves to wins, the slowest in exactly d - 1; a draw has
  no move to a loss and some move to a draw; no move at all is checkmate (-1) in check, else stalemate.
- DTZ: the same, except that a zeroing move (capture, pawn move, promotion, en passant) is worth only
  the fifty-move rule's outcome it reaches (`_zeroing`): the distance starts again behind it.
- After a double step, the opponent's en passant captures count in the position reached, which the
  table holds without the right (the better of the stored value and the captures; the captures alone
  when they are its only legal moves).

These equations have exactly one solution once checkmates are fixed (wins and losses are founded on
mates by strictly shorter distances), so a table that holds them everywhere is the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import chess
import numba
import numpy as np
from numpy.typing import NDArray

from kinds.chess.format import ChessValues
from kinds.chess.kernels import index as ix
from kinds.chess.material import Material

I16 = NDArray[np.int16]
I64 = NDArray[np.int64]
U64 = NDArray[np.uint64]
#: The material's spec and values, then its sub-tables': specs, men (`_key`: side A's * 1024 + side B's),
#: where each one's values start, and the values concatenated.
Tables = tuple[I64, I16, I16, I64, I64, I64, I16, I16]

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
#: Plies of the fifty-move rule.
RULE = 100
#: No value yet (below every value).
NONE = -32768
#: Violating slots kept (their count is kept whatever it is).
KEPT = 256
#: Most pseudo-legal moves of a position of up to five men (two queens and a king: 27 + 27 + 8).
MAX_MOVES = 128

#: Why a slot fails: its DTM, its DTZ, or a legal board it leads to that no table places.
DTM, DTZ, UNPLACED = 1, 2, 3
REASONS = {DTM: "DTM", DTZ: "DTZ", UNPLACED: "a move leads to a board no table places"}

#: Counts: slots checked, wins, draws, losses (by DTM), cursed wins, blessed losses (by DTZ), violations.
CHECKED, WINS, DRAWS, LOSSES, CURSED, BLESSED, VIOLATIONS = range(7)

_KNIGHT_STEPS = np.array([[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]], np.int64)
#: The king's steps, the first four straight (rook rays), the last four diagonal (bishop rays).
_KING_STEPS = np.array([[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1], [-1, 1], [-1, -1]], np.int64)


# -- values ----------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _through(v: int) -> int:
    """The mover's value of a move into a position of value v (the opponent's), one ply further."""
    if v < 0:
        return -v  # the opponent loses in -v - 1 plies: a win in -v
    if v > 0:
        return -(v + 2)  # the opponent wins in v: a loss in v + 1
    return 0


@numba.njit(cache=True)
def _zeroing(z: int) -> int:
    """The mover's DTZ value of a zeroing move into a position of DTZ value z (the counter back at 0)."""
    if z < 0:
        return 1 if -z - 1 <= RULE else RULE + 1
    if z > 0:
        return -2 if z <= RULE else -(RULE + 2)
    return 0


@numba.njit(cache=True)
def _score(v: int) -> int:
    """The mover's order on values: the quickest win, then a draw, then the slowest loss."""
    if v == NONE:
        return -(1 << 40)
    if v > 0:
        return (1 << 20) - v
    if v == 0:
        return 0
    return -(1 << 20) - v


@numba.njit(cache=True)
def _best(a: int, b: int) -> int:
    return a if _score(a) >= _score(b) else b


# -- the board ----------------------------------------------------------------------------------------
# `board[s]`: 0 empty, +type a man of side A (moving up the board), -type one of side B. `psq[k]`,
# `code[k]`: the squares (-1 once captured) and codes of the men, kings of A and B first, the others in
# the material's index order.


@numba.njit(cache=True)
def _shift(s: int, df: int, dr: int) -> int:
    f = (s & 7) + df
    r = (s >> 3) + dr
    if f < 0 or f > 7 or r < 0 or r > 7:
        return -1
    return r * 8 + f


@numba.njit(cache=True)
def _attacked(board: I64, s: int, by: int) -> bool:
    """Whether side `by` (0 = A) attacks square s."""
    sign = 1 if by == 0 else -1
    for k in range(8):
        t = _shift(s, _KNIGHT_STEPS[k, 0], _KNIGHT_STEPS[k, 1])
        if t >= 0 and board[t] == sign * KNIGHT:
            return True
        t = _shift(s, _KING_STEPS[k, 0], _KING_STEPS[k, 1])
        if t >= 0 and board[t] == sign * KING:
            return True
    for df in (-1, 1):
        t = _shift(s, df, -sign)  # a pawn attacks one rank ahead of it
        if t >= 0 and board[t] == sign * PAWN:
            return True
    for k in range(8):
        slider = ROOK if k < 4 else BISHOP
        t = _shift(s, _KING_STEPS[k, 0], _KING_STEPS[k, 1])
        while t >= 0:
            p = board[t]
            if p != 0:
                if p == sign * QUEEN or p == sign * slider:
                    return True
                break
            t = _shift(t, _KING_STEPS[k, 0], _KING_STEPS[k, 1])
    return False


@numba.njit(cache=True)
def _exposed(board: I64, king: int, frm: int, by: int) -> bool:
    """Whether a man leaving `frm` opened a line from `king` to a slider of side `by`: the only way a
    move of a man besides the king, from a position not in check, may leave the king attacked."""
    df = (frm & 7) - (king & 7)
    dr = (frm >> 3) - (king >> 3)
    if df != 0 and dr != 0 and abs(df) != abs(dr):
        return False
    df = (df > 0) - (df < 0)
    dr = (dr > 0) - (dr < 0)
    sign = 1 if by == 0 else -1
    slider = ROOK if df == 0 or dr == 0 else BISHOP
    t = _shift(king, df, dr)
    while t >= 0:
        p = board[t]
        if p != 0:
            return p == sign * QUEEN or p == sign * slider
        t = _shift(t, df, dr)
    return False


@numba.njit(cache=True)
def _add(moves: I64, count: int, k: int, to: int, promo: int) -> int:
    moves[count, 0] = k
    moves[count, 1] = to
    moves[count, 2] = promo
    return count + 1


@numba.njit(cache=True)
def _pawn_to(moves: I64, count: int, k: int, to: int) -> int:
    """A pawn's move to `to`, as four promotions on a back rank."""
    if to < 8 or to > 55:
        for promo in (KNIGHT, BISHOP, ROOK, QUEEN):
            count = _add(moves, count, k, to, promo)
        return count
    return _add(moves, count, k, to, 0)


@numba.njit(cache=True)
def _pseudo(board: I64, psq: I64, code: I64, n: int, stm: int, moves: I64) -> int:
    """The moves of side `stm` that may leave its king attacked (no en passant: a slot has no right)
    into `moves` (man, target, promotion type or 0); returns how many."""
    sign = 1 if stm == 0 else -1
    count = 0
    for k in range(n):
        s = psq[k]
        if s < 0 or code[k] * sign <= 0:
            continue
        kind = abs(code[k])
        if kind == PAWN:
            to = _shift(s, 0, sign)
            if to >= 0 and board[to] == 0:
                count = _pawn_to(moves, count, k, to)
                start = 1 if stm == 0 else 6
                two = _shift(s, 0, 2 * sign)
                if (s >> 3) == start and board[two] == 0:
                    count = _add(moves, count, k, two, 0)
            for df in (-1, 1):
                to = _shift(s, df, sign)
                if to >= 0 and board[to] * sign < 0:
                    count = _pawn_to(moves, count, k, to)
        elif kind in (KNIGHT, KING):
            for d in range(8):
                if kind == KNIGHT:
                    to = _shift(s, _KNIGHT_STEPS[d, 0], _KNIGHT_STEPS[d, 1])
                else:
                    to = _shift(s, _KING_STEPS[d, 0], _KING_STEPS[d, 1])
                if to >= 0 and board[to] * sign <= 0:
                    count = _add(moves, count, k, to, 0)
        else:
            first = 4 if kind == BISHOP else 0
            last = 4 if kind == ROOK else 8
            for d in range(first, last):
                to = _shift(s, _KING_STEPS[d, 0], _KING_STEPS[d, 1])
                while to >= 0 and board[to] * sign <= 0:
                    count = _add(moves, count, k, to, 0)
                    if board[to] != 0:
                        break
                    to = _shift(to, _KING_STEPS[d, 0], _KING_STEPS[d, 1])
    return count


@numba.njit(cache=True)
def _make(board: I64, psq: I64, code: I64, n: int, k: int, to: int, promo: int) -> int:
    """Plays man k to `to` (promoted to `promo` unless 0); returns the man captured, else -1."""
    captured = -1
    if board[to] != 0:
        for j in range(n):
            if psq[j] == to:
                captured = j
                psq[j] = -1
    board[psq[k]] = 0
    if promo:
        code[k] = promo if code[k] > 0 else -promo
    board[to] = code[k]
    psq[k] = to
    return captured


@numba.njit(cache=True)
def _unmake(board: I64, psq: I64, code: I64, k: int, frm: int, was: int, captured: int) -> None:
    to = psq[k]
    board[to] = 0
    if captured >= 0:
        psq[captured] = to
        board[to] = code[captured]
    code[k] = was
    psq[k] = frm
    board[frm] = was


@numba.njit(cache=True)
def _has_legal(board: I64, psq: I64, code: I64, n: int, stm: int, moves: I64) -> bool:
    for i in range(_pseudo(board, psq, code, n, stm, moves)):
        k, frm, was = moves[i, 0], psq[moves[i, 0]], code[moves[i, 0]]
        captured = _make(board, psq, code, n, k, moves[i, 1], moves[i, 2])
        legal = not _attacked(board, psq[stm], 1 - stm)
        _unmake(board, psq, code, k, frm, was, captured)
        if legal:
            return True
    return False


# -- tables --------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _key(psq: I64, code: I64, n: int, sign: int) -> int:
    """The men besides the king of one side (sign 1: A) as 2 bits of count per type."""
    key = 0
    for k in range(2, n):
        if psq[k] >= 0 and code[k] * sign > 0:
            key += 1 << (2 * (abs(code[k]) - 1))
    return key


@numba.njit(cache=True)
def _lookup(
    psq: I64,
    code: I64,
    start: I64,
    n: int,
    stm: int,
    tables: Tables,
    sq: I64,
    image: I64,
) -> tuple[int, int]:
    """The stored (DTM, DTZ) of the men as they stand, `stm` to move: in the material's own table when
    none was captured or promoted (`start`: the men's codes at first), else in the table of the men
    left; (NONE, NONE) when no table places it."""
    spec, dtm, dtz, sub_specs, sub_keys, sub_bases, sub_dtm, sub_dtz = tables
    same = True
    for k in range(n):
        if psq[k] < 0 or code[k] != start[k]:
            same = False
    if same:
        for k in range(n):
            sq[k] = psq[k]
        slot = ix.canonical(spec, sq, stm, image)
        if slot < 0:
            return NONE, NONE
        return int(dtm[slot]), int(dtz[slot])
    a, b = _key(psq, code, n, 1), _key(psq, code, n, -1)
    for t in range(sub_keys.shape[0]):
        for flip in range(2):
            if sub_keys[t] != (b * 1024 + a if flip else a * 1024 + b):
                continue
            cspec = sub_specs[t]
            xor = 56 if flip else 0
            sq[0] = psq[flip] ^ xor  # the table's side A king: ours, or B's when it sees B as A
            sq[1] = psq[1 - flip] ^ xor
            used = 0
            for i in range(cspec[0]):
                want = cspec[2 + 2 * i] * (1 if (cspec[3 + 2 * i] == 0) != (flip == 1) else -1)
                for k in range(2, n):
                    if psq[k] >= 0 and code[k] == want and not (used >> k) & 1:
                        used |= 1 << k
                        sq[2 + i] = psq[k] ^ xor
                        break
            slot = ix.canonical(cspec, sq, 1 - stm if flip else stm, image)
            if slot < 0:
                return NONE, NONE
            return int(sub_dtm[sub_bases[t] + slot]), int(sub_dtz[sub_bases[t] + slot])
    return NONE, NONE


# -- one position ------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _en_passant(
    board: I64,
    psq: I64,
    code: I64,
    start: I64,
    n: int,
    stm: int,
    j: int,
    frm: int,
    vm: int,
    vz: int,
    tables: Tables,
    sq: I64,
    image: I64,
    moves: I64,
) -> tuple[int, int, bool]:
    """The values of the position after man j's double step from `frm`, `stm` (the opponent) to move,
    stored as (vm, vz) without the right: its en passant captures counted; False when a capture leads
    to a board no table places."""
    to = psq[j]
    passed = (frm + to) // 2
    pawn = PAWN if stm == 0 else -PAWN
    best_m, best_z = NONE, NONE
    for k in range(n):
        s = psq[k]
        if s < 0 or code[k] != pawn or (s >> 3) != (to >> 3) or abs((s & 7) - (to & 7)) != 1:
            continue
        board[s] = 0
        board[to] = 0
        board[passed] = pawn
        psq[k] = passed
        psq[j] = -1
        legal = not _attacked(board, psq[stm], 1 - stm)
        gm, gz = _lookup(psq, code, start, n, 1 - stm, tables, sq, image) if legal else (0, 0)
        psq[j] = to
        psq[k] = s
        board[passed] = 0
        board[to] = code[j]
        board[s] = pawn
        if gm == NONE:
            return vm, vz, False
        if legal:
            best_m = _best(best_m, _through(gm))
            best_z = _best(best_z, _zeroing(gz))
    if best_m == NONE:
        return vm, vz, True
    if not _has_legal(board, psq, code, n, stm, moves):
        return best_m, best_z, True
    return _best(vm, best_m), _best(vz, best_z), True


@numba.njit(cache=True)
def _expected(
    board: I64,
    psq: I64,
    code: I64,
    start: I64,
    n: int,
    stm: int,
    tables: Tables,
    sq: I64,
    image: I64,
    moves: I64,
    replies: I64,
) -> tuple[int, int, bool]:
    """The (DTM, DTZ) the rules give the position from the values of the positions its moves reach;
    False when a move reaches a board no table places."""
    best_m, best_z = NONE, NONE
    checked = _attacked(board, psq[stm], 1 - stm)
    for i in range(_pseudo(board, psq, code, n, stm, moves)):
        k, to, promo = moves[i, 0], moves[i, 1], moves[i, 2]
        frm, was = psq[k], code[k]
        captured = _make(board, psq, code, n, k, to, promo)
        if checked or k == stm:  # in check, or the king moves: look at every attack
            legal = not _attacked(board, psq[stm], 1 - stm)
        else:
            legal = not _exposed(board, psq[stm], frm, 1 - stm)
        if legal:
            vm, vz = _lookup(psq, code, start, n, 1 - stm, tables, sq, image)
            placed = vm != NONE
            pawn = abs(was) == PAWN
            if placed and pawn and abs(to - frm) == 16:
                vm, vz, placed = _en_passant(
                    board, psq, code, start, n, 1 - stm, k, frm, vm, vz, tables, sq, image, replies
                )
            if not placed:
                _unmake(board, psq, code, k, frm, was, captured)
                return NONE, NONE, False
            best_m = _best(best_m, _through(vm))
            best_z = _best(best_z, _zeroing(vz) if pawn or captured >= 0 else _through(vz))
        _unmake(board, psq, code, k, frm, was, captured)
    if best_m == NONE:  # no legal move: checkmate or stalemate
        return (-1, -1, True) if checked else (0, 0, True)
    return best_m, best_z, True


# -- the whole table -----------------------------------------------------------------------------------


@numba.njit(cache=True)
def _check(tables: Tables, kings: I64, start: I64, counts: I64, found: I64, first_board: I64) -> None:
    """Checks every slot a legal board of the material reaches (side A's king on `kings`, the men's
    codes `start`); `counts` as CHECKED...VIOLATIONS, `found` rows (slot, reason, stored DTM, DTZ,
    expected DTM, DTZ) of the first KEPT violations, `first_board` the first one's board and side to
    move (slot -1: a legal board the index does not place)."""
    spec, dtm, dtz = tables[0], tables[1], tables[2]
    m = spec[0]
    n = 2 + m
    seen = np.zeros(dtm.shape[0] // 64 + 1, dtype=np.uint64)
    board = np.zeros(64, dtype=np.int64)
    psq = np.zeros(5, dtype=np.int64)
    code = start.copy()
    sq = np.zeros(5, dtype=np.int64)
    image = np.zeros(5, dtype=np.int64)
    moves = np.zeros((MAX_MOVES, 3), dtype=np.int64)
    replies = np.zeros((MAX_MOVES, 3), dtype=np.int64)
    places = 1
    for i in range(m):
        places *= 48 if abs(start[2 + i]) == PAWN else 64
    for ka in kings:
        for kb in range(64):
            if abs((ka & 7) - (kb & 7)) <= 1 and abs((ka >> 3) - (kb >> 3)) <= 1:
                continue
            psq[0], psq[1] = ka, kb
            for c in range(places):
                rest = c
                distinct = True
                for i in range(m - 1, -1, -1):
                    pawn = abs(start[2 + i]) == PAWN
                    s = rest % 48 + 8 if pawn else rest % 64
                    rest //= 48 if pawn else 64
                    psq[2 + i] = s
                    for k in range(2 + i + 1, n):
                        distinct &= psq[k] != s
                    distinct &= s != ka and s != kb
                if not distinct:
                    continue
                for k in range(n):
                    board[psq[k]] = start[k]
                for stm in range(2):
                    if _attacked(board, psq[1 - stm], stm):
                        continue  # the side not to move is in check
                    for k in range(n):
                        sq[k] = psq[k]
                    slot = ix.canonical(spec, sq, stm, image)
                    reason = 0
                    em, ez = NONE, NONE
                    if slot < 0:
                        reason = UNPLACED
                    elif (seen[slot >> 6] >> np.uint64(slot & 63)) & np.uint64(1):
                        continue
                    else:
                        seen[slot >> 6] |= np.uint64(1) << np.uint64(slot & 63)
                        vm, vz = int(dtm[slot]), int(dtz[slot])
                        counts[CHECKED] += 1
                        counts[WINS if vm > 0 else (LOSSES if vm < 0 else DRAWS)] += 1
                        if vz > RULE:
                            counts[CURSED] += 1
                        elif vz < -(RULE + 1):
                            counts[BLESSED] += 1
                        em, ez, placed = _expected(
                            board, psq, code, start, n, stm, tables, sq, image, moves, replies
                        )
                        if not placed:
                            reason = UNPLACED
                        elif em != vm:
                            reason = DTM
                        elif ez != vz:
                            reason = DTZ
                    if reason:
                        v = counts[VIOLATIONS]
                        counts[VIOLATIONS] += 1
                        if v < found.shape[0]:
                            found[v, 0] = slot
                            found[v, 1] = reason
                            found[v, 2] = dtm[slot] if slot >= 0 else NONE
                            found[v, 3] = dtz[slot] if slot >= 0 else NONE
                            found[v, 4] = em
                            found[v, 5] = ez
                        if v == 0:
                            first_board[:64] = board
                            first_board[64] = stm
                for k in range(n):
                    board[psq[k]] = 0


# -- the report ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """What `check` found over a whole table: its positions counted once each (slots checked), by DTM
    and by the fifty-move rule, and the slots whose values break the equations."""

    material: str
    slots: int
    wins: int
    draws: int
    losses: int
    cursed: int
    blessed: int
    #: How many slots break the equations, the first KEPT of them, and the first one's board (FEN) and
    #: what failed there, with its stored and expected (DTM, DTZ).
    violations: int
    violating: list[int]
    fen: str | None
    reason: str | None
    stored: tuple[int, int] | None
    expected: tuple[int, int] | None

    @property
    def first(self) -> int:
        """The first violating slot (-1: none; also a legal board no slot places)."""
        return self.violating[0] if self.violating else -1

    def message(self) -> str:
        if not self.violations:
            return f"{self.material}: every one of {self.slots} slots holds its equations"
        return (
            f"{self.material}: {self.violations} slots break the equations, first slot {self.first} "
            f"({self.fen}): {self.reason}, stored {self.stored}, the rules give {self.expected}"
        )


def sub_materials(material: Material) -> list[Material]:
    """The materials a capture, a promotion or both lead to (each once)."""
    men = [(kind, owner) for kind, owner in material.pieces]
    out: list[Material] = []
    for taken in range(-1, len(men)):
        for promoted in range(-1, len(men)):
            if (taken < 0 and promoted < 0) or promoted == taken:
                continue
            if promoted >= 0 and men[promoted][0] != chess.PAWN:
                continue
            for kind in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN) if promoted >= 0 else (0,):
                left = [(kind if i == promoted else t, o) for i, (t, o) in enumerate(men) if i != taken]
                a = tuple(t for t, o in left if o == 0)
                b = tuple(t for t, o in left if o == 1)
                found, _ = Material.of(a, b)
                if found not in out:
                    out.append(found)
    return out


def _side_key(side: tuple[int, ...]) -> int:
    return sum(1 << (2 * (kind - 1)) for kind in side)


def check(material: Material, values: ChessValues, table_of: Callable[[Material], ChessValues]) -> Report:
    """Checks every position of `material` whose values are `values` against the equations, reading the
    tables captures and promotions lead to through `table_of`."""
    subs = sub_materials(material)
    sub_values = [table_of(sub) for sub in subs]
    bases = np.cumsum([0] + [len(v) for v in sub_values[:-1]]).astype(np.int64)
    tables = (
        material.spec,
        values.dtm,
        values.dtz,
        np.array([sub.spec for sub in subs], dtype=np.int64),
        np.array([_side_key(sub.a) * 1024 + _side_key(sub.b) for sub in subs], dtype=np.int64),
        bases,
        np.concatenate([v.dtm for v in sub_values]),
        np.concatenate([v.dtz for v in sub_values]),
    )
    if material.pawnful:  # the left-right mirror: side A's king on files a-d
        kings = [s for s in range(64) if s & 7 < 4]
    else:  # the eight symmetries: side A's king in the a1-d1-d4 triangle
        kings = [s for s in range(64) if (s >> 3) <= (s & 7) < 4]
    start = [chess.KING, -chess.KING] + [kind if owner == 0 else -kind for kind, owner in material.pieces]
    counts = np.zeros(7, dtype=np.int64)
    found = np.zeros((KEPT, 6), dtype=np.int64)
    first_board = np.zeros(65, dtype=np.int64)
    _check(
        tables,
        np.array(kings, dtype=np.int64),
        np.array(start + [0] * (5 - len(start)), dtype=np.int64),
        counts,
        found,
        first_board,
    )
    kept = found[: min(int(counts[VIOLATIONS]), KEPT)]
    fen = None
    if len(kept):
        board = chess.Board(None)
        for square, man in enumerate(first_board[:64].tolist()):
            if man:
                board.set_piece_at(square, chess.Piece(abs(man), man > 0))
        board.turn = first_board[64] == 0
        fen = board.fen()
    return Report(
        material.name,
        int(counts[CHECKED]),
        int(counts[WINS]),
        int(counts[DRAWS]),
        int(counts[LOSSES]),
        int(counts[CURSED]),
        int(counts[BLESSED]),
        int(counts[VIOLATIONS]),
        [int(row[0]) for row in kept],
        fen,
        REASONS[int(kept[0, 1])] if len(kept) else None,
        (int(kept[0, 2]), int(kept[0, 3])) if len(kept) else None,
        (int(kept[0, 4]), int(kept[0, 5])) if len(kept) else None,
    )
