"""Nim: a move takes any positive number of tokens from one heap.

Single heaps have closed forms (g(n) = n; misère g-(n) = n except g-(0) = 1, g-(1) = 0), so Nim
needs no kernel and no table, and heaps up to 2^63-1 are answered at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from engine.errors import InvalidGameId
from engine.families import Family
from engine.kind import Context
from engine.moves import MoveTo
from engine.periods import Period
from engine.values import Outcome, Source
from kinds.heaps.base import GameInfo, HeapGame, Heaps

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

    def targets(
        self, component: int, value: int | None, target: int, value_of: Callable[[int], int]
    ) -> Iterator[Heaps]:
        """A heap's value is its size: the one option of value `target` is the heap of that size."""
        if target < component:
            yield (target,) if target else ()

    def single_heap_remoteness(self, n: int, ctx: Context) -> int | None:
        """Normal play: a non-empty heap is taken whole in one move."""
        return None if self.misere else 1

    def misere_value(self, position: Heaps, ctx: Context) -> tuple[Outcome, Source, int | None]:
        return ("P" if misere_nim_is_p(position) else "N"), "formula", None

    def misere_winning_moves(self, position: Heaps, ctx: Context) -> list[MoveTo[Heaps]]:
        """Bouton's rule picks the target of each heap: its nim-sum complement, or 0 or 1 tokens."""
        total = 0
        for heap in position:
            total ^= heap
        found: list[MoveTo[Heaps]] = []
        for index, heap in enumerate(position):
            if index and position[index - 1] == heap:
                continue
            for target in sorted(t for t in {heap ^ total, 0, 1} if t < heap):
                move = self.move(position, index, (target,) if target else ())
                if misere_nim_is_p(move[2]):
                    found.append(move)
        return found

    def formula_period(self) -> Period:
        """g(n+1) = g(n) + 1: arithmetic periodicity with saltus 1 (from 0, or from 2 in misère play)."""
        return Period(preperiod=2 if self.misere else 0, period=1, saltus=1, certified=True)


def misere_nim_is_p(heaps: Iterable[int]) -> bool:
    """Bouton: with every heap <= 1, P iff the 1-heaps are odd in number; else P iff nim-sum 0."""
    total = 0
    ones = 0
    big = False
    for h in heaps:
        total ^= h
        if h == 1:
            ones += 1
        elif h > 1:
            big = True
    if big:
        return total == 0
    return ones % 2 == 1


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


#: The family's registry entry (pyproject.toml's entry point `nim`).
ENTRY = Family(parse=parse_nim_id, info=family_info, order=10)
