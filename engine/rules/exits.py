"""A move out of the tier, counted for its position: the one loop every win/loss tier's expansion shares
(the plain kernels of engine.rules.solve and the generated ones of engine.rules.fused), so that a tier is
valued the same whichever path expanded it."""

from __future__ import annotations

import numba

from engine.rules.tables import I32


@numba.njit(cache=True, nogil=True, inline="always")
def count_exit(
    v: int, res: int, r: int, count: I32, lost_min: I32, won_count: I32, won_max: I32, tie_min: I32
) -> None:
    """Position `v`'s move to a solved position of result `res` (-1 loss, 1 win, 0 tie, 2 endless draw)
    in `r` moves: counted, and the least remoteness of the losses, the number and greatest remoteness
    of the wins, the least of the ties reached kept (what `engine.rules.fused.direct` and the retrograde
    passes read)."""
    count[v] += 1
    if res == -1:
        if lost_min[v] < 0 or r < lost_min[v]:
            lost_min[v] = r
    elif res == 1:
        won_count[v] += 1
        if r > won_max[v]:
            won_max[v] = r
    elif res == 0 and (tie_min[v] < 0 or r < tie_min[v]):
        tie_min[v] = r
