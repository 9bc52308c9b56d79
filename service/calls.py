"""Each call of the service declared once: its request type and its answer type.

A request is a frozen dataclass of what the call asks, as the transports read it from the wire, with the
caller's deadline (a call that may compute) or admin token (a call that needs it) beside the fields. A
new parameter is one field here: the transports fill it and `Nimbase` reads it; nothing in between names
it. `Calls` is what the transports call, one method per request type: `Nimbase` answers each by its own
method, while `PooledService` (service.pooled) and the tests' fake derive the others, every call they do
not answer themselves handed on whole to `answer`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Generic, Self, TypeVar, cast, dataclass_transform

import numpy as np
from numpy.typing import NDArray

from engine.deadline import Deadline
from engine.errors import NimbaseError
from engine.graphs import GraphBuilder, UploadedGraph
from engine.mainline import Mainline as Line
from engine.values import BestMoveResult, GameInfo, SequenceResult, Value
from service.answers import AnswerCache
from service.graphs import GraphSummary
from service.health import Health
from service.jobs import JobView, SubmissionView

R = TypeVar("R", covariant=True)
T = TypeVar("T")

#: A page of ListJobs: the jobs, and the cursor of the next page (None after the last).
JobList = tuple[list[JobView], str | None]


class Call(Generic[R]):
    """A request whose answer is an `R`. `method` names the `Calls` method that answers it: its class
    name in snake case (GetValue: get_value)."""

    __slots__ = ()
    method: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.method = re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()


C = TypeVar("C", bound=type)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def request(cls: C) -> C:
    """A request type: a dataclass, frozen to the type checker, and slotted. Not frozen at run time, where
    each field set through object.__setattr__ would cost constructing a request (the hot path's one
    allocation) about a microsecond; nothing sets a request's fields after it is made."""
    return cast(C, dataclass(slots=True)(cls))


class Timed(Call[R]):
    """A call that may compute: until `deadline`, a time.monotonic() value or a transport's `Deadline`
    (which cancels it when the client goes away); None leaves it to the server's own limit, and it is
    given by name (each request declares the field)."""

    __slots__ = ()
    deadline: float | Deadline | None

    def until(self, deadline: float | Deadline | None) -> Self:
        """The same request with another deadline (a live process is sent it with none: a transport's
        `Deadline` stays in its own process)."""
        return replace(cast(Any, self), deadline=deadline)  # type: ignore[no-any-return]


class Admin(Call[R]):
    """A call that needs the admin token (`Nimbase.authorize`), given by name and never shown (each
    request declares the field)."""

    __slots__ = ()
    token: str | None


# -- positions ------------------------------------------------------------------------------------


@request
class GetValue(Timed[Value]):
    game: str
    position: str

    deadline: float | Deadline | None = field(default=None, kw_only=True)


@request
class IsPPosition(Timed[Value]):
    game: str
    position: str

    deadline: float | Deadline | None = field(default=None, kw_only=True)


@request
class BestMove(Timed[BestMoveResult]):
    """The moves best first (at most `limit`); `choose="random"` draws one of the best first, the same
    `seed` the same one (service.move_choice)."""

    game: str
    position: str
    limit: int | None = None
    choose: str | None = None
    seed: int | None = None

    deadline: float | Deadline | None = field(default=None, kw_only=True)


@request
class Mainline(Timed[Line]):
    game: str
    position: str
    max_plies: int | None = None
    metric: str | None = None

    deadline: float | Deadline | None = field(default=None, kw_only=True)


@request
class BatchGetValues(Timed[list[Value | NimbaseError]]):
    game: str
    positions: Sequence[str]

    deadline: float | Deadline | None = field(default=None, kw_only=True)


@request
class ColumnarValues(Timed[NDArray[np.uint32]]):
    """Single heaps, or with `offsets` the sums heaps[offsets[i]:offsets[i+1]]."""

    game: str
    heaps: NDArray[np.uint64]
    offsets: NDArray[np.uint64] | None = None

    deadline: float | Deadline | None = field(default=None, kw_only=True)


# -- sequences and stats --------------------------------------------------------------------------


@request
class GetSequence(Timed[SequenceResult]):
    game: str
    family: str | None
    start: int
    stop: int

    deadline: float | Deadline | None = field(default=None, kw_only=True)


@request
class SequenceBlocks(Call[Iterator[NDArray[np.uint32]]]):
    """A download: the values of GetSequence's range as blocks, each read with its own deadline."""

    game: str
    family: str | None
    start: int
    stop: int


@request
class GetStats(Timed[dict[str, object]]):
    game: str

    deadline: float | Deadline | None = field(default=None, kw_only=True)


@request
class ListGames(Call[list[GameInfo]]):
    pass


# -- jobs -----------------------------------------------------------------------------------------


