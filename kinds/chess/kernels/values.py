"""How the chess solver writes a position's value in one int16, and how a move turns values round.

A value is for the side to move: 0 a draw (or not known yet, while solving), `d` > 0 a win in d plies,
`-(d + 1)` a loss in d plies (checkmate is -1, a loss in 0). The same encoding carries both metrics:

- DTM: plies to mate (Rivier's coefficient: a mate in n moves is a win in 2n - 1 plies);
- DTZ: plies to the next zeroing move (capture or pawn move) under best play, the Syzygy way: a zeroing
  move into a position its opponent loses within the fifty-move rule counts 1, into one it loses only
  past the rule (blessed) 101; a win in d <= 100 is a win under the rule, past 100 a cursed win.
"""

from __future__ import annotations

import numba

#: No move of that kind (an exit value no position has).
NONE = -32768
#: DTZ distances past this one are wins the fifty-move rule draws (cursed) or losses it saves (blessed).
RULE = 100


@numba.njit(cache=True, nogil=True, inline="always")
def score(v: int) -> int:
    """An order on values for the side to move: better values score higher."""
    if v == NONE:
        return -1_000_000_000
    if v > 0:
        return 100_000 - v
    if v == 0:
        return 0
    return -100_000 + (-v - 1)


@numba.njit(cache=True, nogil=True, inline="always")
def better(a: int, b: int) -> int:
    return a if score(a) >= score(b) else b


@numba.njit(cache=True, nogil=True, inline="always")
def after(v: int) -> int:
    """The mover's value of a move into a position of value v (its opponent's), one ply further."""
    if v > 0:
        return -(v + 2)
    if v < 0:
        return -v
    return 0


@numba.njit(cache=True, nogil=True, inline="always")
def wdl(z: int) -> int:
    """The fifty-move rule's outcome of a DTZ value: 2 win, 1 cursed win, 0 draw, -1 blessed, -2 loss."""
    if z > 0:
        return 2 if z <= RULE else 1
    if z < 0:
        return -2 if -z - 1 <= RULE else -1
    return 0


@numba.njit(cache=True, nogil=True, inline="always")
def zeroing(z: int) -> int:
    """The mover's DTZ value of a zeroing move into a position of DTZ value z (its opponent's, the
    fifty-move counter then at 0)."""
    w = wdl(z)
    if w == -2:
        return 1
    if w == -1:
        return RULE + 1
    if w == 1:
        return -(RULE + 2)
    if w == 2:
        return -2
    return 0


def dtz_plies(z: int) -> int:
    """The signed DTZ of a value as Syzygy reports it (0 for a draw or a checkmate)."""
    return z if z > 0 else (0 if z == 0 else z + 1)


def dtm_plies(v: int) -> int:
    """The signed DTM of a value (0 for a draw or a checkmate)."""
    return dtz_plies(v)
