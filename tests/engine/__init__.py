"""Engine tests: the kinds and kernels called directly, with no service around them."""

from __future__ import annotations

import time
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from engine.deadline import Deadline
from engine.keep import Keepers
from engine.kind import Allowance, Context
from engine.stored_bytes import StoredBytes
from nimbase.settings import DEFAULT_CACHE, Limits

#: Bounds roomy enough that a test's searches and move lists are never cut short.
ROOMY = Limits(search_states=10**6, remoteness_states=10**6, ranked_moves=1000, answer_chars=10**7)


def fresh_keepers() -> Keepers:
    """Empty keepers with the service's default budgets."""
    cache = DEFAULT_CACHE
    return Keepers.of_budgets(
        chess_table_bytes=cache.chess_table_bytes,
        graph_solution_bytes=cache.graph_solution_bytes,
        elimination_bytes=cache.lights_out_elimination_bytes,
        statistics_bytes=cache.lights_out_stats_bytes,
    )


def engine_context(tables: object = None, limits: Limits = ROOMY, kept: Keepers | None = None) -> Context:
    """What a request lends a kind, without a service: `tables` (None where the kind reads none, or a
    fake), the real `Limits` (every field a kind may read), a minute's deadline, no memo, and `kept`
    (fresh keepers unless given: nothing kept from another test)."""
    return Context(
        tables=cast(Any, tables),
        limits=limits,
        deadline=Deadline(time.monotonic() + 60),
        memo=cast(Any, None),
        allowance=Allowance(10**6),
        kept=fresh_keepers() if kept is None else kept,
    )


class StoredWords:
    """The tables' side of `engine.stored_bytes.read_stored`: words stored per (game, family), nothing
    else (what a worker's job would have stored)."""

    def __init__(self) -> None:
        self.words: dict[tuple[str, str], NDArray[np.uint32]] = {}

    def may_block(self) -> None:
        pass

    def stored_size(self, game_id: str, family: str) -> int:
        return len(self.words.get((game_id, family), ()))

    def known_prefix(self, source: StoredBytes, deadline: float) -> tuple[NDArray[np.uint32], str]:
        return self.words[(source.game_id, source.family)], "table"

    def stored_value(self, game_id: str, family: str, index: int) -> int | None:
        words = self.words.get((game_id, family), ())
        return int(words[index]) if index < len(words) else None
