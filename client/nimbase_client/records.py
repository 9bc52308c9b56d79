"""The typed answer records: every answer shape of the nimbase API, declared once.

Each JSON answer of the REST routes, and each dict the clients return (gRPC and REST alike), is one
`TypedDict` here. They are plain dicts at run time: nothing is validated per answer. A field marked
`NotRequired` is absent from the answer when it is not known, never null.

The text under each field is its documentation: the server's `nimbase.schema` publishes it in
`/openapi.json`, so these classes are the one declaration of every field's name, type and meaning.
The fields a kind adds to a value or a move are not written here: `Value` and `Move` take them from
`nimbase_client.v1.kind_records`, generated from nimbase.proto (its comments are their documentation).
This module needs nothing but the standard library (and `typing_extensions` when it is there:
`nimbase_client.typed_dict`).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias

from nimbase_client.typed_dict import TypedDict
from nimbase_client.v1.kind_records import MoveKinds, ValueKinds

__all__ = [
    "Batch",
    "BestMove",
    "ErrorBody",
    "ErrorDetail",
    "GameInfo",
    "GameList",
    "Graph",
    "GraphSummary",
    "Health",
    "Job",
    "JobList",
    "JobStatus",
    "LineEnd",
    "Mainline",
    "Move",
    "Moves",
    "Outcome",
    "PPosition",
    "Period",
    "Progress",
    "Sequence",
    "Source",
    "Stats",
    "StoredObject",
    "TerminalLabel",
    "Value",
    "ValueOrError",
]

Outcome = Literal["P", "N", "D"]
#: Why a main line ends (Mainline's `end`).
LineEnd = Literal["terminal", "solved", "repetition", "max_plies", "unknown"]
Source = Literal["formula", "table", "period", "live", "syzygy"]
JobStatus = Literal["queued", "running", "done", "failed", "cancelled"]
TerminalLabel = Literal["win", "loss", "draw"]


# -- games -------------------------------------------------------------------------------------


class GameInfo(TypedDict):
    """One game family: its id (or id pattern), grammar, description and example positions."""

    id: str
    """The game id, e.g. `nim` or `subtraction:1,3,4`."""
    name: str
    """Its usual name."""
    description: str
    """The rules in one line."""
    position_syntax: str
    """How positions of the game are written."""
    examples: list[str]
    """Example positions."""
    period: NotRequired[Period]
    """The certified period of a computed game's values, if known."""
    view: NotRequired[str]
    """How a page draws the game's positions, where the game declares it: "grid" (rows of one-character
    cells joined by "/", "." an empty cell)."""


class GameList(TypedDict):
    """Answer of `GET /v1/games` (ListGames)."""

    games: list[GameInfo]


# -- values ------------------------------------------------------------------------------------


class _CoreValue(TypedDict):
    """What every game's value has."""

    game: str
    """The game id asked about."""
    position: str
    """The position in canonical form."""
    outcome: NotRequired[Outcome]
    """With best play: "P" the player to move loses, "N" the player to move wins, "D" a draw. Absent for
    one-player puzzles."""
    grundy: NotRequired[int]
    """The Sprague-Grundy value; absent where the game is not impartial under normal play."""
    remoteness: NotRequired[int]
    """Moves to the end under best play (the winner hurries; for puzzles, the fewest presses that solve
    the board); absent where not known exactly."""
    source: Source
    """Where the answer came from, cheapest first: "formula" (a closed form), "table" (precomputed),
    "period" (extrapolated from a certified period), "live" (computed for this request) or "syzygy" (read
    from the user's Syzygy files)."""


class Value(_CoreValue, ValueKinds):
    """The value of one position (`GET /v1/value`, GetValue): the core fields, and those the position's
    kind adds (flat; each kind gives its own, declared in nimbase.proto).

    One-player puzzles (Lights Out) have no `outcome`: their kind's fields say whether the board can be
    solved and how, and `remoteness` is the fewest presses.
    """


class _CoreMove(TypedDict):
    """What every game's move has."""

    move: str
    """The move as text: "n -> a", "n -> a+b" (a split), "n -> 0"; Wythoff "a,b -> c,d"; Lights Out the
    press, e.g. "23"; a game graph the vertex reached; an endgame the move in UCI, e.g. "a1a8"."""
    position: str
    """The position the move leads to, in canonical form."""
    outcome: NotRequired[Outcome]
    """Of the position reached. With best play: "P" the player to move loses, "N" the player to move
    wins, "D" a draw. Absent for one-player puzzles."""
    grundy: NotRequired[int]
    """Of the position reached. The Sprague-Grundy value; absent where the game is not impartial under
    normal play."""
    remoteness: NotRequired[int]
    """Of the position reached. Moves to the end under best play (the winner hurries; for puzzles, the
    fewest presses left); absent where not known exactly."""
    best: NotRequired[bool]
    """True on every move that ties with the first (the same outcome and remoteness): a bot may play
    any of them and keep the result of best play. Absent on the others."""


