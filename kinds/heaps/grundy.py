"""Grundy's game (seed 003): a move splits one heap into two unequal non-empty heaps.

It is the split-only octal game 4.0 restricted to unequal parts; the restriction breaks the
Guy-Smith argument, and no period is known, so its kernel certifies nothing and only observes.
Its values are very sparse under the right mask, which is what the rare/common kernel exploits.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.errors import InvalidGameId
from kinds.heaps.base import GameInfo, HeapGame, Heaps
from kinds.heaps.kernels.octal import SplitRules
from kinds.heaps.octal import SplitKernel

#: Splits without removing a token, into unequal parts.
GRUNDY_RULES = SplitRules(whole=(), one=(), two=(0,), unequal=True)
#: The kernel (it holds only the rules, so one serves every caller).
_KERNEL = SplitKernel(GRUNDY_RULES)


class GrundyGame(HeapGame):
    """Grundy's game, normal play."""

    game_id = "grundy"
    misere = False
    splits = True
    rules = GRUNDY_RULES

    def info(self) -> GameInfo:
        return GameInfo(
            id=self.game_id,
            name="Grundy's game",
            description="Split one heap into two unequal non-empty heaps; the last player to move wins.",
            position_syntax="heap sizes separated by spaces, e.g. '7 4'",
            examples=("7", "7 4", "3 5 13"),
        )

    def heap_options(self, n: int) -> Iterator[Heaps]:
        """(a, n - a) for 1 <= a < n - a."""
        for a in range(1, (n - 1) // 2 + 1):
            yield (a, n - a)

    def option_count(self, n: int) -> int:
        return max(0, (n - 1) // 2)

    def kernel(self) -> SplitKernel:
        return _KERNEL


def parse_grundy_id(params: str | None, text: str) -> GrundyGame:
    """Grundy's game (`grundy` takes no parameters), InvalidGameId quoting `text` otherwise."""
    if params is not None:
        raise InvalidGameId(f"game id {text!r}: Grundy's game takes no parameters, use 'grundy'")
    return GrundyGame()
