"""The interface checks a tier's job makes before it solves: the encoding round-trips
(`parse(format(code)) == code`) on a sample of the tier's positions.

Checking every position in Python would cost more than solving tens of millions of them with numba
rules, so the sample is the tier's first and last positions and `SPREAD` more spread over it (one drawn
in each of `SPREAD` equal slices), the draws seeded by the tier: the same tier is checked on the same
positions on every worker and every run. The tier direction needs no sample: the solve itself refuses
a move leading anywhere but its tier or a later solved one (kinds.rules.solve).
"""

from __future__ import annotations

import numpy as np

from kinds.rules.tables import I64
from nimbase_rules import Rules, RulesError

#: Positions drawn over a tier beside its first and last.
SPREAD = 256


def sample(codes: I64, tier: int, spread: int = SPREAD) -> I64:
    """Positions of a tier (`codes`, ascending) to check: its first and last, and one drawn in each of
    `spread` equal slices of it, the draws seeded by the tier (all of them where the tier is small)."""
    n = codes.shape[0]
    if n <= spread + 2:
        return codes
    rng = np.random.default_rng(tier & 0xFFFF_FFFF_FFFF_FFFF)
    bounds = np.linspace(0, n, spread + 1).astype(np.int64)
    picks = bounds[:-1] + (rng.random(spread) * (bounds[1:] - bounds[:-1])).astype(np.int64)
    at = np.unique(np.concatenate([[0, n - 1], np.minimum(picks, n - 1)]))
    picked: I64 = codes[at]
    return picked


def check_round_trip(rules: Rules, tier: int, codes: I64, spread: int = SPREAD) -> int:
    """Checks that the sampled positions of the tier round-trip through their text; RulesError naming
    the first that does not (its code and text). Returns how many were checked."""
    checked = sample(codes, tier, spread)
    for code in checked.tolist():
        try:
            text = rules.format(code)
        except Exception as error:  # a plugin's own code: any failure is the rules' fault
            raise RulesError(
                f"{rules.game_id}: position code {code} (tier {tier}) cannot be written: {error}"
            ) from None
        try:
            back: object = rules.parse(text)
        except Exception as error:
            raise RulesError(
                f"{rules.game_id}: position {text!r} (code {code}, tier {tier}) does not round-trip: its "
                f"text does not parse ({error})"
            ) from None
        if back != code:
            raise RulesError(
                f"{rules.game_id}: position {text!r} (code {code}, tier {tier}) does not round-trip: its "
                f"text parses to code {back!r}"
            )
    return int(checked.shape[0])
