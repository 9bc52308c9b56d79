"""Nim with a few small heaps (`rules-nim:3,4,5`: heap i holds at most its bound), as plain Python rules:
the test oracle for the rules path is the built-in `nim` kind, which shares no code with it.

A position is the heap sizes separated by spaces, in order (`1 4 2`); a move takes tokens from one heap,
named `<heap>-<taken>` (heaps from 1). Whoever cannot move loses. The code is the sizes in mixed radix;
tiers: the tokens left (shrinking along moves).
"""

from __future__ import annotations

from nimbase_rules import LOSS, Family, Move, Rules


class HeapNim(Rules):
    tier_order = -1

    def __init__(self, bounds: tuple[int, ...]) -> None:
        self.bounds = bounds
        self.radix = [b + 1 for b in bounds]
        self.place = [1]
        for r in self.radix[:-1]:
            self.place.append(self.place[-1] * r)
        self.size = self.place[-1] * self.radix[-1]
        self.max_moves = sum(bounds)
        self.game_id = "rules-nim:" + ",".join(map(str, bounds))
        self.name = "Nim (rules) " + ",".join(map(str, bounds))
        self.description = "Nim on heaps of at most the given sizes, defined by its rules (plugin interface)."
        self.position_syntax = f"{len(bounds)} heap sizes separated by spaces, each at most its bound"
        self.examples = (" ".join(map(str, bounds)),)

    def sizes(self, code: int) -> list[int]:
        return [code // p % r for p, r in zip(self.place, self.radix, strict=True)]

    def initial(self) -> int:
        return self.size - 1

    def parse(self, text: str) -> int:
        parts = text.split()
        if len(parts) != len(self.bounds) or not all(p.isascii() and p.isdigit() for p in parts):
            raise ValueError(f"{len(self.bounds)} heap sizes separated by spaces")
        sizes = [int(p) for p in parts]
        if any(s > b for s, b in zip(sizes, self.bounds, strict=True)):
            raise ValueError(f"heaps hold at most {self.bounds}")
        return sum(s * p for s, p in zip(sizes, self.place, strict=True))

    def format(self, code: int) -> str:
        return " ".join(map(str, self.sizes(code)))

    def moves(self, code: int) -> list[Move]:
        return [
            Move(f"{i + 1}-{k}", code - k * self.place[i])
            for i, s in enumerate(self.sizes(code))
            for k in range(1, s + 1)
        ]

    def end(self, code: int) -> int:
        return LOSS

    def tier(self, code: int) -> int:
        return sum(self.sizes(code))


def _make(params: str | None) -> Rules:
    parts = (params or "").split(",")
    if not all(
        p.isascii() and p.isdigit() for p in parts
    ):  # int() takes '+3', '1_0' and other scripts' digits
        raise ValueError("Nim (rules) needs its heap bounds, e.g. 'rules-nim:3,4,5'")
    bounds = tuple(int(p) for p in parts)
    if not 1 <= len(bounds) <= 6 or not all(1 <= b <= 20 for b in bounds):
        raise ValueError("one to six heap bounds, each 1..20")
    return HeapNim(bounds)


FAMILY = Family("rules-nim", _make, examples=("3,4,5",))
