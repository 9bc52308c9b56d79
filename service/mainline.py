"""Mainline's bound: how many moves one main line may hold (the line itself: engine.mainline)."""

from __future__ import annotations

from engine.errors import InvalidArgument
from engine.positions import quote_int
from service.limits import Limits


def check_plies(max_plies: int | None, limits: Limits) -> int:
    """The moves a main line may hold: `max_plies` (1 up to `Limits.mainline_plies_max`), by default
    `Limits.mainline_plies`; INVALID_ARGUMENT quoting any other."""
    if max_plies is None:
        return min(limits.mainline_plies, limits.mainline_plies_max)
    if max_plies < 1:
        raise InvalidArgument(f"max_plies {quote_int(max_plies)} is below 1")
    if max_plies > limits.mainline_plies_max:
        raise InvalidArgument(
            f"max_plies {quote_int(max_plies)} is above the maximum of {limits.mainline_plies_max} "
            "(NIMBASE_LIMITS_MAINLINE_PLIES_MAX)"
        )
    return max_plies
