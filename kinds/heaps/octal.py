"""Octal games `octal:d0.d1d2...dt`, and the kernel shared with every split game.

Digit dk (k >= 1) says what removing k tokens from a heap may leave: bit 1 nothing (the heap was
exactly k), bit 2 one non-empty heap, bit 4 two non-empty heaps. d0 concerns removing no token: only
its bit 4 (split a heap into two non-empty heaps, as in `4.7`) is a move; bits 1 and 2 would be a pass
or a move from the empty heap to itself, so codes with d0 other than 0 or 4 are rejected.
Canonical codes: one digit before the point (`.77` means `0.77`), trailing zeros dropped (`0.70` is
`0.7`, `0.0` has no move), at most 32 digits after the point.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.errors import InvalidGameId
from engine.periods import Period
from kinds.heaps import stats as heap_stats
from kinds.heaps.base import GameInfo, HeapGame, Heaps, SequenceKernel
from kinds.heaps.kernels.guy_smith import certify_octal, observe_period
from kinds.heaps.kernels.octal import SplitRules, reference_values
from kinds.heaps.kernels.rare_common import load_every_width, sparse_extend
from kinds.heaps.kernels.rare_mask import choose_sparseness, last_rare_at, rare_count

#: Most digits after the point a code may have.
MAX_DIGITS = 32

#: Classic codes and their names (ListGames shows these).
CLASSICS: dict[str, str] = {
    "0.77": "Kayles",
    "0.07": "Dawson's Kayles",
    "0.137": "Dawson's chess",
    "0.6": "Octal game 0.6",
    "0.16": "Octal game 0.16",
    "0.56": "Octal game 0.56",
}

_CODE = re.compile(r"([0-7]?)\.([0-7]+)")


def parse_octal_code(text: str) -> str:
    """The canonical form of an octal code, or InvalidGameId quoting `text`."""
    match = _CODE.fullmatch(text)
    if match is None:
        raise InvalidGameId(
            f"invalid octal code {text!r}: expected digits 0-7 as d0.d1d2...dt, e.g. '0.77' or '4.7'"
        )
    first, rest = match.group(1) or "0", match.group(2)
    if len(rest) > MAX_DIGITS:
        raise InvalidGameId(f"invalid octal code {text!r}: more than {MAX_DIGITS} digits after the point")
    if first not in ("0", "4"):
        raise InvalidGameId(
            f"invalid octal code {text!r}: d0 must be 0 or 4 (removing no token can only split a heap)"
        )
    return f"{first}.{rest.rstrip('0') or '0'}"


class SplitKernel(SequenceKernel):
    """Single-heap values of a split game: rare/common where sparse, direct otherwise."""

    certifies = False
    stores_stats = True

    def __init__(self, rules: SplitRules) -> None:
        self.rules = rules

    def extend(self, prefix: NDArray[np.uint32], stop: int) -> NDArray[np.uint32]:
        return sparse_extend(prefix, stop, self.rules)

    def certify(self, values: NDArray[np.uint32]) -> Period | None:
        return None

    def observe(self, values: NDArray[np.uint32]) -> Period | None:
        """A regularity the values show, `certified=False`: for reports only, never for answers."""
        return observe_period(values)

    def rarity(self, values: NDArray[np.uint32]) -> tuple[int, int, int | None] | None:
        """Rare/common statistics of games whose moves split heaps (the published tables' figures)."""
        if not self.rules.two:
            return None
        how = choose_sparseness(values, self.rules.two)
        return how.mask, rare_count(values, how), last_rare_at(values, how)

    def reference(self, stop: int) -> list[int]:
        return reference_values(stop, self.rules)

    def stats_part(self, values: NDArray[np.uint32], start: int) -> dict[str, Any] | None:
        return heap_stats.part(values, start, self.observe(values))

    def combine_stats(self, earlier: Mapping[str, Any], later: Mapping[str, Any]) -> dict[str, Any]:
        return heap_stats.combine(earlier, later)

    def heap_stats(self, stats: Mapping[str, Any], listed: int) -> dict[str, Any] | None:
        """GetStats' figures from the stored statistics (kinds.heaps.stats), rare/common ones included
        where `rarity` gives them."""
        return heap_stats.answer(stats, self.rules.two or None, listed)


class OctalKernel(SplitKernel):
    """An octal game's kernel: periods are certified by the Guy-Smith theorem."""

    certifies = True

    def __init__(self, rules: SplitRules, t: int) -> None:
        super().__init__(rules)
        self.t = t

    def certify(self, values: NDArray[np.uint32]) -> Period | None:
        return certify_octal(values, self.t)

    def solve(self, limit: int, start: int = 256) -> tuple[NDArray[np.uint32], Period | None]:
        """Values computed from nothing, doubling until a period is certified or `limit` is reached."""
        values = np.zeros(0, dtype=np.uint32)
        stop = min(start, limit)
        while True:
            values = self.extend(values, stop)
            period = self.certify(values)
            if period is not None or stop >= limit:
                return values, period
            stop = min(2 * stop, limit)


class OctalGame(HeapGame):
    """One octal game; values by kernel and, once certified, by period."""

    misere = False

    def __init__(self, code: str) -> None:
        self.code = parse_octal_code(code)
        self.game_id = f"octal:{self.code}"
        head, tail = self.code.split(".")
        self.digits: tuple[int, ...] = (int(head), *(int(d) for d in tail))
        self.rules = SplitRules(
            whole=tuple(k for k, d in enumerate(self.digits) if k > 0 and d & 1),
            one=tuple(k for k, d in enumerate(self.digits) if k > 0 and d & 2),
            two=tuple(k for k, d in enumerate(self.digits) if d & 4),
        )
        #: The most tokens a move removes (the t of Guy-Smith).
        self.t = max((k for k, d in enumerate(self.digits) if d), default=0)
        self.splits = bool(self.rules.two)
        self._kernel = OctalKernel(self.rules, self.t)

    def info(self) -> GameInfo:
        name = CLASSICS.get(self.code, f"Octal game {self.code}")
        return GameInfo(
            id=self.game_id,
            name=name,
            description=(
                "Octal game: digit k says whether removing k tokens may leave no heap (1), one heap (2) "
                "or two non-empty heaps (4); normal play."
            ),
            position_syntax="heap sizes separated by spaces, e.g. '3 5 7'",
            examples=("7", "3 5 7", "10 20"),
        )

    def load_kernels(self) -> None:
        if self.splits:  # a game that splits heaps may go rare/common, with values past 255 far on
            load_every_width()

    def heap_options(self, n: int) -> Iterator[Heaps]:
        """Each resulting position once: the empty one, one smaller heap, or two heaps a <= b."""
        for k in range(min(n, self.t) + 1):
            yield from self._unsplit_options(n, k)
            if self.digits[k] & 4:
                m = n - k
                for a in range(1, m // 2 + 1):
                    yield (a, m - a)

    def _unsplit_options(self, n: int, k: int) -> Iterator[Heaps]:
        """The options of heap `n` removing `k` tokens that leave no heap or one."""
        d = self.digits[k]
        if d & 1 and n == k and k > 0:
            yield ()
        if d & 2 and n > k > 0:
            yield (n - k,)

    def options_to_search(self, n: int) -> Iterator[Heaps]:
        """`heap_options` of `n` (the same set) in the order `targets` tries them: the moves that leave at
        most one heap first, then the splits a + b by a, each a under every count removed
        (`heap_options` goes through each count's splits in turn).

        Past a preperiod q, with period p, moving p tokens from one part of a split to the other keeps
        both parts' values, so every value a split of a heap far beyond can have is had by one whose
        smaller part is below q + p: a winning split of a heap of 10^18 is found in a few hundred
        steps, not in the 5 * 10^17 splits of the first count."""
        for k in range(min(n, self.t) + 1):
            yield from self._unsplit_options(n, k)
        removed = [k for k in self.rules.two if k < n]
        if not removed:
            return
        for a in range(1, (n - removed[0]) // 2 + 1):
            for k in removed:
                if a > (n - k) // 2:
                    break
                yield (a, n - k - a)

    def option_count(self, n: int) -> int:
        count = 0
        for k in range(min(n, self.t) + 1):
            d = self.digits[k]
            count += int(bool(d & 1) and n == k and k > 0) + int(bool(d & 2) and n > k > 0)
            count += (n - k) // 2 if d & 4 else 0
        return count

    def kernel(self) -> OctalKernel:
        """The game's kernel, made once: every lookup asks for it."""
        return self._kernel


def parse_octal_id(params: str | None, text: str) -> OctalGame:
    """The game of `octal:CODE` (CODE being `params`), InvalidGameId quoting `text` without one."""
    if params is None:
        raise InvalidGameId(f"game id {text!r} needs an octal code, e.g. 'octal:0.77'")
    return OctalGame(params)


def family_info() -> GameInfo:
    return GameInfo(
        id="octal:0.77",
        name="Octal games",
        description=(
            "octal:CODE for any code d0.d1...dt (digits 0-7): digit k's bit 1 allows removing k tokens "
            "as a whole heap, bit 2 leaving one heap, bit 4 leaving two non-empty heaps; d0 = 4 lets a "
            "heap split without removal. Normal play; periods certified by the Guy-Smith theorem."
        ),
        position_syntax="heap sizes separated by spaces, e.g. '3 5 7'",
        examples=("7", "3 5 7", "100 1000000"),
    )


def family_classics() -> list[GameInfo]:
    return [OctalGame(code).info() for code in CLASSICS]
