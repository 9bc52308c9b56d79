"""Connect Four on a board of W columns and H rows (`connect4:WxH`), as numba rules.

A position is H rows of `x`, `o`, `.` joined by `/`, top row first; pieces rest at the bottom; `x` moves
first. A move drops a piece in a column, named by its number from 1 (left). Whoever makes four in a row
(across, up or diagonally) wins; a full board without one is a tie.

The code: each column is a state s = 2^h - 1 + b (h pieces, bit j of b set where the j-th piece from the
bottom is `o`), and the code is sum s_c R^c with R = 2^(H+1) - 1. A legal position has as many x as o or
one more, and a line for at most the player who moved last. Tiers: the pieces on the board (growing by
one a move). Positions and their mirror images are one (`canonical`: the smaller code).
"""

from __future__ import annotations

import re
from typing import Any

import numba
import numpy as np

from nimbase_rules import LOSS, NOT_OVER, TIE, Family, Grid, Kernels, Move, Rules
from nimbase_rules.compiled import compiled_module

#: Largest board the id accepts (the code must fit 63 bits).
MAX_CELLS = 64
_ID = re.compile(r"([1-9][0-9]?)x([1-9][0-9]?)")


@numba.njit(cache=True, nogil=True)
def _decode(code: int, W: int, H: int) -> tuple[int, int, int, int]:
    """(x mask, o mask, pieces of x, pieces of o) on Tromp's layout: column c in bits c*(H+1)..."""
    R = (1 << (H + 1)) - 1
    x = 0
    o = 0
    xs = 0
    os = 0
    for c in range(W):
        s = code % R
        code //= R
        h = 0
        while (2 << h) - 1 <= s:
            h += 1
        b = s - ((1 << h) - 1)
        for j in range(h):
            bit = 1 << (c * (H + 1) + j)
            if (b >> j) & 1:
                o |= bit
                os += 1
            else:
                x |= bit
                xs += 1
    return x, o, xs, os


@numba.njit(cache=True, nogil=True)
def _line(m: int, H: int) -> bool:
    step = H + 1
    for shift in (1, step, step - 1, step + 1):
        y = m & (m >> shift)
        if y & (y >> (2 * shift)):
            return True
    return False


@numba.njit(cache=True, nogil=True)
def _legal(code: int, W: int, H: int) -> bool:
    R = (1 << (H + 1)) - 1
    if code < 0 or code >= R**W:
        return False
    x, o, xs, os = _decode(code, W, H)
    if xs - os != 0 and xs - os != 1:
        return False
    lx = _line(x, H)
    lo = _line(o, H)
    if lx and lo:
        return False
    if lx and xs == os:
        return False
    return not (lo and xs != os)


@numba.njit(cache=True, nogil=True)
def _moves(code: int, to: Any, info: Any, W: int, H: int) -> int:
    """One pass over the columns: each column's height (kept in `to` until its move is written) and
    both players' pieces, a column at a time; then a move for each column not full, whose code adds
    2^h to the column's state where x drops a piece and 2^(h+1) where o does."""
    R = (1 << (H + 1)) - 1
    x = 0
    o = 0
    pieces = 0
    rest = code
    for c in range(W):
        s = rest % R
        rest //= R
        h = 0
        while (2 << h) - 1 <= s:
            h += 1
        full = (1 << h) - 1
        b = s - full
        o |= b << (c * (H + 1))
        x |= (full ^ b) << (c * (H + 1))
        pieces += h
        to[c] = h
    if _line(x, H) or _line(o, H):
        return 0
    step = 1 if pieces % 2 == 0 else 2  # x to move where the pieces are even
    k = 0
    power = 1
    for c in range(W):
        h = to[c]
        if h < H:
            to[k] = code + (step << h) * power
            info[k] = 0
            k += 1
        power *= R
    return k


@numba.njit(cache=True, nogil=True)
def _end(code: int, W: int, H: int) -> int:
    x, o, xs, os = _decode(code, W, H)
    if _line(x, H) or _line(o, H):
        return LOSS
    if xs + os == W * H:
        return TIE
    return NOT_OVER


@numba.njit(cache=True, nogil=True)
def _canonical(code: int, W: int, H: int) -> int:
    """The smaller of the code and its mirror image's (the columns' states in reverse order)."""
    R = (1 << (H + 1)) - 1
    mirror = 0
    rest = code
    for _c in range(W):
        mirror = mirror * R + rest % R
        rest //= R
    return min(code, mirror)


@numba.njit(cache=True, nogil=True)
def _tier(code: int, W: int, H: int) -> int:
    _x, _o, xs, os = _decode(code, W, H)
    return xs + os


