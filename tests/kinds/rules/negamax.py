"""A brute-force negamax from the rules alone (their moves and finished values), sharing no code with
the solver: the truth the solved tables are checked against (acyclic games)."""

from __future__ import annotations

import sys
from functools import cache

from nimbase_rules import LOSS, TIE, WIN, Rules


def negamax(rules: Rules) -> object:
    """A memoised function code -> (result, remoteness) for win/loss games, (margin, remoteness) for
    score games. Win/loss: a move to a lost position wins (fastest), else one to a tie ties (soonest),
    else the position is lost (slowest)."""
    sys.setrecursionlimit(10_000)

    @cache
    def value(code: int) -> tuple[int, int]:
        moves = rules.moves(code)
        if not moves:
            return rules.end(code), 0
        children = [(m, value(m.to)) for m in moves]
        if rules.score_game:
            scored = [(m.gain + (v if m.again else -v), r) for m, (v, r) in children]
            best = max(s for s, _ in scored)
            return best, 1 + min(r for s, r in scored if s == best)
        losses = [r for _, (v, r) in children if v == LOSS]
        if losses:
            return WIN, 1 + min(losses)
        ties = [r for _, (v, r) in children if v == TIE]
        if ties:
            return TIE, 1 + min(ties)
        return LOSS, 1 + max(r for _, (_, r) in children)

    return value
