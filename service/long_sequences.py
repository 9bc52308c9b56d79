"""A long sequence answered a piece at a time, so an answer of a million values never sits whole in memory.

A transport that writes a long GetSequence answer as its client reads asks `long_sequence` first: it asks
the service for every piece of the range once, under the request's deadline, so a range that cannot be
answered is refused with its error before anything is sent, and the answer's `source` (the costliest of
its pieces) and `period` are known for its headers. The values themselves are dropped; `pieces` asks for
each again as the transport is ready to send it (values are facts: asked again, a piece is the same, and
what the first pass read or computed is in memory by then). At any time one piece is held, not the
answer: 100 clients reading slowly each cost a piece, not the 36 MB a million Python ints take.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

from engine.deadline import Deadline
from engine.periods import Period
from engine.values import Source, costliest
from service.core import NimbaseService, check_range
from service.limits import Limits

#: Values asked of the service at a time (JSON of about 100 kB; its encoding holds the GIL a millisecond).
PIECE_VALUES = 16384


@dataclass(frozen=True, slots=True)
class LongSequence:
    """A GetSequence answer but its values: the game and family as the service names them, the range, the
    period and the costliest source of its values."""

    service: NimbaseService
    game: str
    family: str
    start: int
    stop: int
    period: Period | None
    source: Source
    #: Seconds each piece may take when asked again (a request's most).
    piece_seconds: float

    def pieces(self) -> Iterator[list[int]]:
        """The values, `PIECE_VALUES` at a time, each asked of the service when the caller wants it."""
        for low in range(self.start, self.stop, PIECE_VALUES):
            high = min(self.stop, low + PIECE_VALUES)
            deadline = time.monotonic() + self.piece_seconds
            yield self.service.get_sequence(self.game, self.family, low, high, deadline).values


def long_sequence(
    service: NimbaseService,
    limits: Limits,
    game: str,
    family: str | None,
    start: int,
    stop: int,
    deadline: float | Deadline | None = None,
) -> LongSequence:
    """The answer for start <= n < stop, every piece asked once (the whole range checked first, as
    GetSequence checks it): its errors are raised here, before the caller sends anything."""
    check_range(start, stop, limits.sequence_values)
    first = service.get_sequence(game, family, start, min(stop, start + PIECE_VALUES), deadline)
    sources: list[Source] = [cast(Source, first.source)]
    period = first.period
    for low in range(start + PIECE_VALUES, stop, PIECE_VALUES):
        piece = service.get_sequence(first.game, first.family, low, min(stop, low + PIECE_VALUES), deadline)
        sources.append(cast(Source, piece.source))
        period = piece.period  # the latest: a period certified meanwhile is the answer's
    return LongSequence(
        service, first.game, first.family, start, stop, period, costliest(sources), limits.request_seconds
    )