@numba.njit(cache=True, nogil=True)
def _enumerate(t: int, W: int, H: int) -> Any:
    """The canonical legal codes with t pieces, ascending, generated in that order (no sort).

    A code orders positions by the last column's state first, and a column's state s = 2^h - 1 + b by
    its height h, then its pieces b: so the columns are chosen from the last to the first, each column's
    states ascending among those that leave the rest of the pieces (t // 2 of them o) room in the columns
    left; the first column takes what is left (its o pieces chosen by Gosper's hack, ascending). Then
    the canonical form and the rule of `_legal` (the counts hold by construction), which comes down to no
    line for the player who did not move last: lines only grow as columns are added, so columns that
    already make one are not followed further."""
    R = (1 << (H + 1)) - 1
    pw = np.empty(W + 1, np.int64)
    pw[0] = 1
    for c in range(1, W + 1):
        pw[c] = pw[c - 1] * R
    odd = t % 2 == 1  # x moved last
    total_o = t // 2
    found = np.empty(1024, np.int64)
    n = 0
    # Per column c (chosen from W - 1 down to 1): its state, and the sums over the columns above it and
    # itself: pieces, o pieces, code, mirror code, x and o masks (index c; index W the empty sums).
    state = np.full(W + 1, -1, np.int64)
    pieces = np.zeros(W + 1, np.int64)
    os = np.zeros(W + 1, np.int64)
    code = np.zeros(W + 1, np.int64)
    mirror = np.zeros(W + 1, np.int64)
    xm = np.zeros(W + 1, np.int64)
    om = np.zeros(W + 1, np.int64)
    c = W - 1
    while c < W:
        if c == 0:  # the first column takes the pieces left
            h = t - pieces[1]
            need = total_o - os[1]
            if 0 <= h <= H and 0 <= need <= h:
                b = (1 << need) - 1
                while b < (1 << h):
                    s = (1 << h) - 1 + b
                    cd = code[1] + s
                    mr = mirror[1] + s * pw[W - 1]
                    # canonical, and the rule of `_legal`: no line for the player who did not move last
                    if cd <= mr and not _line(om[1] | b if odd else xm[1] | (((1 << h) - 1) ^ b), H):
                        if n == found.shape[0]:
                            grown = np.empty(2 * n, np.int64)
                            grown[:n] = found
                            found = grown
                        found[n] = cd
                        n += 1
                    if b == 0:
                        break
                    low = b & -b
                    r = b + low
                    b = (((r ^ b) >> 2) // low) | r
            c = 1
            continue
        # The next state of column c that leaves the columns below room for the rest.
        s = state[c] + 1
        placed = False
        while s < R:
            h = 0
            while (2 << h) - 1 <= s:
                h += 1
            left = t - pieces[c + 1] - h
            if left < 0:
                break  # the states further on are taller still
            b = s - ((1 << h) - 1)
            ob = 0
            y = b
            while y:
                y &= y - 1
                ob += 1
            left_o = total_o - os[c + 1] - ob
            if left <= H * c and 0 <= left_o <= left:
                x = xm[c + 1] | ((((1 << h) - 1) ^ b) << (c * (H + 1)))
                o = om[c + 1] | (b << (c * (H + 1)))
                if _line(o if odd else x, H):
                    s += 1  # a line the rule forbids already: no choice of the columns left undoes it
                    continue
                state[c] = s
                pieces[c] = pieces[c + 1] + h
                os[c] = os[c + 1] + ob
                code[c] = code[c + 1] + s * pw[c]
                mirror[c] = mirror[c + 1] + s * pw[W - 1 - c]
                xm[c] = x
                om[c] = o
                placed = True
                break
            s += 1
        if placed:
            c -= 1
            if c > 0:
                state[c] = -1
        else:
            state[c] = -1
            c += 1
    return found[:n].copy()


_BOARD = """import numba
from nimbase_rules.games.connect4 import _canonical, _end, _legal, _moves, _tier

W = {width}
H = {height}


@numba.njit(cache=True, nogil=True)
def legal(code):
    return _legal(code, W, H)


@numba.njit(cache=True, nogil=True)
def moves(code, to, info):
    return _moves(code, to, info, W, H)


@numba.njit(cache=True, nogil=True)
def end(code):
    return _end(code, W, H)


@numba.njit(cache=True, nogil=True)
def canonical(code):
    return _canonical(code, W, H)


@numba.njit(cache=True, nogil=True)
def tier(code):
    return _tier(code, W, H)
"""


def _make_kernels(width: int, height: int) -> Kernels:
    """The rules of one board as numba functions: the module's kernels with the board's sizes bound as
    constants, in a module of their own generated for the board (`nimbase_rules.compiled`), so that
    numba keeps them compiled on disk, as the solver's loops over them, for the next process."""
    board = compiled_module("nimbase_connect4", _BOARD.format(width=width, height=height), [__file__])
    return Kernels(board.legal, board.moves, board.end, board.canonical, board.tier)


_KERNELS: dict[tuple[int, int], Kernels] = {}


class Connect4(Rules):
    """Connect Four on W x H; with `compiled` false the same rules as plain Python (the bench's other
    path: the solver then calls the methods)."""

    tier_order = 1

    def __init__(self, width: int, height: int, compiled: bool = True) -> None:
        self.width = width
        self.height = height
        self.compiled = compiled
        self.radix = (1 << (height + 1)) - 1
        self.size = self.radix**width
        self.max_moves = width
        self.game_id = f"connect4:{width}x{height}"
        self.name = f"Connect Four {width} x {height}"
        self.description = (
            f"Drop pieces into {width} columns of {height}; four in a row (across, up or diagonally) "
            "wins, a full board without one is a tie; x moves first. A game defined by its rules."
        )
        self.position_syntax = (
            f"{height} rows of x, o, . joined by /, top row first (pieces rest at the bottom); moves are "
            f"column numbers 1-{width}"
        )
        empty = "/".join(["." * width] * height)
        self.examples = (empty,)
        self._to = np.empty(width, np.int64)
        self._info = np.empty(width, np.int64)

    @property
    def _kernels(self) -> Kernels:
        """The board's compiled kernels, made when first used: listing the game (ListGames, any command
        of the CLI) compiles and writes nothing."""
        key = (self.width, self.height)
        found = _KERNELS.get(key)
        if found is None:
            found = _KERNELS[key] = _make_kernels(self.width, self.height)
        return found

    def kernels(self) -> Kernels | None:
        return self._kernels if self.compiled else None

    def initial(self) -> int:
        return 0

    def columns(self, code: int) -> list[str]:
        """Each column's pieces from the bottom, as text."""
        out = []
        for _ in range(self.width):
            s = code % self.radix
            code //= self.radix
            h = (s + 1).bit_length() - 1
            b = s - ((1 << h) - 1)
            out.append("".join("o" if b >> j & 1 else "x" for j in range(h)))
        return out

    def parse(self, text: str) -> int:
        rows = text.split("/")
        if len(rows) != self.height or any(len(r) != self.width for r in rows):
            raise ValueError(
                f"a {self.width} x {self.height} board is {self.height} rows of {self.width} cells"
            )
        code = 0
        for c in range(self.width):
            column = "".join(rows[self.height - 1 - j][c] for j in range(self.height))
            pieces = column.rstrip(".")
            if any(ch not in "xo" for ch in pieces) or any(ch not in "xo." for ch in column):
                raise ValueError(f"column {c + 1} has a piece with nothing below it, or a cell not x, o, .")
            b = sum(1 << j for j, ch in enumerate(pieces) if ch == "o")
            code += ((1 << len(pieces)) - 1 + b) * self.radix**c
        return code

    def format(self, code: int) -> str:
        cols = [col.ljust(self.height, ".") for col in self.columns(code)]
        return "/".join("".join(col[j] for col in cols) for j in range(self.height - 1, -1, -1))

    def legal(self, code: int) -> bool:
        return bool(self._kernels.legal(code))

    def moves(self, code: int) -> list[Move]:
        k = self._kernels.moves(code, self._to, self._info)
        before = self.columns(code)
        out = []
        for i in range(k):
            to = int(self._to[i])
            after = self.columns(to)
            column = next(c for c in range(self.width) if after[c] != before[c])
            out.append(Move(str(column + 1), to))
        return out

    def end(self, code: int) -> int:
        return int(self._kernels.end(code))

    def canonical(self, code: int) -> int:
        return int(self._kernels.canonical(code))

    def tier(self, code: int) -> int:
        return int(self._kernels.tier(code))

    def tiers(self) -> list[int]:
        return list(range(self.width * self.height, -1, -1))

    def tier_moves_to(self, tier: int) -> list[int]:
        return [tier + 1] if tier < self.width * self.height else []

    def tier_positions(self, tier: int) -> np.ndarray:
        return _enumerate(tier, self.width, self.height)  # type: ignore[no-any-return]

    def grid(self) -> Grid:
        return Grid(self.height, self.width)


def _make(params: str | None) -> Rules:
    match = _ID.fullmatch(params or "")
    if match is None:
        raise ValueError("Connect Four needs its board as WxH (columns x rows), e.g. 'connect4:7x6'")
    width, height = int(match[1]), int(match[2])
    if width < 1 or height < 1 or width * (height + 1) > 62 or (1 << (height + 1)) ** width > 1 << 62:
        raise ValueError(f"a {width} x {height} board is beyond what a code of 63 bits holds")
    return Connect4(width, height)


# ListGames shows boards solved live: a listed example is valued when a live process starts (its
# refusal would queue jobs for a board nobody asked about).
FAMILY = Family("connect4", _make, examples=("4x4",))
