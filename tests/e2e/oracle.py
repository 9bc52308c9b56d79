"""Brute-force oracles, written independently of the engine, for the end-to-end checks."""

from __future__ import annotations

from functools import cache


def mex(values: set[int]) -> int:
    m = 0
    while m in values:
        m += 1
    return m


def subtraction_grundy(moves: tuple[int, ...], n: int) -> int:
    """g(n) of one heap of a subtraction game, by the definition."""

    @cache
    def g(k: int) -> int:
        return mex({g(k - s) for s in moves if s <= k})

    for k in range(n):  # fill bottom-up so the recursion stays shallow
        g(k)
    return g(n)


def sum_outcome(moves: tuple[int, ...] | None, heaps: tuple[int, ...], misere: bool) -> str:
    """'P' or 'N' of a sum of heaps by exhaustive search (moves None means Nim)."""

    @cache
    def wins(position: tuple[int, ...]) -> bool:
        options = []
        for i, h in enumerate(position):
            takes = range(1, h + 1) if moves is None else [s for s in moves if s <= h]
            for s in takes:
                child = tuple(sorted((*position[:i], h - s, *position[i + 1 :])))
                options.append(child)
        if not options:
            return misere  # no move: the player to move loses in normal play, wins in misère
        return any(not wins(child) for child in options)

    return "N" if wins(tuple(sorted(heaps))) else "P"
