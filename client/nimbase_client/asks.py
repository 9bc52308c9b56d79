"""Each unary call the clients make, declared once: its fields are the arguments of every client's method
of that name (gRPC and REST, blocking and asyncio), and `grpc()` and `rest()` are its two forms on the wire.

A new parameter is one field here: the request message and the route take the fields by name (None left
out), and each client's method (`method`) takes the fields' signature, defaults and documentation.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, ClassVar, Generic, TypeVar

from google.protobuf.message import Message

from nimbase_client import convert, records
from nimbase_client.calls import Call
from nimbase_client.v1 import nimbase_pb2 as pb

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Request(Generic[T]):
    """One REST route: method, path, query, JSON body, whether it needs the admin token; `T` is its
    answer."""

    method: str
    path: str
    params: dict[str, str | int] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    auth: bool = False


class Ask(Generic[T]):
    """One call with its arguments; `T` is the record it answers."""

    __slots__ = ()
    #: The RPC, its request message and what makes its reply the record.
    rpc: ClassVar[str]
    message: ClassVar[Callable[..., Message]]
    reply: ClassVar[Callable[[Any], Any]]
    #: The REST route: its method and path, where `{field}` takes that field (a whole number); the other
    #: fields go in the query, or in a POST's JSON body.
    route: ClassVar[tuple[str, str]]
    #: Whether it needs the admin token.
    auth: ClassVar[bool] = False
    #: Fields the request message names otherwise.
    renamed: ClassVar[Mapping[str, str]] = {}

    def given(self) -> dict[str, Any]:
        """The fields given (not None), in their order."""
        return {f.name: value for f in fields(self) if (value := getattr(self, f.name)) is not None}  # type: ignore[arg-type]

    def grpc(self) -> Call[T]:
        given = {self.renamed.get(name, name): value for name, value in self.given().items()}
        return Call(self.rpc, self.message(**given), type(self).reply, self.auth)

    def rest(self) -> Request[T]:
        method, path = self.route
        given = self.given()
        for name in re.findall(r"{(\w+)}", path):
            path = path.replace(f"{{{name}}}", str(int(given.pop(name))))
        if method == "POST":
            return Request(method, path, body=given or None, auth=self.auth)
        return Request(method, path, given, auth=self.auth)


def signature_of(ask: type[Ask[Any]]) -> inspect.Signature:
    """The signature of a client's method asking `ask`: `self`, then the fields."""
    fields_ = inspect.signature(ask).parameters.values()
    self_ = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    return inspect.Signature([self_, *fields_])


def method(made: Callable[..., Any], ask: type[Ask[Any]]) -> None:
    """Name, document and sign a client's method `made` for the call `ask`."""
    made.__name__ = made.__qualname__ = re.sub(r"(?<!^)(?=[A-Z])", "_", ask.__name__).lower()
    made.__doc__ = ask.__doc__
    made.__signature__ = signature_of(ask)  # type: ignore[attr-defined]


#: A job's calls: its id is the message's `id`.
JOB_ID: Mapping[str, str] = MappingProxyType({"job_id": "id"})


# -- the calls --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ListGames(Ask[records.GameList]):
    """Every game family with its grammar and examples, and every game with a stored table."""

    rpc = "ListGames"
    message = pb.ListGamesRequest
    reply = convert.game_list_dict
    route = ("GET", "/v1/games")


@dataclass(frozen=True, slots=True)
class GetValue(Ask[records.Value]):
    """The value of a position, e.g. `get_value("nim", "3 5 7")`."""

    rpc = "GetValue"
    message = pb.GetValueRequest
    reply = convert.value_dict
    route = ("GET", "/v1/value")

    game: str
    position: str


@dataclass(frozen=True, slots=True)
class BestMove(Ask[records.BestMove]):
    """The value, every move (or the first `limit`) best first, and `best_move` unless terminal.

    Every move as good as the first says `best: True`; `choose="random"` puts one of them, drawn
    uniformly, first (the same `seed` at the same position draws the same move; no seed, a fresh draw).
    """

    rpc = "BestMove"
    message = pb.BestMoveRequest
    reply = convert.best_move_dict
    route = ("GET", "/v1/best-move")

    game: str
    position: str
    limit: int | None = None
    choose: str | None = None
    seed: int | None = None


