"""Tic-tac-toe and its misère form (`tictactoe`, `tictactoe:misere`), as plain Python rules.

A position is three rows of `x`, `o`, `.` joined by `/`, top row first; `x` moves first, so the player to
move is `x` when both have as many marks. The code is the board in base 3 (cell r*3+c its digit: 0 empty,
1 x, 2 o). A legal position has as many x as o, or one more, and at most the last mover has a line (and
then the counts say the line's owner moved last). Tiers: the marks on the board (growing by one a move).
In the misère form, whoever completes a line loses. 5,478 legal positions; the game is a tie.
"""

from __future__ import annotations

from nimbase_rules import LOSS, TIE, WIN, Family, Grid, Move, Rules

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
POWERS = tuple(3**i for i in range(9))
MARKS = ".xo"


def cells(code: int) -> list[int]:
    """The nine cells (0 empty, 1 x, 2 o), row by row."""
    return [code // p % 3 for p in POWERS]


def has_line(board: list[int], mark: int) -> bool:
    return any(board[a] == board[b] == board[c] == mark for a, b, c in LINES)


class TicTacToe(Rules):
    size = 3**9
    tier_order = 1
    max_moves = 9
    _by_tier: dict[int, list[int]] = {}  # noqa: RUF012 (filled once, read only)

    def __init__(self, misere: bool = False) -> None:
        self.misere = misere
        self.game_id = "tictactoe:misere" if misere else "tictactoe"
        self.name = "Tic-tac-toe (misère)" if misere else "Tic-tac-toe"
        self.description = (
            "Three in a row on a 3 x 3 board; x moves first. "
            + ("Misère: whoever completes a line loses. " if misere else "")
            + "A game defined by its rules (plugin interface)."
        )
        self.position_syntax = (
            "three rows of x, o, . joined by /, top row first, e.g. 'x../.o./...'; x moves first; "
            "moves are cells a1..c3 (column a-c, row 1 at the top)"
        )
        self.examples = (".../.../...", "x../.o./...", "xx./oo./...")

    def initial(self) -> int:
        return 0

    def parse(self, text: str) -> int:
        rows = text.split("/")
        if len(rows) != 3 or any(len(r) != 3 for r in rows) or any(ch not in MARKS for r in rows for ch in r):
            raise ValueError("a tic-tac-toe board is three rows of three of x, o, . joined by /")
        return sum(MARKS.index(ch) * POWERS[i] for i, ch in enumerate("".join(rows)))

    def format(self, code: int) -> str:
        board = "".join(MARKS[c] for c in cells(code))
        return "/".join(board[i : i + 3] for i in (0, 3, 6))

    def legal(self, code: int) -> bool:
        if not 0 <= code < self.size:
            return False
        board = cells(code)
        xs, os = board.count(1), board.count(2)
        if xs - os not in (0, 1):
            return False
        x_line, o_line = has_line(board, 1), has_line(board, 2)
        return not (x_line and o_line) and not (x_line and xs == os) and not (o_line and xs != os)

    def moves(self, code: int) -> list[Move]:
        board = cells(code)
        if has_line(board, 1) or has_line(board, 2):
            return []
        mark = 1 if board.count(1) == board.count(2) else 2
        return [
            Move("abc"[i % 3] + str(i // 3 + 1), code + mark * POWERS[i]) for i in range(9) if board[i] == 0
        ]

    def end(self, code: int) -> int:
        board = cells(code)
        if has_line(board, 1) or has_line(board, 2):
            return WIN if self.misere else LOSS  # the last mover made the line
        return TIE

    def tier(self, code: int) -> int:
        return sum(1 for c in cells(code) if c)

    def tiers(self) -> list[int]:
        return list(range(9, -1, -1))

    def tier_moves_to(self, tier: int) -> list[int]:
        return [tier + 1] if tier < 9 else []

    def tier_positions(self, tier: int) -> list[int]:
        """Every legal code grouped by marks once (a class attribute: the same for both forms)."""
        if not TicTacToe._by_tier:
            for code in range(self.size):
                if self.legal(code):
                    TicTacToe._by_tier.setdefault(self.tier(code), []).append(code)
        return TicTacToe._by_tier.get(tier, [])

    def grid(self) -> Grid:
        return Grid(3, 3)


def _make(params: str | None) -> Rules:
    if params is None:
        return TicTacToe()
    if params == "misere":
        return TicTacToe(misere=True)
    raise ValueError("tic-tac-toe takes no parameter but 'misere'")


FAMILY = Family("tictactoe", _make, examples=(None, "misere"))
