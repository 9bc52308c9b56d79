"""Bicolor Nim (seed 001) by brute force, straight from the rules and shared by the bicolor tests.

The rules, as tests/data/bicolor_nim.json states them: heaps hold white and black stones; a move takes
any non-empty set of stones from one heap; the player whose move empties the board wins if that move
took at least one white stone, and loses otherwise.

Nothing here comes from the engine: `wins` searches every line of play, `G` and `G_minus` are the
definitions (the least n for which the position plus a heap of n white, resp. black, stones is lost by
the player to move), and `remoteness` is the usual rule. It is meant to be obviously right, not fast.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache

#: A heap as (white stones, black stones).
Heap = tuple[int, int]
#: A canonical position: its heaps sorted, empty heaps dropped.
Position = tuple[Heap, ...]


def canon(heaps: Iterable[Heap]) -> Position:
    """The canonical form of a position: sorted heaps, empty ones dropped."""
    return tuple(sorted((w, b) for w, b in heaps if (w, b) != (0, 0)))


def moves(position: Position) -> Iterator[tuple[Position, bool]]:
    """Every move as (the position reached, whether the move took at least one white stone)."""
    for i, (white, black) in enumerate(position):
        rest = position[:i] + position[i + 1 :]
        for keep_white in range(white + 1):
            for keep_black in range(black + 1):
                if (keep_white, keep_black) == (white, black):
                    continue  # a move takes at least one stone
                yield canon([*rest, (keep_white, keep_black)]), keep_white < white


@cache
def wins(position: Position) -> bool:
    """Whether the player to move wins `position` (not empty: the game is over at the empty board)."""
    if not position:
        raise ValueError("the empty board has no player to move: the last move decided the game")
    for child, took_white in moves(position):
        if not child:
            if took_white:  # emptying the board with a white stone wins
                return True
        elif not wins(child):
            return True
    return False


def _least_making_p(position: Position, stone: Heap) -> int:
    """The least n >= 1 with `position` plus n stones of `stone`'s colour in one heap lost by the player
    to move (n = 0 is the position itself, tried first by the callers)."""
    bound = 4 * (sum(w + b for w, b in position) + 2)  # the value is far below this in every test
    for n in range(1, bound):
        if not wins(canon([*position, (stone[0] * n, stone[1] * n)])):
            return n
    raise AssertionError(f"no heap of up to {bound} stones makes {position} a P-position")


@cache
def G(position: Position) -> int:
    """The least n such that `position` plus a heap of n white stones is a P-position (G(empty) = 0)."""
    if not position:
        return 0  # convention: the empty board plus n >= 1 white stones is always won by the mover
    return 0 if not wins(position) else _least_making_p(position, (1, 0))


@cache
def G_minus(position: Position) -> int:
    """The least n such that `position` plus a heap of n black stones is a P-position (G-(empty) = 1:
    a lone black stone is lost by the player to move)."""
    if not position:
        return 1
    return 0 if not wins(position) else _least_making_p(position, (0, 1))


@cache
def remoteness(position: Position) -> int:
    """Moves to the end under best play: the winner hurries, the loser delays; a move that empties the
    board counts 1 (won by the mover if it took a white stone, else lost). The empty board: 0."""
    if not position:
        return 0
    winning: list[int] = []
    losing: list[int] = []
    for child, took_white in moves(position):
        if not child:
            (winning if took_white else losing).append(1)
        elif wins(child):
            losing.append(1 + remoteness(child))
        else:
            winning.append(1 + remoteness(child))
    return min(winning) if winning else max(losing)


def values(position: Position) -> tuple[int, int, int]:
    """(G, G-, remoteness) of a canonical position, in the engine's order."""
    return G(position), G_minus(position), remoteness(position)


def outcome(position: Position) -> str:
    """ "P" when the player to move loses, "N" when they win (the empty board: "P", G = 0)."""
    return "N" if position and wins(position) else "P"


def parse(text: str) -> Position:
    """A position written as in the API (`2w1b 3w 4b`), for the tests' own convenience (well-formed
    text only: the engine's parser is what the tests check against bad text)."""
    heaps: list[Heap] = []
    for token in text.split():
        white = black = 0
        rest = token
        if "w" in rest:
            count, rest = rest.split("w")
            white = int(count)
        if rest:
            black = int(rest.removesuffix("b"))
        heaps.append((white, black))
    return canon(heaps)


def text(position: Position) -> str:
    """A canonical position as the API writes it (`2w1b 3w 4b`; "" for the empty board)."""
    return " ".join((f"{w}w" if w else "") + (f"{b}b" if b else "") for w, b in position)
