"""Engine tests: the kinds and kernels called directly, with no service around them."""

from __future__ import annotations

import time
from typing import Any, cast

from engine.deadline import Deadline
from engine.kind import Allowance, Context
from nimbase.settings import Limits

#: Bounds roomy enough that a test's searches and move lists are never cut short.
ROOMY = Limits(search_states=10**6, remoteness_states=10**6, ranked_moves=1000, answer_chars=10**7)


def engine_context(tables: object = None, limits: Limits = ROOMY) -> Context:
    """What a request lends a kind, without a service: `tables` (None where the kind reads none, or a
    fake), the real `Limits` (every field a kind may read), a minute's deadline, no memo."""
    return Context(
        tables=cast(Any, tables),
        limits=limits,
        deadline=Deadline(time.monotonic() + 60),
        memo=cast(Any, None),
        allowance=Allowance(10**6),
    )
