"""Bounds on what one request may cost: `Limits` is declared in `nimbase.settings`, with every other
setting (NIMBASE_LIMITS_<FIELD> overrides each bound); this module keeps the service's import path and
the checks the service and both transports share."""

from __future__ import annotations

from engine.errors import InvalidArgument
from nimbase.settings import DEFAULT_LIMITS, Limits

__all__ = ["DEFAULT_LIMITS", "Limits", "check_batch_size"]


def check_batch_size(count: int, limits: Limits, *, streamed: bool = False) -> None:
    """Refuse a batch above `limits.batch_positions` positions, naming the limit (the transports call it
    before reading a message's positions, the service before answering any); `streamed`: a message of
    StreamBatches, which is told to split it rather than to use StreamBatches."""
    if count > limits.batch_positions:
        most = limits.batch_positions
        if streamed:
            raise InvalidArgument(
                f"a StreamBatches message holds at most {most} positions; got {count} "
                "(split it into several messages)"
            )
        raise InvalidArgument(
            f"a batch holds at most {most} positions; got {count} (use StreamBatches for more)"
        )
