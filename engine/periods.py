"""Periods of single-heap value sequences: what was found and whether it is proved."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True, slots=True)
class Period:
    """g(n + period) = g(n) + saltus for every n >= preperiod.

    `certified` is True only when a theorem (a repeating window of the game's locality for
    subtraction games, Guy-Smith for octal games) proves the relation for all n; an observed
    regularity is reported with `certified=False` and is never used to answer a position.
    """

    preperiod: int
    period: int
    saltus: int = 0
    certified: bool = True

    @property
    def head(self) -> int:
        """How many first values (preperiod and one period) determine all the others."""
        return self.preperiod + self.period

    def reduce(self, n: int) -> int:
        """The index below `head` whose value determines g(n) (saltus aside)."""
        if n < self.head:
            return n
        return self.preperiod + (n - self.preperiod) % self.period

    def cycles(self, n: int) -> int:
        """How many whole periods lie between reduce(n) and n (multiplies the saltus)."""
        if n < self.head:
            return 0
        return (n - self.preperiod) // self.period

    def reduce_many(self, ns: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """`reduce` and `cycles` of many heaps at once."""
        beyond = ns >= self.head
        offset = ns - self.preperiod
        return (
            np.where(beyond, self.preperiod + offset % self.period, ns),
            np.where(beyond, offset // self.period, 0),
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "preperiod": self.preperiod,
            "period": self.period,
            "saltus": self.saltus,
            "certified": self.certified,
        }
