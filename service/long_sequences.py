"""A long sequence answered a piece at a time, so an answer of a million values never sits whole in memory.

A transport that writes a long GetSequence answer as its client reads asks `long_sequence` first: it asks
the service for the range's first and last pieces under the request's deadline, as downloads do
(`Nimbase.sequence_blocks`: a stored table, a certified period and a table grown live each hold every
value below one they hold, so a range whose both ends answer is not cut short in the middle). A range
that cannot be answered is refused with its error before anything is sent, and the answer's `source`
(the costlier of its ends') and `period` are known for its headers. `pieces` then asks for each piece as
the transport is ready to send it (values are facts: asked again, a piece is the same). At any time one
piece is held, not the answer: 100 clients reading slowly each cost a piece, not the 36 MB a million
Python ints take.

Pieces are made by at most `PRODUCERS` threads at a time (`one_at_a_time`): a hundred long answers being
written at once would otherwise keep dozens of threads asking for the GIL, and the event loop, which
answers every cheap lookup, would wait behind all of them for its turn.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeVar, cast

from engine.deadline import Deadline
from engine.periods import Period
from engine.values import SequenceResult, Source, costliest
from service.calls import GetSequence
from service.core import NimbaseService, check_range
from service.limits import Limits

T = TypeVar("T")

#: Values asked of the service at a time (JSON of about 100 kB; its encoding holds the GIL a millisecond).
PIECE_VALUES = 16384
#: Threads making pieces of long answers at the same time, in a server process.
PRODUCERS = 2
_producing = threading.BoundedSemaphore(PRODUCERS)


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
            yield self.service.get_sequence(
                GetSequence(self.game, self.family, low, high, deadline=deadline)
            ).values


def long_sequence(
    service: NimbaseService,
    limits: Limits,
    game: str,
    family: str | None,
    start: int,
    stop: int,
    deadline: float | Deadline | None = None,
) -> LongSequence:
    """The answer for start <= n < stop, its range checked whole as GetSequence checks it and its first
    and last pieces asked: its errors are raised here, before the caller sends anything."""
    check_range(start, stop, limits.sequence_values)

    def piece(game: str, family: str | None, low: int) -> SequenceResult:
        with _producing:
            return service.get_sequence(
                GetSequence(game, family, low, min(stop, low + PIECE_VALUES), deadline=deadline)
            )

    first = piece(game, family, start)
    last_start = start + max(0, stop - start - 1) // PIECE_VALUES * PIECE_VALUES
    last = piece(first.game, first.family, last_start) if last_start > start else first
    source = costliest([cast(Source, first.source), cast(Source, last.source)])
    return LongSequence(
        service, first.game, first.family, start, stop, last.period, source, limits.request_seconds
    )


_END = object()


def one_at_a_time(items: Iterator[T]) -> Iterator[T]:
    """`items`, each made while holding one of the `PRODUCERS` places (never while the caller holds the
    item: a reader that stops reading holds no place)."""
    while True:
        with _producing:
            item = next(items, _END)
        if item is _END:
            return
        yield cast(T, item)
