"""A grid game that nimbase does not ship, for the page's test of grid views declared by plugins:
`claim:RxC`, players in turn put their piece (x first, then o) on any empty cell of R rows of C cells;
whoever fills the last empty cell of a row wins. Positions are the rows joined by "/" ("." empty)."""

from __future__ import annotations

from nimbase_rules import LOSS, Family, Grid, Move, Rules

PIECES = ".xo"


class Claim(Rules):
    tier_order = 1

    def __init__(self, rows: int, cols: int) -> None:
        self.rows = rows
        self.cols = cols
        self.size = 3 ** (rows * cols)
        self.max_moves = rows * cols
        self.game_id = f"claim:{rows}x{cols}"
        self.name = f"Claim {rows} x {cols}"
        self.description = "Put your piece on an empty cell; whoever fills a row's last cell wins."
        self.position_syntax = f"{rows} rows of {cols} cells x, o or . joined by /; moves a1, b2..."
        self.examples = ("/".join(["." * cols] * rows),)

    def cells(self, code: int) -> list[int]:
        return [code // 3**i % 3 for i in range(self.rows * self.cols)]

    def initial(self) -> int:
        return 0

    def parse(self, text: str) -> int:
        lines = text.split("/")
        if len(lines) != self.rows or any(len(line) != self.cols for line in lines):
            raise ValueError(f"{self.rows} rows of {self.cols} cells")
        flat = "".join(lines)
        if any(ch not in PIECES for ch in flat):
            raise ValueError("cells are x, o or .")
        return sum(PIECES.index(ch) * 3**i for i, ch in enumerate(flat))

    def format(self, code: int) -> str:
        flat = "".join(PIECES[c] for c in self.cells(code))
        return "/".join(flat[r * self.cols : (r + 1) * self.cols] for r in range(self.rows))

    def legal(self, code: int) -> bool:
        cells = self.cells(code)
        return 0 <= code < self.size and cells.count(1) - cells.count(2) in (0, 1)

    def moves(self, code: int) -> list[Move]:
        cells = self.cells(code)
        if any(all(cells[r * self.cols + c] for c in range(self.cols)) for r in range(self.rows)):
            return []  # a row is full: its last cell's player has won
        piece = 1 if cells.count(1) == cells.count(2) else 2
        return [
            Move(f"{'abcdefgh'[i % self.cols]}{i // self.cols + 1}", code + piece * 3**i)
            for i, c in enumerate(cells)
            if c == 0
        ]

    def end(self, code: int) -> int:
        return LOSS

    def tier(self, code: int) -> int:
        return sum(1 for c in self.cells(code) if c)

    def grid(self) -> Grid:
        return Grid(self.rows, self.cols)


def _make(params: str | None) -> Rules:
    rows, _, cols = (params or "").partition("x")
    if not (rows.isdigit() and cols.isdigit() and 1 <= int(rows) * int(cols) <= 9):
        raise ValueError("claim needs its board as RxC with at most 9 cells, e.g. 'claim:2x3'")
    return Claim(int(rows), int(cols))


FAMILY = Family("claim", _make, examples=("2x3",))
