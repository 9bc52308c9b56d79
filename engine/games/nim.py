"""Nim: a move takes any positive number of tokens from one heap.

Single heaps have closed forms (g(n) = n; misère g-(n) = n except g-(0) = 1, g-(1) = 0), so Nim
needs no kernel and no table, and heaps up to 2^63-1 are answered at once.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.errors import InvalidGameId
from engine.games.base import GameInfo, HeapGame, Heaps
from engine.periods import Period

FAMILY = "nim"

_INFO = GameInfo(
    id="nim",
    name="Nim",
    description=(
        "Take any positive number of tokens from one heap; the last player to move wins "
        "(`nim`) or loses (`nim:misere`)."
    ),
    position_syntax="heap sizes separated by spaces, each 0..2^63-1, e.g. `3 5 7`",
    examples=("3 5 7", "1 3 5 7", "7 10 13 9 3 9"),
)


class NimGame(HeapGame):
    """Nim under normal play or misère play."""

    def __init__(self, misere: bool = False) -> None:
        self.misere = misere
        self.game_id = "nim:misere" if misere else "nim"

    def __repr__(self) -> str:
        return f"NimGame(misere={self.misere})"

    def info(self) -> GameInfo:
        return _INFO

    def heap_options(self, n: int) -> Iterator[Heaps]:
        """(n-1,), ..., (1,), (): fewest tokens taken first, lazily (n may be 2^63-1)."""
        for k in range(n - 1, 0, -1):
            yield (k,)
        if n > 0:
            yield ()

    def option_count(self, n: int) -> int:
        return max(n, 0)

    def formula_value(self, n: int) -> int:
        if not self.misere:
            return n
        if n <= 1:
            return 1 - n
        return n

    def formula_period(self) -> Period:
        """g(n+1) = g(n) + 1: arithmetic periodicity with saltus 1 (from 0, or from 2 in misère play)."""
        return Period(preperiod=2 if self.misere else 0, period=1, saltus=1, certified=True)


def family_info() -> GameInfo:
    """The ListGames entry of the Nim family."""
    return _INFO


def parse_nim_id(params: str | None, text: str) -> NimGame:
    """`nim` or `nim:misere`; `params` is what follows `nim:` (None when nothing does)."""
    if params is None:
        return NimGame(misere=False)
    if params == "misere":
        return NimGame(misere=True)
    raise InvalidGameId(f"game id {text!r}: Nim takes no parameters; only the suffix ':misere' is allowed")
