"""Bounds on what one request may cost; every live computation is checked against these."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-request bounds. Past them the service answers RESOURCE_EXHAUSTED naming the bound."""

    #: Largest heap whose single-heap value may be computed live (values computed from 0 up to it).
    live_values: int = 1 << 22
    #: Distinct positions a live search of a sum (misère sums) may visit.
    search_states: int = 200_000
    #: Distinct positions a remoteness search may visit before remoteness is left out.
    remoteness_states: int = 2_000
    #: Positions in one BatchGetValues call.
    batch_positions: int = 10_000
    #: Values in one GetSequence call.
    sequence_values: int = 1_000_000
    #: Moves evaluated to rank them all; beyond it moves are listed winning first, then in order.
    ranked_moves: int = 2_000
    #: Most moves one BestMove call may list.
    listed_moves: int = 10_000
    #: Longest a request may compute, whatever deadline the client sent (seconds).
    request_seconds: float = 30.0
    #: Stats list the P-positions up to this many, else only their count.
    stats_p_positions: int = 1_000


DEFAULT_LIMITS = Limits()
