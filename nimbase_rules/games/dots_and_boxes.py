"""Dots and Boxes on R x C boxes (`dots-and-boxes:RxC`), a score game, as plain Python rules.

A position is the lines drawn: a string of 0/1, one digit a line, the (R+1) rows of C horizontal lines
first (top row first, left to right), then the R rows of C+1 vertical lines; e.g. the empty 2 x 2 board
is twelve 0s. Who has scored what so far does not change the best play from here, so it is not part of
the position: the value is the margin of the boxes still to win, for the player to move. A move draws a
line, named `h<row>,<col>` or `v<row>,<col>` (from 0); completing a box scores it and moves again.
The code is the lines as bits (in the text's order); tiers: the lines drawn (growing by one a move).
"""

from __future__ import annotations

import re

from nimbase_rules import Family, Move, Rules

_ID = re.compile(r"([1-9])x([1-9])")


class DotsAndBoxes(Rules):
    score_game = True
    tier_order = 1

    def __init__(self, rows: int, cols: int) -> None:
        self.rows = rows
        self.cols = cols
        self.horizontal = (rows + 1) * cols
        self.lines = self.horizontal + rows * (cols + 1)
        self.size = 1 << self.lines
        self.max_moves = self.lines
        self.game_id = f"dots-and-boxes:{rows}x{cols}"
        self.name = f"Dots and Boxes {rows} x {cols}"
        self.description = (
            f"Draw lines between the dots of {rows} x {cols} boxes; completing a box scores it and moves "
            "again. A score game: values are the margin of the boxes still to win, for the player to move."
        )
        self.position_syntax = (
            f"{self.lines} digits 0/1, one a line: the {rows + 1} rows of {cols} horizontal lines "
            f"(top first), then the {rows} rows of {cols + 1} vertical ones; moves h<row>,<col> or "
            "v<row>,<col> from 0"
        )
        self.examples = ("0" * self.lines,)
        # The four lines of each box.
        self.boxes = [
            (
                r * cols + c,
                (r + 1) * cols + c,
                self.horizontal + r * (cols + 1) + c,
                self.horizontal + r * (cols + 1) + c + 1,
            )
            for r in range(rows)
            for c in range(cols)
        ]
        self.boxes_of: list[list[tuple[int, int, int, int]]] = [[] for _ in range(self.lines)]
        for box in self.boxes:
            for line in box:
                self.boxes_of[line].append(box)

    def initial(self) -> int:
        return 0

    def parse(self, text: str) -> int:
        if len(text) != self.lines or set(text) - {"0", "1"}:
            raise ValueError(f"a {self.rows} x {self.cols} board is {self.lines} digits 0/1")
        return sum(1 << i for i, ch in enumerate(text) if ch == "1")

    def format(self, code: int) -> str:
        return "".join("1" if code >> i & 1 else "0" for i in range(self.lines))

    def name_of(self, line: int) -> str:
        if line < self.horizontal:
            return f"h{line // self.cols},{line % self.cols}"
        v = line - self.horizontal
        return f"v{v // (self.cols + 1)},{v % (self.cols + 1)}"

    def moves(self, code: int) -> list[Move]:
        out = []
        for line in range(self.lines):
            if code >> line & 1:
                continue
            after = code | 1 << line
            scored = sum(1 for box in self.boxes_of[line] if all(after >> b & 1 for b in box))
            out.append(Move(self.name_of(line), after, gain=scored, again=scored > 0))
        return out

    def end(self, code: int) -> int:
        return 0

    def tier(self, code: int) -> int:
        return code.bit_count()

    def tiers(self) -> list[int]:
        return list(range(self.lines, -1, -1))

    def tier_moves_to(self, tier: int) -> list[int]:
        return [tier + 1] if tier < self.lines else []

    def tier_positions(self, tier: int) -> list[int]:
        from itertools import combinations

        return sorted(sum(1 << i for i in chosen) for chosen in combinations(range(self.lines), tier))


def _make(params: str | None) -> Rules:
    match = _ID.fullmatch(params or "")
    if match is None:
        raise ValueError("Dots and Boxes needs its boxes as RxC, e.g. 'dots-and-boxes:2x2'")
    rows, cols = int(match[1]), int(match[2])
    if (rows + 1) * cols + rows * (cols + 1) > 40:
        raise ValueError(f"{rows} x {cols} boxes have more lines than this plugin encodes (40)")
    return DotsAndBoxes(rows, cols)


FAMILY = Family("dots-and-boxes", _make, examples=("2x2",))  # solved live (2x3 is left to jobs)