class Move(_CoreMove, MoveKinds):
    """One legal move and the value of the position it leads to, then the fields the kind adds to the
    move (flat; each kind gives its own, declared in nimbase.proto): heap games the heap and what it
    leaves, Wythoff the pair, coloured-heap games the coloured heap, endgames the move's notations, a
    puzzle's press (which has no `outcome`) whether the board it leaves can be solved.
    """


class Moves(TypedDict):
    """The moves part of a BestMove answer."""

    moves: list[Move]
    """Every legal move (or the first `limit`), best first."""
    best_move: NotRequired[Move]
    """`moves[0]`; absent at a terminal position."""


class BestMove(Value, Moves):
    """Answer of `GET /v1/best-move` (BestMove): the value plus the moves, best first."""


class _LineMoves(TypedDict):
    """The moves part of a Mainline answer."""

    moves: list[Move]
    """The moves of best play from the position, in order, each with the value of the position it
    leads to."""
    end: LineEnd
    """Why the line ends: "terminal" (no move left), "solved" (a puzzle's board), "repetition" (the last
    move reaches a position seen before: a drawn line), "max_plies", or "unknown" (a puzzle whose fewest
    presses are not known)."""


class Mainline(Value, _LineMoves):
    """Answer of `GET /v1/mainline` (Mainline): the value of the position asked about (its `source` the
    costliest of the line's values), then the line."""


class PPosition(Value):
    """Answer of `GET /v1/is-p-position` (IsPPosition): whether it is a P-position, plus the value."""

    p_position: bool
    """True when the player to move loses with best play."""


# -- errors ------------------------------------------------------------------------------------


class ErrorDetail(TypedDict):
    """What went wrong: the public error code and a message quoting the offending input."""

    code: str
    """The gRPC status code name: INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION,
    RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED, UNAUTHENTICATED, PERMISSION_DENIED, UNAVAILABLE or INTERNAL
    (UNIMPLEMENTED for a method a path lacks)."""
    message: str
    """What was wrong; never a stack trace."""
    job: NotRequired[Job]
    """RESOURCE_EXHAUSTED only: the precompute job queued (or already open) that will make the answer
    possible; ask again when it is done."""
    reasons: NotRequired[list[str]]
    """`/readyz`'s UNAVAILABLE only: what the server waits for before it is ready (its kernels compiling,
    its live processes starting, `nimbase run`'s worker not running), each in a sentence."""


class ErrorBody(TypedDict):
    """Every REST error answer, and a failed slot of a batch: `{"error": {"code", "message"}}`."""

    error: ErrorDetail


#: One slot of a batch: the value, or the error of that position.
ValueOrError: TypeAlias = Value | ErrorBody


class Batch(TypedDict):
    """Answer of `POST /v1/values:batch` (BatchGetValues) and of each StreamBatches message."""

    values: list[ValueOrError]
    """In request order; a bad position gets `{"error": {...}}` in its slot."""


# -- sequences and stats -----------------------------------------------------------------------


class Period(TypedDict):
    """g(n + period) = g(n) + saltus for every n >= preperiod."""

    preperiod: int
    period: int
    saltus: int
    """0 for plain periodicity."""
    certified: bool
    """True when proved for all n; an observed regularity is false."""


class Sequence(TypedDict):
    """Answer of `GET /v1/sequence` (GetSequence): values of a one-parameter family."""

    game: str
    family: str
    """The family, e.g. "heap" (single heaps) or "row:0"."""
    start: int
    stop: int
    values: list[int]
    """The values for start <= n < stop."""
    period: Period | None
    """The family's period, or null when none is known."""
    source: Source
    """Where the answer came from, cheapest first: "formula" (a closed form), "table" (precomputed),
    "period" (extrapolated from a certified period), "live" (computed for this request) or "syzygy" (read
    from the user's Syzygy files)."""


