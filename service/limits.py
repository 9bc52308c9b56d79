"""Bounds on what one request may cost: `Limits` is declared in `nimbase.settings`, with every other
setting (NIMBASE_LIMITS_<FIELD> overrides each bound); this module keeps the service's import path."""

from __future__ import annotations

from nimbase.settings import DEFAULT_LIMITS, Limits

__all__ = ["DEFAULT_LIMITS", "Limits"]
