"""Three-man chess endings (KQvK, KRvK, KPvK) solved by brute force, to check the endgame tables.

Nothing here comes from the engine; python-chess gives the rules and nothing else. Every placement of
the white king, the black king and White's one man is enumerated with either side to move, reduced by
the board's symmetries (square maps written out here: all eight without a pawn, the left-right mirror
with one), and kept when python-chess calls it valid. Moves are python-chess's `legal_moves`; a move
that changes the material either leaves too little to mate (python-chess's insufficient material: a
draw) or promotes into a material solved here first. Values come from a naive round-by-round fixed
point over the whole edge list: slow to converge, but each round is the definition itself.

Values are for the side to move: outcome 1 win, -1 loss, 0 draw; remoteness in plies (-1 for a draw),
a win as fast as possible, a loss as slow as possible, checkmate a loss in 0 and stalemate a draw.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import chess
import numpy as np
from numpy.typing import NDArray

from tests.reference.chess_files import cache_dir

I64 = NDArray[np.int64]

#: Placements as ((side to move * 64 + white king) * 64 + black king) * 64 + White's man; side 0 White.
RAW = 2 * 64 * 64 * 64
MATERIALS = {"KQvK": chess.QUEEN, "KRvK": chess.ROOK, "KPvK": chess.PAWN}
#: What a promotion leads to when it leaves enough to mate; the rest must be draws.
PROMOTIONS = {chess.QUEEN: "KQvK", chess.ROOK: "KRvK"}


def raw_index(stm: int, wk: int, bk: int, man: int) -> int:
    return ((stm * 64 + wk) * 64 + bk) * 64 + man


def square_maps(pawn: bool) -> I64:
    """The board's symmetries as square maps, identity first: a pawn only allows the left-right mirror
    (it moves up the board), else also the up-down flip and the a1-h8 diagonal, in every combination."""
    maps = np.empty((2 if pawn else 8, 64), dtype=np.int64)
    for t in range(maps.shape[0]):
        for square in range(64):
            file, rank = square % 8, square // 8
            if t & 1:
                file = 7 - file
            if t & 2:
                rank = 7 - rank
            if t & 4:
                file, rank = rank, file
            maps[t, square] = 8 * rank + file
    return maps


@dataclass(frozen=True, eq=False)
class Solved:
    """One material's positions up to symmetry: class i is the placement `reps[i]` (the least raw index
    of its orbit), `class_of` maps every raw placement to its class (-1: not a legal position)."""

    name: str
    man: int
    reps: I64
    class_of: I64
    outcome: NDArray[np.int8]
    remoteness: NDArray[np.int32]
    #: Moves listed by python-chess, over all classes.
    moves: int
    mates: int
    stalemates: int
    rounds: int

    def __len__(self) -> int:
        return int(self.reps.shape[0])

    def placement(self, i: int) -> tuple[int, int, int, int]:
        """Class i's representative as (side to move, 0 White; white king; black king; White's man)."""
        raw = int(self.reps[i])
        return raw // 64**3, raw // 64**2 % 64, raw // 64 % 64, raw % 64

    @property
    def white_to_move(self) -> NDArray[np.bool_]:
        return self.reps < 64**3

    def board(self, i: int) -> chess.Board:
        """Class i's representative as a board (White holds the man)."""
        return self.arrange(chess.Board.empty(), i)

    def arrange(self, board: chess.Board, i: int) -> chess.Board:
        """`board` rearranged as class i's representative: one board reused for many positions saves
        building each."""
        stm, wk, bk, man = self.placement(i)
        board.set_piece_map(
            {
                wk: chess.Piece(chess.KING, chess.WHITE),
                bk: chess.Piece(chess.KING, chess.BLACK),
                man: chess.Piece(self.man, chess.WHITE),
            }
        )
        board.turn = stm == 0
        return board

    def class_of_board(self, board: chess.Board) -> int:
        """The class of a board of this material with White holding the man (-1 if not legal)."""
        wk, bk = board.king(chess.WHITE), board.king(chess.BLACK)
        men = board.pieces(self.man, chess.WHITE)
        assert wk is not None and bk is not None and len(men) == 1
        return int(self.class_of[raw_index(0 if board.turn else 1, wk, bk, next(iter(men)))])

    @property
    def legal_placements(self) -> int:
        """Legal positions before the symmetry reduction (White holding the man, either side to move)."""
        return int((self.class_of >= 0).sum())


def fixed_point(
    n: int,
    src: I64,
    dst: I64,
    fixed_outcome: NDArray[np.int8],
    fixed_remoteness: NDArray[np.int32],
    mated: I64,
) -> tuple[NDArray[np.int8], NDArray[np.int32], int]:
    """Values of positions 0..n-1 whose moves are the edges src -> dst, where dst >= n names a position
    of known value (fixed_*[dst - n]: a capture or a promotion). Round r, from the values after round
    r - 1 (Jacobi): a win in r where a move reaches a loss in r - 1; a loss in r where every move reaches
    a win and one a win in r - 1 (the loser holds out longest). Stops at a round that changes nothing
    once past the longest known value, which could still open a loss later; the rest draw."""
    outcome = np.concatenate([np.zeros(n, np.int8), fixed_outcome])
    remoteness = np.concatenate([np.full(n, -1, np.int32), fixed_remoteness])
    outcome[mated] = -1
    remoteness[mated] = 0
    degree = np.bincount(src, minlength=n)
    horizon = int(fixed_remoteness.max(initial=-1)) + 1
    r = 0
    while True:
        r += 1
        to_outcome, to_remoteness = outcome[dst], remoteness[dst]
        open_ = outcome[:n] == 0
        to_loss = np.zeros(n, np.bool_)
        to_loss[src[(to_outcome == -1) & (to_remoteness == r - 1)]] = True
        to_wins = np.bincount(src[(to_outcome == 1) & (to_remoteness <= r - 1)], minlength=n)
        to_slowest = np.zeros(n, np.bool_)
        to_slowest[src[(to_outcome == 1) & (to_remoteness == r - 1)]] = True
        win = open_ & to_loss
        loss = open_ & (degree > 0) & (to_wins == degree) & to_slowest
        outcome[:n][win], remoteness[:n][win] = 1, r
        outcome[:n][loss], remoteness[:n][loss] = -1, r
        if not (win.any() or loss.any()) and r > horizon:
            return outcome[:n].copy(), remoteness[:n].copy(), r


