"""Checks a plugin's rules for consistency, before nimbase solves them: call `check_rules(rules)` from
the plugin's own tests.

It walks the positions reachable from the initial one (at most `limit`) and checks that each one's code
round-trips through its text, is legal, has moves to legal positions only, that a finished position has
a value of the right kind, that tiers only go the declared way (and to tiers `tier_moves_to` names),
that the canonical form is idempotent and keeps the tier, that score games' moves alone score or keep
the turn, that a grid game's positions are written as its grid (`Rules.grid`), and that the numba kernels
(where given) agree with the methods. The first failure raises
`RulesError` naming the position.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from nimbase_rules import LOSS, NOT_OVER, TIE, WIN, Rules, RulesError

__all__ = ["check_rules"]


def _name(rules: Rules, code: int) -> str:
    try:
        return f"{rules.format(code)!r} (code {code})"
    except Exception:
        return f"code {code}"


def check_rules(rules: Rules, limit: int = 100_000) -> int:
    """Checks the rules on up to `limit` positions reachable from the initial one; returns how many."""
    start = rules.initial()
    seen = {start}
    todo = deque([start])
    kernels = rules.kernels()
    to = np.empty(rules.max_moves, np.int64)
    info = np.empty(rules.max_moves, np.int64)
    tiers = rules.tiers()
    grid = rules.grid()
    while todo and len(seen) <= limit:
        code = todo.popleft()
        where = _name(rules, code)
        if not 0 <= code < rules.size or not rules.legal(code):
            raise RulesError(f"{rules.game_id}: position {where} is reached but not legal")
        text = rules.format(code)
        if rules.parse(text) != code:
            raise RulesError(
                f"{rules.game_id}: position {where} does not round-trip: {text!r} parses to "
                f"code {rules.parse(text)}"
            )
        if grid is not None and grid.cells(text) is None:
            raise RulesError(
                f"{rules.game_id}: position {where} is not written as its grid of {grid.rows} rows of "
                f"{grid.cols} cells joined by '/'"
            )
        canonical = rules.canonical(code)
        if rules.canonical(canonical) != canonical or rules.tier(canonical) != rules.tier(code):
            raise RulesError(
                f"{rules.game_id}: the canonical form of {where} is not canonical or changes tier"
            )
        tier = rules.tier(code)
        if tier not in tiers:
            raise RulesError(f"{rules.game_id}: position {where} has tier {tier}, not among tiers()")
        moves = rules.moves(code)
        if len(moves) > rules.max_moves:
            raise RulesError(f"{rules.game_id}: position {where} has {len(moves)} moves, over max_moves")
        if not moves:
            value = rules.end(code)
            if not rules.score_game and value not in (WIN, LOSS, TIE):
                raise RulesError(f"{rules.game_id}: finished position {where} has value {value}")
        allowed = set(rules.tier_moves_to(tier)) | {tier}
        for move in moves:
            child = move.to
            if not rules.score_game and (move.gain or move.again):
                raise RulesError(f"{rules.game_id}: move {move.text!r} of {where} scores in a win/loss game")
            if not 0 <= child < rules.size or not rules.legal(child):
                raise RulesError(
                    f"{rules.game_id}: move {move.text!r} of {where} leads to an illegal code {child}"
                )
            t = rules.tier(child)
            if rules.tier_order and (t - tier) * rules.tier_order < 0:
                raise RulesError(
                    f"{rules.game_id}: move {move.text!r} of {where} goes from tier {tier} to {t}, against "
                    "the tier order"
                )
            if (rules.tier_order == 0 and t != tier) or t not in allowed:
                raise RulesError(
                    f"{rules.game_id}: move {move.text!r} of {where} leads to tier {t}, not one of "
                    f"{sorted(allowed)}"
                )
            if child not in seen:
                seen.add(child)
                todo.append(child)
        if kernels is not None:
            if not kernels.legal(code) or kernels.tier(code) != tier or kernels.canonical(code) != canonical:
                raise RulesError(f"{rules.game_id}: the numba kernels and the methods differ at {where}")
            k = kernels.moves(code, to, info)
            if sorted(int(c) for c in to[:k]) != sorted(m.to for m in moves):
                raise RulesError(f"{rules.game_id}: the numba moves and the methods' differ at {where}")
            ended = kernels.end(code)
            if (not moves and ended != rules.end(code)) or (moves and k == 0 and ended == NOT_OVER):
                raise RulesError(f"{rules.game_id}: the numba end and the method's differ at {where}")
    return len(seen)
