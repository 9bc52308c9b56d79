"""Tame games: those whose misère sums play exactly as misère Nim with each heap replaced by the nim-heap
of its normal-play Grundy value (Winning Ways, chapter 13; their quotient is then a part of misère Nim's).

The check is exact over the quotient: every product reachable from the heaps' (element, nim-heap) pairs
must agree on the outcome (Bouton's misère rule: P iff the nim-sum is 0 with some heap of 2 or more, or 1
with none). A tame game's heaps then have the genus of their nim-heaps, in Winning Ways' notation
g^(gamma0 gamma1 ...) with the final period of two written once: *0 is 0^120, *1 is 1^031, *n (n >= 2)
is n^(n, n xor 2).
"""

from __future__ import annotations

from collections import deque

from kinds.heaps.base import HeapGame
from kinds.heaps.misere.monoid import Quotient


def normal_values(game: HeapGame, stop: int) -> list[int]:
    """Normal-play Grundy values of heaps 0..stop-1, by the mex of every option (a plain reference)."""
    g: list[int] = []
    for n in range(stop):
        seen = set()
        for option in game.heap_options(n):
            value = 0
            for h in option:
                value ^= g[h]
            seen.add(value)
        v = 0
        while v in seen:
            v += 1
        g.append(v)
    return g


def _misere_nim_p(nim_sum: int, big: bool) -> bool:
    return nim_sum == 0 if big else nim_sum == 1


def tame_genus(q: Quotient, game: HeapGame) -> list[str] | None:
    """The genus of each heap 0..bound when the game is tame on them, else None."""
    g = normal_values(game, q.bound + 1)
    pairs = {(int(q.phi[n]), g[n]) for n in range(1, q.bound + 1)}
    seen = {(0, 0, False)}
    queue = deque(seen)
    while queue:
        z, s, big = queue.popleft()
        if bool(q.p[z]) != _misere_nim_p(s, big):
            return None
        for x, v in pairs:
            state = (int(q.table[z, x]), s ^ v, big or v >= 2)
            if state not in seen:
                seen.add(state)
                queue.append(state)
    return [genus_of(v) for v in g]


def genus_of(v: int) -> str:
    """The genus of the nim-heap *v in Winning Ways' notation."""
    if v == 0:
        return "0^120"
    if v == 1:
        return "1^031"
    return f"{v}^{v}{v ^ 2}" if v < 10 else f"{v}^({v},{v ^ 2})"