@dataclass(frozen=True, slots=True)
class Mainline(Ask[records.Mainline]):
    """Best play from the position: its value, the moves of the line (each with the value of the
    position it reaches) and why it ends (`end`), at most `max_plies` moves."""

    rpc = "Mainline"
    message = pb.MainlineRequest
    reply = convert.mainline_dict
    route = ("GET", "/v1/mainline")

    game: str
    position: str
    max_plies: int | None = None
    metric: str | None = None


@dataclass(frozen=True, slots=True)
class IsPPosition(Ask[records.PPosition]):
    """Whether the player to move loses with best play, plus the value."""

    rpc = "IsPPosition"
    message = pb.IsPPositionRequest
    reply = convert.p_position_dict
    route = ("GET", "/v1/is-p-position")

    game: str
    position: str


@dataclass(frozen=True, slots=True)
class BatchGetValues(Ask[records.Batch]):
    """Up to 10,000 positions of one game; a bad one gets `{"error": {...}}` in its slot."""

    rpc = "BatchGetValues"
    message = pb.BatchGetValuesRequest
    reply = convert.batch_dict
    route = ("POST", "/v1/values:batch")

    game: str
    positions: Iterable[str]

    def given(self) -> dict[str, Any]:
        return {"game": self.game, "positions": list(self.positions)}


@dataclass(frozen=True, slots=True)
class GetSequence(Ask[records.Sequence]):
    """The values of a one-parameter family (default: single heaps) for start <= n < stop."""

    rpc = "GetSequence"
    message = pb.GetSequenceRequest
    reply = convert.sequence_dict
    route = ("GET", "/v1/sequence")

    game: str
    start: int
    stop: int
    family: str | None = None


@dataclass(frozen=True, slots=True)
class GetStats(Ask[records.Stats]):
    """What is known of the game as a whole."""

    rpc = "GetStats"
    message = pb.GetStatsRequest
    reply = convert.stats_dict
    route = ("GET", "/v1/stats")

    game: str


@dataclass(frozen=True, slots=True)
class SubmitJob(Ask[records.Job]):
    """Queues a precompute job of values 0..upto-1 (needs the admin token; `upto` may be left out
    where the job makes its object whole), or with `men` a family's whole set; `family` names one of
    the game's stored families where it has several (ListGames and GetStats name them). The answer's
    `queued` lists the jobs queued; `stored` says what was stored already."""

    rpc = "SubmitJob"
    message = pb.SubmitJobRequest
    reply = convert.submission_dict
    route = ("POST", "/v1/jobs")
    auth = True

    game: str
    upto: int | None = None
    fill: bool = False
    family: str | None = None
    men: int | None = None


@dataclass(frozen=True, slots=True)
class RetryJob(Ask[records.Job]):
    """Queues a failed job again, with the jobs that failed waiting for it (needs the admin token)."""

    rpc = "RetryJob"
    message = pb.RetryJobRequest
    reply = convert.submission_dict
    route = ("POST", "/v1/jobs/{job_id}:retry")
    auth = True
    renamed = JOB_ID

    job_id: int


@dataclass(frozen=True, slots=True)
class GetJob(Ask[records.Job]):
    """A job by its id."""

    rpc = "GetJob"
    message = pb.GetJobRequest
    reply = convert.job_dict
    route = ("GET", "/v1/jobs/{job_id}")
    renamed = JOB_ID

    job_id: int


@dataclass(frozen=True, slots=True)
class ListJobs(Ask[records.JobList]):
    """The jobs, newest first, a page at a time (`cursor`: the last page's `next_cursor`)."""

    rpc = "ListJobs"
    message = pb.ListJobsRequest
    reply = convert.job_list_dict
    route = ("GET", "/v1/jobs")

    limit: int | None = None
    cursor: str | None = None


@dataclass(frozen=True, slots=True)
class CancelJob(Ask[records.Job]):
    """Cancels a job (needs the admin token)."""

    rpc = "CancelJob"
    message = pb.CancelJobRequest
    reply = convert.job_dict
    route = ("DELETE", "/v1/jobs/{job_id}")
    auth = True
    renamed = JOB_ID

    job_id: int