class Stats(TypedDict, total=False):
    """Answer of `GET /v1/stats` (GetStats): what is known of the game as a whole.

    Open: the fields below are those known today (heap games, Wythoff, Lights Out, game graphs, endgames); a
    game may add others, and a client must ignore keys it does not know. Null means "not known" (or
    "none", for rarity).
    """

    game: str
    source: Source
    """Where the answer came from, cheapest first: "formula" (a closed form), "table" (precomputed),
    "period" (extrapolated from a certified period), "live" (computed for this request) or "syzygy" (read
    from the user's Syzygy files)."""
    period: Period | None
    """The period of single heaps, or null."""
    computed_upto: int | None
    """How many values are known (Wythoff: pairs of the square table)."""
    max_value: int | None
    max_value_at: int | None
    """The first heap size with `max_value`."""
    rare_mask: int | None
    """The rare/common mask of the values, if sparse."""
    rare_count: int | None
    """Rare values (heap 0 counted)."""
    last_rare_at: int | None
    """The last heap size with a rare value."""
    p_positions: list[int] | int
    """Heap games: the P-positions (or their count where long); Wythoff: a count."""
    p_positions_count: int
    table_side: int
    """Wythoff: the side of the stored square table."""
    live_side: int
    """Wythoff: the largest side answered live."""
    pending: list[Job]
    """The precompute jobs still queued or running for the game, oldest first."""
    rank: int
    """Lights Out shapes: the rank of the press matrix over F2 (cells less `nullity`)."""
    nullity: int
    """Lights Out shapes: the dimension of the press matrix's null space (sets of presses changing
    nothing); 0 exactly when every board can be solved."""
    solvable_boards: int | str
    """Lights Out shapes: how many boards can be solved, 2^rank: a number up to 2^53, else the text
    "2^rank"."""
    distance_counts: list[int | str] | None
    """Lights Out shapes: boards at each fewest-press distance from the all-white one, from 0 (exact;
    counts past 2^53 as decimal text); null where not computed (shapes past 1,024 cells, or a null space
    too large to walk)."""
    diameter: int | None
    """Lights Out shapes: the most presses any board that can be solved needs; null where not computed."""
    method: Literal["elimination", "polynomial"]
    """Lights Out shapes: how rank and nullity were found: Gaussian elimination of the press matrix, or
    (plane boards past 256 x 256) the polynomial method over F2."""
    wins: int
    """Game graphs and endgame materials: positions won for the player to move (endgames: either side to
    move, either colouring)."""
    losses: int
    """Game graphs and endgame materials: positions lost for the player to move."""
    draws: int
    """Game graphs and endgame materials: positions drawn with best play."""
    longest_win: int
    """Game graphs and endgame materials: the greatest remoteness of a won position, in plies (a mate in n
    moves is 2n - 1 plies)."""
    longest_loss: int
    """Game graphs and endgame materials: the greatest remoteness of a lost position, in plies."""
    kernel: list[str] | int
    """Acyclic game graphs played to normal play: the kernel (the P-positions, gamma = 0), as vertex
    names, or their count where long."""


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
    upto: int
    """Values to compute; for Wythoff, the side of the square table."""
    fill: bool
    """Fill the whole range even once the period is certified."""
    status: JobStatus
    progress: Progress
    error: str | None
    """Why the job failed or was cancelled, else null."""
    created_at: str
    """ISO 8601 timestamp."""
    started_at: str | None
    """ISO 8601 timestamp, or null."""
    finished_at: str | None
    """ISO 8601 timestamp, or null."""
    waits_for: list[int]
    """The jobs that must be done before this one runs (the stored objects it reads)."""
    queued: NotRequired[list[Job]]
    """A submission's or retry's answer only: the jobs this call queued, in the order they run (empty
    when an open job computes what was asked, or it is stored)."""
    stored: NotRequired[StoredObject]
    """A submission's answer only: what was asked is stored already, and nothing is queued; the job is
    the last one that stored it (id 0 where none did)."""
    refused: NotRequired[list[str]]
    """A family set's submission only: why members of the set were not queued (no worker could finish
    them), one message each."""


class StoredObject(TypedDict):
    """A stored object a submission asked for."""

    game: str
    family: str
    computed_upto: int
    """The values stored (an object made whole: its words)."""


class JobList(TypedDict):
    """Answer of `GET /v1/jobs` (ListJobs), newest first."""

    jobs: list[Job]
    next_cursor: NotRequired[str | None]
    """Where the next page starts (`cursor=`), or null after the last page."""


# -- graphs ------------------------------------------------------------------------------------


class Graph(TypedDict):
    """An uploaded graph (`POST /v1/graphs` takes it, `GET /v1/graphs/{name}` answers it)."""

    name: str
    """1 to 200 letters, digits, '.', '_', '~' or '-'; the graph's games are `graph:NAME` and
    `lights-out:graph:NAME`."""
    vertices: list[str]
    """The vertex names, in order (a Lights Out board on the graph has one 0/1 per vertex, in this order):
    unique, 1 to 1,000 printable characters each."""
    edges: list[list[str]]
    """`[from, to]` vertex names: moves for `graph:NAME`, read as undirected for `lights-out:graph:NAME`
    (which refuses self-loops)."""
    terminals: NotRequired[dict[str, TerminalLabel]]
    """Vertex -> the result for the player to move at that vertex, which has no move: "win", "loss" or
    "draw" ("loss" where not given). GetGraph always gives it (possibly empty)."""


class GraphSummary(TypedDict):
    """Answer of `POST /v1/graphs` (UploadGraph): what was stored."""

    name: str
    vertex_count: int
    edge_count: int
    terminal_count: int
    created_at: str
    """ISO 8601 timestamp."""


# -- operations --------------------------------------------------------------------------------


class Health(TypedDict):
    """Answer of `/healthz`: always "ok" while the process serves."""

    status: Literal["ok"]
    database: bool
    """Whether PostgreSQL answers."""
    details: NotRequired[dict[str, Any]]
