"""Which of the best moves a BestMove answer puts first: the ranking's first (`choose=best`, the
default), or one drawn uniformly from the moves marked best (`choose=random`).

A bot playing many games from one position should not play the same game every time, and a bot whose
games are to be replayed needs the same draws again: `seed` makes the draw reproducible. The draw depends
on the seed, the game and the position, so one seed kept for a whole game still varies from move to
move, and the same seed at the same position always gives the same move. Without a seed each answer is
a fresh draw, which no cache may keep (`Choice.fresh`).
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass

from engine.errors import InvalidArgument
from engine.positions import MAX_HEAP, quote_int, quote_token
from engine.values import BestMoveResult

#: What `choose` may be.
CHOICES = ("best", "random")


@dataclass(frozen=True, slots=True)
class Choice:
    """How the first move is chosen: drawn (`random`) or not, with its seed where one is given."""

    random: bool = False
    seed: int | None = None

    @property
    def fresh(self) -> bool:
        """Whether each answer draws anew (random without a seed): such answers must not be cached."""
        return self.random and self.seed is None

    def ranked(self, limit: int | None) -> int | None:
        """How many moves to rank for a request asking for `limit`: a draw is among every best move, not
        only among those the limit keeps, so drawing ranks them all (as a request without a limit does)."""
        return None if self.random else limit

    def apply(self, result: BestMoveResult, limit: int | None = None) -> BestMoveResult:
        """`result` (its best moves marked, ranked for `ranked(limit)`) with a best move drawn first, when
        drawing, then cut to `limit`; else as it is."""
        moves = result.moves
        if not self.random or not moves:
            return result
        best = [i for i, move in enumerate(moves) if move.best]
        if len(best) < 2:
            return result if limit is None else BestMoveResult(result.value, moves[:limit])
        if self.seed is None:
            index = best[secrets.randbelow(len(best))]
        else:
            value = result.value
            # A string seed is hashed (SHA-512) the same way on every platform and Python version.
            index = best[random.Random(f"{self.seed}\n{value.game}\n{value.position}").randrange(len(best))]
        drawn = [moves[index], *moves[:index], *moves[index + 1 :]]
        return BestMoveResult(result.value, drawn if limit is None else drawn[:limit])


BEST = Choice()


def draws_anew(choose: str | None, seed: int | None) -> bool:
    """Whether a request with this `choose` and `seed` draws anew each time (its answer is not to be
    cached), before they are checked: a transport decides its caching with it."""
    return choose == "random" and seed is None


def parse_choice(choose: str | None, seed: int | None) -> Choice:
    """The `choose` and `seed` of a request (None or "" for `choose`: not given); INVALID_ARGUMENT quoting
    a `choose` other than best or random, or a seed beyond a signed 64-bit integer (the transports refuse
    one that is not an integer at all). A seed without `choose=random` draws nothing and is ignored."""
    if choose not in (None, "", *CHOICES):
        raise InvalidArgument(f"choose {quote_token(str(choose))} is not one of: {', '.join(CHOICES)}")
    if seed is not None and not -MAX_HEAP - 1 <= seed <= MAX_HEAP:
        raise InvalidArgument(f"seed {quote_int(seed)} is outside a signed 64-bit integer (-2^63 to 2^63-1)")
    return Choice(True, seed) if choose == "random" else BEST
