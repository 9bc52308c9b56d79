"""Why a sequence's values cannot be had now, told so the client knows what to do: the automatic job
queued to store them (named in the refusal), the damaged chunk's repair, the unreachable database, or a
deadline of its own too short for what live computation answers.

A request refused for values a worker can store queues that job here, once, with what it wanted
(`Wanted`); a request stopped only by its own short deadline queues nothing, being told to ask again
with more time.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from engine.errors import DeadlineExceeded, LimitExceeded, NimbaseError, NotApplicable
from engine.kind import SequenceSource
from service.errors import Unavailable
from service.jobs import QueuedWork, Wanted
from service.limits import Limits
from service.sequences.live import LiveSequences
from service.sequences.names import item, name
from service.sequences.stored import StoredSequences

log = logging.getLogger(__name__)

#: A request whose deadline gave it less than this share of NIMBASE_LIMITS_REQUEST_SECONDS had a short one
#: of its own: refused for time, it is told to ask again with more, and no job is queued for it.
SHORT_DEADLINE_SHARE = 0.9


class Refusals:
    """The refusals of the sequence tables, queueing the automatic jobs they name."""

    def __init__(
        self,
        stored: StoredSequences,
        live: LiveSequences,
        limits: Limits,
        *,
        queue_work: Callable[[str, str, Wanted], QueuedWork | None] | None = None,
        queue_solve: Callable[[str, str], QueuedWork | None] | None = None,
    ) -> None:
        #: Called when values cannot be had now, with what the request wanted: queues the job that will
        #: store them, where one can (None: no queue).
        self.queue_work = queue_work
        #: Called when an object stored whole (a solved graph, an endgame table) is needed and not stored:
        #: queues the job that will store it (None: no queue).
        self.queue_solve = queue_solve
        self._stored = stored
        self._live = live
        self._limits = limits

    def unsolved(
        self, game_id: str, family: str, message: str, *, precondition: bool = False
    ) -> NimbaseError:
        """`message` as the refusal of an answer that needs (game_id, family) stored whole, naming the job
        queued (or open) to store it (`Tables.refusal`); UNAVAILABLE when only the unreachable database
        could tell."""
        if self._stored.database_down():
            return Unavailable(f"{message}; the stored tables cannot be read: the database is unreachable")
        work = self.queue_solve(game_id, family) if self.queue_solve is not None else None
        if work is None:
            return NotApplicable(message) if precondition else LimitExceeded(message)
        return work.error(message, precondition=precondition)

    def want_solved(self, game_id: str, family: str) -> None:
        """Queue (or find) the job storing (game_id, family) whole, as a refusal would, without refusing:
        nothing where the service queues no jobs, the database is down, or the job is refused."""
        if self.queue_solve is None or self._stored.database_down():
            return
        self._stored.may_block()
        try:
            self.queue_solve(game_id, family)
        except NimbaseError as error:  # a refused job, or the database gone meanwhile
            log.info("the job storing %s (%s) was not queued: %s", game_id, family, error)

    def beyond(
        self,
        source: SequenceSource,
        n: int,
        cause: Exception | None = None,
        budget: float | None = None,
        waited: float = 0.0,
    ) -> Exception:
        """Why heap n cannot be answered now, with the work queued for it (where the service has a queue
        and a job could answer it). `budget` is the seconds the request had when it began to reach n,
        `waited` those it had waited before for a live process (service.isolation)."""
        # Not from memory: the header kept may be older than the table (a job stores chunks meanwhile, or
        # the first one), and a refusal may queue work.
        self._stored.may_block()
        damage = self._stored.damage_at(source.game_id, n, source.family)
        if damage is not None:  # n is stored, in a chunk being repaired: no extension job would help
            return damage.error()
        if isinstance(cause, DeadlineExceeded):
            short = self._short_deadline(source, n, cause, budget, waited)
            if short is not None:
                return short
        what = item(source)
        if self._stored.database_down():
            return Unavailable(
                f"{what} {n} of {name(source)} needs the stored table and the database is unreachable"
            )
        upto = max(self._live.limit(source), self._stored.size(source.game_id, source.family))
        why = (f"{cause}; " if isinstance(cause, DeadlineExceeded) else "") + (
            f"{what} {n} of {name(source)} is beyond what can be answered now: no certified period is known"
        )
        message = (
            f"{why}, the table and live computation reach {what}s below {upto} (largest answerable {what}: "
            f"{upto - 1})"
        )
        kernel = source.kernel()
        wanted = Wanted(n, what, kernel is not None and kernel.certifies)
        work = self.queue_work(source.game_id, source.family, wanted) if self.queue_work is not None else None
        if work is None:
            return LimitExceeded(message)
        return work.error(message)

    def _short_deadline(
        self, source: SequenceSource, n: int, cause: DeadlineExceeded, budget: float | None, waited: float
    ) -> DeadlineExceeded | None:
        """The refusal of a request stopped by a deadline shorter than the full one before live work the
        full limits allow (n below the live limit, and what is predicted of its cost within
        NIMBASE_LIMITS_REQUEST_SECONDS): live computation answers it with time, so no job is queued (one
        client's `x-deadline-ms: 1` queued a worker job of 2^24 values); None otherwise. Whether the
        deadline was the client's own short one, or its full one shortened by a wait for a busy live
        process, the refusal says: only the first is asked to send a longer deadline."""
        full = self._limits.request_seconds
        if budget is None or budget >= SHORT_DEADLINE_SHARE * full or n >= self._live.limit(source):
            return None
        cost = self._live.seconds(source, n + 1)
        if cost is not None and cost > full:
            return None
        about = "" if cost is None else f", about {cost:.2g} s from what is computed"
        within = (
            f"{cause}; {item(source)} {n} of {name(source)} is within what live computation answers within "
            f"the full deadline of {full:g} s (NIMBASE_LIMITS_REQUEST_SECONDS){about}"
        )
        if budget + waited >= SHORT_DEADLINE_SHARE * full:  # the live process says how long it waited
            return DeadlineExceeded(f"{within}: ask again; no job is queued for it")
        return DeadlineExceeded(f"{within}: ask again with a longer deadline; no job is queued for it")
