"""`take-away:N`: take one or two tokens from a pile of N; whoever takes the last one wins.

Positions are the tokens left (`7`); a move is `-1` or `-2`. Tiers: the tokens left, shrinking by one or
two a move (so each tier's job waits for the two below it).
"""

from __future__ import annotations

from nimbase_rules import LOSS, Family, Move, Rules


class TakeAway(Rules):
    tier_order = -1
    max_moves = 2

    def __init__(self, tokens: int) -> None:
        self.tokens = tokens
        self.size = tokens + 1
        self.game_id = f"take-away:{tokens}"
        self.name = f"Take-away from {tokens}"
        self.description = "Take one or two tokens from the pile; whoever takes the last one wins."
        self.position_syntax = f"the tokens left, 0 to {tokens}"
        self.examples = (str(tokens),)

    def initial(self) -> int:
        return self.tokens

    def parse(self, text: str) -> int:
        if not text.isdigit() or int(text) > self.tokens:
            raise ValueError(f"a number of tokens from 0 to {self.tokens}")
        return int(text)

    def format(self, code: int) -> str:
        return str(code)

    def moves(self, code: int) -> list[Move]:
        return [Move(f"-{k}", code - k) for k in (1, 2) if k <= code]

    def end(self, code: int) -> int:
        return LOSS  # the opponent took the last token

    def tier(self, code: int) -> int:
        return code

    def tiers(self) -> list[int]:
        return list(range(self.tokens + 1))

    def tier_moves_to(self, tier: int) -> list[int]:
        return [t for t in (tier - 1, tier - 2) if t >= 0]


def _make(params: str | None) -> Rules:
    if params is None or not params.isdigit() or not 1 <= int(params) <= 1000:
        raise ValueError("take-away needs the pile's size 1..1000, e.g. 'take-away:10'")
    return TakeAway(int(params))


FAMILY = Family("take-away", _make, examples=("10",))
