"""Subtraction games: a move takes s tokens from one heap, s drawn from a finite set S.

Only S = {1..k} under normal play has a closed form (n mod (k+1)); every other set is computed by
the subtraction kernel and answered beyond the table from its certified period.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from engine.errors import InvalidGameId
from engine.positions import parse_decimal
from kinds.heaps.base import GameInfo, HeapGame, Heaps, SequenceKernel
from kinds.heaps.kernels.subtraction import SubtractionKernel

FAMILY = "subtraction"
#: Most elements a subtraction set may have (values then fit a 64-bit mex mask).
MAX_SET_SIZE = 64
#: Largest element of a subtraction set.
MAX_ELEMENT = 10**6

_DESCRIPTION = (
    "Take s tokens from one heap, s from the finite set S of positive integers given in the id "
    f"(`subtraction:1,3,4`; at most {MAX_SET_SIZE} elements, each at most {MAX_ELEMENT}); the last "
    "player to move wins, or loses with the suffix `:misere`."
)
_SYNTAX = "heap sizes separated by spaces, each 0..2^63-1, e.g. `10 12`"
_EXAMPLES = ("10 12", "7", "3 5 8 13")


class SubtractionGame(HeapGame):
    """The subtraction game S under normal or misère play."""

    def __init__(self, moves: Iterable[int], misere: bool = False) -> None:
        canonical = tuple(sorted(set(moves)))
        if not canonical:
            raise InvalidGameId("a subtraction set needs at least one element")
        if canonical[0] < 1:
            raise InvalidGameId(f"subtraction set element {canonical[0]} is not positive")
        if canonical[-1] > MAX_ELEMENT:
            raise InvalidGameId(
                f"subtraction set element {canonical[-1]} is above the limit of {MAX_ELEMENT}"
            )
        if len(canonical) > MAX_SET_SIZE:
            raise InvalidGameId(
                f"subtraction set has {len(canonical)} elements, more than the limit of {MAX_SET_SIZE}"
            )
        self.moves: tuple[int, ...] = canonical
        self.misere = misere
        self.game_id = f"{FAMILY}:{','.join(map(str, canonical))}" + (":misere" if misere else "")
        self._kernel = SubtractionKernel(canonical, misere)

    def __repr__(self) -> str:
        return f"SubtractionGame({self.moves!r}, misere={self.misere})"

    def info(self) -> GameInfo:
        return GameInfo(
            id=self.game_id,
            name="Subtraction game",
            description=_DESCRIPTION,
            position_syntax=_SYNTAX,
            examples=_EXAMPLES,
        )

    def heap_options(self, n: int) -> Iterator[Heaps]:
        """(n-s,) for s in S ascending with s <= n; () where s == n (the heap vanishes)."""
        for s in self.moves:
            if s > n:
                return
            yield (n - s,) if s < n else ()

    def option_count(self, n: int) -> int:
        return sum(1 for s in self.moves if s <= n)

    def formula_value(self, n: int) -> int | None:
        k = len(self.moves)
        if not self.misere and self.moves[-1] == k:
            return n % (k + 1)
        return None

    def kernel(self) -> SequenceKernel:
        """The game's kernel, made once: every lookup asks for it."""
        return self._kernel


def family_info() -> GameInfo:
    """The ListGames entry of the subtraction family (its id is a working example)."""
    return SubtractionGame((1, 2, 3)).info()


def parse_subtraction_id(params: str | None, text: str) -> SubtractionGame:
    """`S` or `S:misere` (what follows `subtraction:`), S a comma-separated set of positive integers."""
    if params is None or params == "":
        raise InvalidGameId(f"game id {text!r}: a subtraction game needs a set, e.g. 'subtraction:1,3,4'")
    body, sep, suffix = params.partition(":")
    if sep and suffix != "misere":
        raise InvalidGameId(f"game id {text!r}: unknown suffix {suffix!r}; only ':misere' is allowed")
    parts = body.split(",")
    if len(parts) > 4 * MAX_SET_SIZE:
        raise InvalidGameId(f"game id {text!r}: a subtraction set has at most {MAX_SET_SIZE} elements")
    moves: list[int] = []
    where = f" in game id {text!r}"
    for part in parts:
        value = parse_decimal(part, what="set element", where=where, limit=MAX_ELEMENT, error=InvalidGameId)
        if value < 1:
            raise InvalidGameId(f"set element {part!r} is not a positive integer{where}")
        moves.append(value)
    distinct = set(moves)
    if len(distinct) > MAX_SET_SIZE:
        raise InvalidGameId(
            f"game id {text!r}: the set has {len(distinct)} elements, more than the limit of {MAX_SET_SIZE}"
        )
    return SubtractionGame(distinct, misere=bool(sep))
