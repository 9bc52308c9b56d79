"""A position's moves out of the tier, counted: the one loop every win/loss tier's expansion shares (the
plain kernels of kinds.rules.solve and the generated ones of kinds.rules.fused), so that a tier is
valued the same whichever path expanded it.

A position's counts are kept in locals while its moves are counted (`no_exits`, then `count_exit` a move,
then `store_exits`), and counted without branches: the results of consecutive moves follow no pattern a
processor predicts.
"""

from __future__ import annotations

import numba

from kinds.rules.tables import I32

#: The least remoteness of no move (any remoteness is below it).
NONE = (1 << 31) - 1

Exits = tuple[int, int, int, int, int]


@numba.njit(cache=True, nogil=True, inline="always")
def no_exits() -> Exits:
    """The counts of a position before its first move: (moves, least remoteness of the losses reached,
    wins reached, greatest remoteness of the wins, least remoteness of the ties)."""
    return 0, NONE, 0, -1, NONE


@numba.njit(cache=True, nogil=True, inline="always")
def count_exit(exits: Exits, res: int, r: int) -> Exits:
    """`exits` with a move to a solved position of result `res` (-1 loss, 1 win, 0 tie, 2 endless draw)
    in `r` moves."""
    count, lost_min, won_count, won_max, tie_min = exits
    won = res == 1
    lost_min = min(lost_min, r if res == -1 else NONE)
    won_max = max(won_max, r if won else -1)
    tie_min = min(tie_min, r if res == 0 else NONE)
    return count + 1, lost_min, won_count + won, won_max, tie_min


@numba.njit(cache=True, nogil=True, inline="always")
def store_exits(
    v: int, exits: Exits, count: I32, lost_min: I32, won_count: I32, won_max: I32, tie_min: I32
) -> None:
    """Position `v`'s counts written where `kinds.rules.fused.direct` and the retrograde passes read
    them (-1 for no loss, no tie reached)."""
    n, lost, won, won_top, tie = exits
    count[v] = n
    lost_min[v] = -1 if lost == NONE else lost
    won_count[v] = won
    won_max[v] = won_top
    tie_min[v] = -1 if tie == NONE else tie
