"""Kayles on a row of N pins (`rules-kayles:N`), as plain Python rules: the test oracle is the built-in
`octal:0.77` kind, which shares no code with the rules path.

A position is the row, `x` a standing pin and `.` a fallen one (`xx.xxx`); a move knocks down one pin or
two adjacent ones, named by the first pin's place from 1 and how many (`3+2`). Whoever cannot move
loses. The code is the standing pins as bits; tiers: the pins standing (shrinking along moves).
"""

from __future__ import annotations

from nimbase_rules import LOSS, Family, Move, Rules


class RowKayles(Rules):
    tier_order = -1

    def __init__(self, pins: int) -> None:
        self.pins = pins
        self.size = 1 << pins
        self.max_moves = 2 * pins
        self.game_id = f"rules-kayles:{pins}"
        self.name = f"Kayles (rules) on {pins} pins"
        self.description = (
            "Knock down one pin or two adjacent ones; whoever cannot move loses. Defined by its rules."
        )
        self.position_syntax = f"{pins} characters, x a standing pin and . a fallen one"
        self.examples = ("x" * pins,)

    def initial(self) -> int:
        return self.size - 1

    def parse(self, text: str) -> int:
        if len(text) != self.pins or set(text) - {"x", "."}:
            raise ValueError(f"{self.pins} characters x or .")
        return sum(1 << i for i, ch in enumerate(text) if ch == "x")

    def format(self, code: int) -> str:
        return "".join("x" if code >> i & 1 else "." for i in range(self.pins))

    def moves(self, code: int) -> list[Move]:
        out = []
        for i in range(self.pins):
            if code >> i & 1:
                out.append(Move(f"{i + 1}+1", code & ~(1 << i)))
                if i + 1 < self.pins and code >> (i + 1) & 1:
                    out.append(Move(f"{i + 1}+2", code & ~(3 << i)))
        return out

    def end(self, code: int) -> int:
        return LOSS

    def tier(self, code: int) -> int:
        return code.bit_count()

    def tiers(self) -> list[int]:
        return list(range(self.pins + 1))


def _make(params: str | None) -> Rules:
    if params is None or not (params.isascii() and params.isdigit()) or not 1 <= int(params) <= 20:
        raise ValueError("Kayles (rules) needs its row's length 1..20, e.g. 'rules-kayles:8'")
    return RowKayles(int(params))


FAMILY = Family("rules-kayles", _make, examples=("8",))
