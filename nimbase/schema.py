"""The wire shapes of every answer, declared once.

Each JSON answer of the REST routes (and each dict the Python client returns, which equals it) is one
`TypedDict` here. The service builds its answers as these types (mypy checks each builder against the
declaration), the REST app declares them as its response models (so `/openapi.json` documents every
field) and the client returns them. They are plain dicts at run time: nothing is validated per answer.

A field marked `NotRequired` is absent from the answer when it is not known, never null.

This module belongs to the client's package: it imports neither `engine` nor `service`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, TypeAlias

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

__all__ = [
    "Batch",
    "BestMove",
    "ErrorBody",
    "ErrorDetail",
    "GameInfo",
    "GameList",
    "Health",
    "Job",
    "JobList",
    "JobStatus",
    "Move",
    "Moves",
    "Outcome",
    "PPosition",
    "Period",
    "Progress",
    "Sequence",
    "Source",
    "Stats",
    "Value",
    "ValueOrError",
]

Outcome = Literal["P", "N", "D"]
Source = Literal["formula", "table", "period", "live"]
JobStatus = Literal["queued", "running", "done", "failed", "cancelled"]

_OUTCOME = 'With best play: "P" the player to move loses, "N" the player to move wins, "D" a draw.'
_GRUNDY = "The Sprague-Grundy value; absent where the game is not impartial under normal play."
_GRUNDY_BLACK = (
    "bicolor-nim only: G-, the size of the black heap that, added to the position, makes it a P-position "
    "(`grundy` is G, the same with a white heap)."
)
_REMOTENESS = "Moves to the end under best play (the winner hurries); absent where not known exactly."
_SOURCE = (
    'Where the answer came from, cheapest first: "formula" (a closed form), "table" (precomputed), '
    '"period" (extrapolated from a certified period) or "live" (computed for this request).'
)


# -- games -------------------------------------------------------------------------------------


class GameInfo(TypedDict):
    """One game family: its id (or id pattern), grammar, description and example positions."""

    id: Annotated[str, Field(description="The game id, e.g. `nim` or `subtraction:1,3,4`.")]
    name: Annotated[str, Field(description="Its usual name.")]
    description: Annotated[str, Field(description="The rules in one line.")]
    position_syntax: Annotated[str, Field(description="How positions of the game are written.")]
    examples: Annotated[list[str], Field(description="Example positions.")]
    period: NotRequired[
        Annotated[Period, Field(description="The certified period of a computed game's values, if known.")]
    ]


class GameList(TypedDict):
    """Answer of `GET /v1/games` (ListGames)."""

    games: list[GameInfo]


# -- values ------------------------------------------------------------------------------------


#: Real answers, shown as examples in /openapi.json.
_VALUE_EXAMPLE: dict[str, Any] = {
    "game": "nim",
    "position": "1 3 5 7",
    "outcome": "P",
    "grundy": 0,
    "remoteness": 16,
    "source": "formula",
}
_HEAP_MOVE_EXAMPLE: dict[str, Any] = {
    "move": "12 -> 8",
    "position": "8 10",
    "outcome": "P",
    "grundy": 0,
    "remoteness": 12,
    "heap": 12,
    "to": [8],
}
_PAIR_MOVE_EXAMPLE: dict[str, Any] = {
    "move": "4,6 -> 3,5",
    "position": "3,5",
    "outcome": "P",
    "grundy": 0,
    "pair": [4, 6],
    "to": [3, 5],
}
_BEST_MOVE_EXAMPLE: dict[str, Any] = {
    "game": "subtraction:1,3,4",
    "position": "10 12",
    "outcome": "N",
    "grundy": 2,
    "remoteness": 13,
    "source": "period",
    "moves": [_HEAP_MOVE_EXAMPLE],
    "best_move": _HEAP_MOVE_EXAMPLE,
}


@with_config(ConfigDict(json_schema_extra={"examples": [_VALUE_EXAMPLE]}))
class Value(TypedDict):
    """The value of one position (`GET /v1/value`, GetValue)."""

    game: Annotated[str, Field(description="The game id asked about.")]
    position: Annotated[str, Field(description="The position in canonical form.")]
    outcome: Annotated[Outcome, Field(description=_OUTCOME)]
    grundy: NotRequired[Annotated[int, Field(description=_GRUNDY)]]
    grundy_black: NotRequired[Annotated[int, Field(description=_GRUNDY_BLACK)]]
    remoteness: NotRequired[Annotated[int, Field(description=_REMOTENESS)]]
    source: Annotated[Source, Field(description=_SOURCE)]


@with_config(ConfigDict(json_schema_extra={"examples": [_HEAP_MOVE_EXAMPLE, _PAIR_MOVE_EXAMPLE]}))
class Move(TypedDict):
    """One legal move and the value of the position it leads to.

    Beside the text `move`, heap games give `heap` and `to`, Wythoff gives `pair` and `to`, bicolor-nim
    `colored_heap`, `to`, `white_taken` and `black_taken`.
    """

    move: Annotated[
        str,
        Field(
            description='The move as text: "n -> a", "n -> a+b" (a split), "n -> 0"; Wythoff "a,b -> c,d".'
        ),
    ]
    position: Annotated[str, Field(description="The position the move leads to, in canonical form.")]
    outcome: Annotated[Outcome, Field(description=f"Of the position reached. {_OUTCOME}")]
    grundy: NotRequired[Annotated[int, Field(description=f"Of the position reached. {_GRUNDY}")]]
    grundy_black: NotRequired[Annotated[int, Field(description=f"Of the position reached. {_GRUNDY_BLACK}")]]
    remoteness: NotRequired[Annotated[int, Field(description=f"Of the position reached. {_REMOTENESS}")]]
    heap: NotRequired[Annotated[int, Field(description="Heap games: the size of the heap moved in.")]]
    colored_heap: NotRequired[
        Annotated[list[int], Field(description="bicolor-nim: the heap moved in, as [white, black].")]
    ]
    white_taken: NotRequired[Annotated[int, Field(description="bicolor-nim: white stones the move takes.")]]
    black_taken: NotRequired[Annotated[int, Field(description="bicolor-nim: black stones the move takes.")]]
    pair: NotRequired[Annotated[list[int], Field(description="Wythoff: the pair moved in, as [a, b].")]]
    to: NotRequired[
        Annotated[
            list[int],
            Field(
                description="What the heap or pair becomes: heap games the heaps left ([] when the heap "
                "vanishes, two when it splits); Wythoff the pair [c, d] ([0, 0] when both piles are "
                "emptied); bicolor-nim the heap [white, black] ([0, 0] when it is taken whole)."
            ),
        ]
    ]


class Moves(TypedDict):
    """The moves part of a BestMove answer."""

    moves: Annotated[list[Move], Field(description="Every legal move (or the first `limit`), best first.")]
    best_move: NotRequired[Annotated[Move, Field(description="`moves[0]`; absent at a terminal position.")]]


@with_config(ConfigDict(json_schema_extra={"examples": [_BEST_MOVE_EXAMPLE]}))
class BestMove(Value, Moves):
    """Answer of `GET /v1/best-move` (BestMove): the value plus the moves, best first."""


@with_config(ConfigDict(json_schema_extra={"examples": [{"p_position": True, **_VALUE_EXAMPLE}]}))
class PPosition(Value):
    """Answer of `GET /v1/is-p-position` (IsPPosition): whether it is a P-position, plus the value."""

    p_position: Annotated[bool, Field(description="True when the player to move loses with best play.")]


# -- errors ------------------------------------------------------------------------------------


class ErrorDetail(TypedDict):
    """What went wrong: the public error code and a message quoting the offending input."""

    code: Annotated[
        str,
        Field(
            description="The gRPC status code name: INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, "
            "FAILED_PRECONDITION, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED, UNAUTHENTICATED, "
            "PERMISSION_DENIED, UNAVAILABLE or INTERNAL (UNIMPLEMENTED for a method a path lacks)."
        ),
    ]
    message: Annotated[str, Field(description="What was wrong; never a stack trace.")]
    job: NotRequired[
        Annotated[
            Job,
            Field(
                description="RESOURCE_EXHAUSTED only: the precompute job queued (or already open) that "
                "will make the answer possible; ask again when it is done."
            ),
        ]
    ]


@with_config(
    ConfigDict(
        json_schema_extra={
            "examples": [{"error": {"code": "INVALID_ARGUMENT", "message": "position 'x' is not heap sizes"}}]
        }
    )
)
class ErrorBody(TypedDict):
    """Every REST error answer, and a failed slot of a batch: `{"error": {"code", "message"}}`."""

    error: ErrorDetail


#: One slot of a batch: the value, or the error of that position.
ValueOrError: TypeAlias = Value | ErrorBody


class Batch(TypedDict):
    """Answer of `POST /v1/values:batch` (BatchGetValues) and of each StreamBatches message."""

    values: Annotated[
        list[ValueOrError],
        Field(description='In request order; a bad position gets `{"error": {...}}` in its slot.'),
    ]


# -- sequences and stats -----------------------------------------------------------------------


@with_config(ConfigDict(extra="ignore"))  # its own config: not the open one of Stats, which holds it
class Period(TypedDict):
    """g(n + period) = g(n) + saltus for every n >= preperiod."""

    preperiod: int
    period: int
    saltus: Annotated[int, Field(description="0 for plain periodicity.")]
    certified: Annotated[
        bool, Field(description="True when proved for all n; an observed regularity is false.")
    ]


class Sequence(TypedDict):
    """Answer of `GET /v1/sequence` (GetSequence): values of a one-parameter family."""

    game: str
    family: Annotated[str, Field(description='The family, e.g. "heap" (single heaps) or "row:0".')]
    start: int
    stop: int
    values: Annotated[list[int], Field(description="The values for start <= n < stop.")]
    period: Annotated[Period | None, Field(description="The family's period, or null when none is known.")]
    source: Annotated[Source, Field(description=_SOURCE)]


@with_config(ConfigDict(extra="allow"))
class Stats(TypedDict, total=False):
    """Answer of `GET /v1/stats` (GetStats): what is known of the game as a whole.

    Open: the fields below are those known today (heap games, Wythoff); a game may add others, and
    a client must ignore keys it does not know. Null means "not known" (or "none", for rarity).
    """

    game: str
    source: Annotated[Source, Field(description=_SOURCE)]
    period: Annotated[Period | None, Field(description="The period of single heaps, or null.")]
    computed_upto: Annotated[
        int | None, Field(description="How many values are known (Wythoff: pairs of the square table).")
    ]
    max_value: int | None
    max_value_at: Annotated[int | None, Field(description="The first heap size with `max_value`.")]
    rare_mask: Annotated[int | None, Field(description="The rare/common mask of the values, if sparse.")]
    rare_count: Annotated[int | None, Field(description="Rare values (heap 0 counted).")]
    last_rare_at: Annotated[int | None, Field(description="The last heap size with a rare value.")]
    p_positions: Annotated[
        list[int] | int,
        Field(description="Heap games: the P-positions (or their count where long); Wythoff: a count."),
    ]
    p_positions_count: int
    table_side: Annotated[int, Field(description="Wythoff: the side of the stored square table.")]
    live_side: Annotated[int, Field(description="Wythoff: the largest side answered live.")]
    pending: Annotated[
        list[Job],
        Field(description="The precompute jobs still queued or running for the game, oldest first."),
    ]


# -- jobs --------------------------------------------------------------------------------------


class Progress(TypedDict):
    """How far a job has come."""

    done: int
    total: int


class Job(TypedDict):
    """A precompute job (`POST /v1/jobs`, `GET /v1/jobs/{id}`, `DELETE /v1/jobs/{id}`)."""

    id: int
    game: str
    family: str
    upto: Annotated[int, Field(description="Values to compute; for Wythoff, the side of the square table.")]
    fill: Annotated[bool, Field(description="Fill the whole range even once the period is certified.")]
    status: JobStatus
    progress: Progress
    error: Annotated[str | None, Field(description="Why the job failed or was cancelled, else null.")]
    created_at: Annotated[str, Field(description="ISO 8601 timestamp.")]
    started_at: Annotated[str | None, Field(description="ISO 8601 timestamp, or null.")]
    finished_at: Annotated[str | None, Field(description="ISO 8601 timestamp, or null.")]


class JobList(TypedDict):
    """Answer of `GET /v1/jobs` (ListJobs), newest first."""

    jobs: list[Job]


# -- operations --------------------------------------------------------------------------------


class Health(TypedDict):
    """Answer of `/healthz`: always "ok" while the process serves."""

    status: Literal["ok"]
    database: Annotated[bool, Field(description="Whether PostgreSQL answers.")]
    details: NotRequired[dict[str, Any]]