#: The cache of solved materials: a new one whenever this module or python-chess changes.
_CACHED = f"chess-oracle-{hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]}-{chess.__version__}"
#: The fields of `Solved` kept in the cache, arrays and counts.
_FIELDS = ("man", "reps", "class_of", "outcome", "remoteness", "moves", "mates", "stalemates", "rounds")


@cache
def solve(name: str) -> Solved:
    """`name` (a key of MATERIALS) solved by `brute_force`, or read back from the tests' cache where this
    module, as it is, solved it before: the brute force is deterministic, and it takes seconds of CPU
    a material in every run otherwise."""
    path = cache_dir() / _CACHED / f"{name}.npz"
    if path.exists():
        with np.load(path) as data:
            return Solved(
                name,
                int(data["man"]),
                data["reps"],
                data["class_of"],
                data["outcome"],
                data["remoteness"],
                *(int(data[key]) for key in _FIELDS[5:]),
            )
    solved = brute_force(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.part")  # another test process may write it too
    with partial.open("wb") as out:
        np.savez(out, **{key: getattr(solved, key) for key in _FIELDS})
    partial.replace(path)
    return solved


def brute_force(name: str) -> Solved:
    """Enumerate, generate the moves of and solve `name` (a key of MATERIALS), the materials its
    promotions lead to first."""
    man = MATERIALS[name]
    piece = chess.Piece(man, chess.WHITE)
    white_king, black_king = chess.Piece(chess.KING, chess.WHITE), chess.Piece(chess.KING, chess.BLACK)
    maps = square_maps(man == chess.PAWN)
    index = np.arange(RAW, dtype=np.int64)
    stm_all, wk_all, bk_all, man_all = index // 64**3, index // 64**2 % 64, index // 64 % 64, index % 64
    rep = index.copy()
    for m in maps[1:]:
        rep = np.minimum(rep, ((stm_all * 64 + m[wk_all]) * 64 + m[bk_all]) * 64 + m[man_all])
    distinct = (wk_all != bk_all) & (wk_all != man_all) & (bk_all != man_all)
    keep = (rep == index) & distinct
    if man == chess.PAWN:  # python-chess refuses these too (STATUS_PAWNS_ON_BACKRANK): not worth asking
        keep &= (man_all >= 8) & (man_all < 56)
    candidates = np.flatnonzero(keep)

    reps: list[int] = []
    src: list[int] = []
    dst_raw: list[int] = []
    ext_src: list[int] = []
    ext_outcome: list[int] = []
    ext_remoteness: list[int] = []
    mated: list[int] = []
    stalemates = 0
    board = chess.Board.empty()
    for raw in candidates.tolist():
        stm, wk, bk, sq = raw // 64**3, raw // 64**2 % 64, raw // 64 % 64, raw % 64
        board.set_piece_map({wk: white_king, bk: black_king, sq: piece})
        board.turn = stm == 0
        if not board.is_valid():
            continue
        i = len(reps)
        reps.append(raw)
        after = 1 - stm
        moved = False
        for move in board.legal_moves:
            moved = True
            frm, to = move.from_square, move.to_square
            if move.promotion is None and to != sq:  # the material stays
                src.append(i)
                if frm == wk:
                    dst_raw.append(raw_index(after, to, bk, sq))
                elif frm == bk:
                    dst_raw.append(raw_index(after, wk, to, sq))
                else:
                    dst_raw.append(raw_index(after, wk, bk, to))
                continue
            ext_src.append(i)
            board.push(move)
            if board.is_insufficient_material():
                ext_outcome.append(0)
                ext_remoteness.append(-1)
            else:
                assert move.promotion is not None
                other = solve(PROMOTIONS[move.promotion])
                j = other.class_of_board(board)
                assert j >= 0, board.fen()
                ext_outcome.append(int(other.outcome[j]))
                ext_remoteness.append(int(other.remoteness[j]))
            board.pop()
        if not moved:
            if board.is_checkmate():
                mated.append(i)
            else:
                assert board.is_stalemate(), board.fen()
                stalemates += 1

    n = len(reps)
    reps_arr = np.array(reps, dtype=np.int64)
    class_of_rep = np.full(RAW, -1, dtype=np.int64)
    class_of_rep[reps_arr] = np.arange(n)
    class_of = class_of_rep[rep]
    class_of[~distinct] = -1
    dst = class_of[np.array(dst_raw, dtype=np.int64)]
    assert (dst >= 0).all(), "a legal move reaches a legal position"
    edges_src = np.array(src + ext_src, dtype=np.int64)
    edges_dst = np.concatenate([dst, n + np.arange(len(ext_src), dtype=np.int64)])
    outcome, remoteness, rounds = fixed_point(
        n,
        edges_src,
        edges_dst,
        np.array(ext_outcome, dtype=np.int8),
        np.array(ext_remoteness, dtype=np.int32),
        np.array(mated, dtype=np.int64),
    )
    return Solved(
        name, man, reps_arr, class_of, outcome, remoteness, len(edges_src), len(mated), stalemates, rounds
    )