@request
class SubmitJob(Admin[SubmissionView]):
    """`upto` may be left out where the job makes its object whole; `men` asks a family's whole set."""

    game: str
    upto: int | None = None
    fill: bool = False
    family: str | None = None
    men: int | None = None

    token: str | None = field(default=None, kw_only=True, repr=False)


@request
class RetryJob(Admin[SubmissionView]):
    job_id: int

    token: str | None = field(default=None, kw_only=True, repr=False)


@request
class CancelJob(Admin[JobView]):
    job_id: int

    token: str | None = field(default=None, kw_only=True, repr=False)


@request
class GetJob(Call[JobView]):
    job_id: int


@request
class JobPage(Call[JobList]):
    """ListJobs: at most `limit` jobs, newest first, from `cursor` (the last page's) on."""

    limit: int = 100
    cursor: str | None = None


# -- graphs ---------------------------------------------------------------------------------------


@request
class UploadGraph(Admin[GraphSummary]):
    """A graph in one piece (the REST body)."""

    name: object
    vertices: Sequence[object]
    edges: Sequence[Sequence[object]]
    terminals: Mapping[str, object] | None = None

    token: str | None = field(default=None, kw_only=True, repr=False)


@request
class BeginGraphUpload(Admin[GraphBuilder]):
    """The start of a streamed upload (gRPC), ended by FinishGraphUpload."""

    name: object

    token: str | None = field(default=None, kw_only=True, repr=False)


@request
class FinishGraphUpload(Call[GraphSummary]):
    upload: GraphBuilder


@request
class GetGraph(Call[UploadedGraph]):
    name: str


LIST_GAMES = ListGames()


class Calls:
    """What the transports call: one method per request type, each answering its request. A service
    derived from it answers the calls it has its own way for and hands every other to `answer`."""

    #: Answers the transports keep as the bytes they sent, for requests asked again.
    answers: AnswerCache

    def answer(self, asked: Call[T]) -> T:
        """The answer to any call this service has no method of its own for."""
        raise NotImplementedError(f"{type(self).__name__} does not answer {asked.method}")

    def list_games(self, asked: ListGames = LIST_GAMES) -> list[GameInfo]:
        return self.answer(asked)

    def get_value(self, asked: GetValue) -> Value:
        return self.answer(asked)

    def is_p_position(self, asked: IsPPosition) -> Value:
        return self.answer(asked)

    def best_move(self, asked: BestMove) -> BestMoveResult:
        return self.answer(asked)

    def mainline(self, asked: Mainline) -> Line:
        return self.answer(asked)

    def batch_get_values(self, asked: BatchGetValues) -> list[Value | NimbaseError]:
        return self.answer(asked)

    def columnar_values(self, asked: ColumnarValues) -> NDArray[np.uint32]:
        return self.answer(asked)

    def get_sequence(self, asked: GetSequence) -> SequenceResult:
        return self.answer(asked)

    def sequence_blocks(self, asked: SequenceBlocks) -> Iterator[NDArray[np.uint32]]:
        return self.answer(asked)

    def get_stats(self, asked: GetStats) -> dict[str, object]:
        return self.answer(asked)

    def submit_job(self, asked: SubmitJob) -> SubmissionView:
        return self.answer(asked)

    def retry_job(self, asked: RetryJob) -> SubmissionView:
        return self.answer(asked)

    def cancel_job(self, asked: CancelJob) -> JobView:
        return self.answer(asked)

    def get_job(self, asked: GetJob) -> JobView:
        return self.answer(asked)

    def job_page(self, asked: JobPage) -> JobList:
        return self.answer(asked)

    def upload_graph(self, asked: UploadGraph) -> GraphSummary:
        return self.answer(asked)

    def begin_graph_upload(self, asked: BeginGraphUpload) -> GraphBuilder:
        return self.answer(asked)

    def finish_graph_upload(self, asked: FinishGraphUpload) -> GraphSummary:
        return self.answer(asked)

    def get_graph(self, asked: GetGraph) -> UploadedGraph:
        return self.answer(asked)

    # -- not calls: what the transports ask of the service itself -------------------------------------

    def in_memory(self, call: Callable[[], T]) -> T | None:
        """`call()` if memory alone answers it (no database, no computation), else None."""
        raise NotImplementedError

    def value_in_memory(self, game: str, position: str) -> Value | None:
        """GetValue of `position` without a deadline if memory alone answers it, else None: `in_memory` of
        `get_value`, which a service may answer through fewer layers (the hot path of lookups)."""
        return self.in_memory(lambda: self.get_value(GetValue(game, position)))

    def authorize(self, token: str | None, action: str = "job submission") -> None:
        """Refuse a caller without the admin token (the transports may ask before reading a body)."""
        raise NotImplementedError

    def health(self) -> Health:
        """Answered from memory (the transports call it on their event loop)."""
        raise NotImplementedError
