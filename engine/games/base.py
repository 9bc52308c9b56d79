"""What every heap game offers the solvers, the worker and the service.

A heap game is a disjunctive sum of heaps; a move replaces one heap by zero, one or more heaps.
Normal-play values of sums come from single-heap Grundy values by nim-sum (Sprague-Grundy), so the
only per-family knowledge the rest of the system needs is: how a single heap moves, whether a closed
form gives its value, and which kernel computes the sequence of single-heap values.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from engine.periods import Period

Heaps = tuple[int, ...]

#: Largest heap any position may hold (fits a signed 64-bit integer everywhere).
MAX_HEAP = 2**63 - 1
#: Most heaps one position may hold.
MAX_HEAPS = 100_000


@dataclass(frozen=True, slots=True)
class GameInfo:
    """How ListGames describes a family."""

    id: str
    name: str
    description: str
    position_syntax: str
    examples: tuple[str, ...]


class SequenceKernel(ABC):
    """Computes a single-heap value sequence g(0), g(1), ... and certifies its period.

    `extend` must be incremental: given the first len(prefix) values it returns the first `stop`,
    so a stored table can be grown without recomputing it. Values are non-negative and fit uint32.
    For misère games the sequence holds misère Grundy values (0 exactly at P-positions).
    """

    #: The family name under which the sequence is stored ("heap": single heaps of size n).
    family: str = "heap"

    @abstractmethod
    def extend(self, prefix: NDArray[np.uint32], stop: int) -> NDArray[np.uint32]:
        """The first `stop` values; `prefix` holds the first len(prefix) of them, already correct."""

    @abstractmethod
    def certify(self, values: NDArray[np.uint32]) -> Period | None:
        """The certified (minimal) period of the infinite sequence, if `values` suffice to prove it."""

    @abstractmethod
    def reference(self, stop: int) -> list[int]:
        """Plain-Python reference for the first `stop` values; the tests compare `extend` with it."""


class HeapGame(ABC):
    """One rule set (parameters included) of a heap game family."""

    #: Canonical game id, e.g. "subtraction:1,3,4:misere".
    game_id: str
    misere: bool
    #: True when a move may leave two or more heaps (octal games, Grundy's game): search bounds
    #: then count partitions instead of shrinking heaps.
    splits: bool = False
    #: Largest heap worth computing live for one request, where the kernel is slower than linear
    #: (None: the service's default bound applies).
    live_limit: int | None = None

    @abstractmethod
    def info(self) -> GameInfo:
        """The ListGames entry for this game."""

    @abstractmethod
    def heap_options(self, n: int) -> Iterator[Heaps]:
        """The heaps one move can leave in place of a heap of size n (each sorted, zeros dropped).

        Every heap game has finitely many options per heap, but for Nim a heap of 2^63-1 has that
        many: callers iterate lazily and stop at their own limits.
        """

    def option_count(self, n: int) -> int:
        """How many options a heap of size n has (callers use it to bound enumeration)."""
        return sum(1 for _ in self.heap_options(n))

    def formula_value(self, n: int) -> int | None:
        """The single-heap value from a closed form, or None where there is none."""
        return None

    def formula_period(self) -> Period | None:
        """The (arithmetic) period a closed form implies, e.g. Nim's g(n+1) = g(n) + 1 from 0."""
        return None

    def kernel(self) -> SequenceKernel | None:
        """The kernel computing the single-heap sequence, or None where a formula covers all heaps."""
        return None
