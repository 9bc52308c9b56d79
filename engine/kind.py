"""One protocol for every kind of game: what the service may ask of a game, and what a game may ask back.

A game id resolves once to a `GameKind`. From then on the service only passes text in and records out:
the kind parses and writes positions, values them, lists their moves, names its sequence families,
says what a precompute job for it means and which stored sequences it reads. Whatever differs between
games is a method of the kind, never a question the caller asks about its class.

A kind does no I/O. What it needs from outside comes through the request `Context`:
- `tables`, a narrow view of stored and live one-parameter sequences (the service implements it over
  PostgreSQL and its caches);
- `limits` and `deadline`, the bounds of this request (a `Deadline`: its time, and whether the client
  has gone away; long loops call `ctx.deadline.check(...)`, and `Tables` take `ctx.deadline.at`);
- `memo`, a shared cache for answers that are costly to find and cheap to keep;
- `kept`, the service's keepers of objects stored whole (engine.keep: endgame tables, solved graphs,
  eliminations), which walk the ladder kept -> stored -> made live -> refused for the kind;
- `settings_for(...)`, the kind's own settings (engine.kind_settings: its own bounds and budgets);
- `resources`, the files its settings name, opened for it outside engine/ (engine.kind_resources).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from engine.deadline import Deadline
from engine.errors import NimbaseError, NotApplicable, UnknownFamily
from engine.kind_resources import Resources
from engine.periods import Period
from engine.precompute import JobPlan, StoredName
from engine.values import BestMoveResult, GameInfo, SequenceResult, Source, Value

if TYPE_CHECKING:
    from engine.graphs import UploadedGraph
    from engine.keep import Keepers
    from engine.kind_settings import KindSettings

Pos = TypeVar("Pos")
T = TypeVar("T")
S = TypeVar("S")


#: Values a sequence kernel computes to load its kernels (`SequenceKernel.load`).
LOAD_VALUES = 64


class SequenceKernel(ABC):
    """Computes a one-parameter value sequence v(0), v(1), ... and certifies its period.

    `extend` must be incremental: given the first len(prefix) values it returns the first `stop`,
    so a stored table can be grown without recomputing it. Values are non-negative and fit uint32.
    For misère games the sequence holds misère Grundy values (0 exactly at P-positions).
    """

    #: The family name under which the sequence is stored ("heap": single heaps of size n).
    family: str = "heap"
    #: Whether `certify` can ever prove a period (growing values to look for one is then worthwhile).
    certifies: bool = True
    #: Whether `remoteness` gives single positions' remoteness (else growing values for it is pointless).
    gives_remoteness: bool = False
    #: Whether `stats_part` makes the statistics stored beside the sequence (else a worker asks for none).
    stores_stats: bool = False

    @abstractmethod
    def extend(self, prefix: NDArray[np.uint32], stop: int) -> NDArray[np.uint32]:
        """The first `stop` values; `prefix` holds the first len(prefix) of them, already correct."""

    @abstractmethod
    def certify(self, values: NDArray[np.uint32]) -> Period | None:
        """The certified (minimal) period of the infinite sequence, if `values` suffice to prove it."""

    @abstractmethod
    def reference(self, stop: int) -> list[int]:
        """Plain-Python reference for the first `stop` values; the tests compare `extend` with it."""

    def load(self) -> None:
        """Compile (or load from numba's cache) what a worker's step runs, on the first LOAD_VALUES values:
        the computing child does so when it takes the kernel, before any step's time bound counts (a
        kernel compiled under the bound, on a fresh machine, was killed at it with nothing computed)."""
        values = self.extend(np.zeros(0, dtype=np.uint32), LOAD_VALUES)
        self.certify(values)
        self.stats_part(values, 0)

    def observe(self, values: NDArray[np.uint32]) -> Period | None:
        """A regularity the values show without proof (`certified=False`), for reports only."""
        return None

    def rarity(self, values: NDArray[np.uint32]) -> tuple[int, int, int | None] | None:
        """(rare mask, rare count, last rare heap) where the game's values are sparse (else None)."""
        return None

    def remoteness(self, values: NDArray[np.uint32]) -> NDArray[np.int64] | None:
        """Remoteness of each single position 0..len(values)-1, where one pass finds it (else None)."""
        return None

    def stats_part(self, values: NDArray[np.uint32], start: int) -> dict[str, Any] | None:
        """Whole-table statistics a worker stores beside the sequence (JSON, of the kind's own shape), for
        values start..len(values)-1, `values` holding the sequence from 0: `combine_stats` adds them to
        those stored for 0..start-1, so a table extended later is not summarised from the start again.
        None where the kind stores none (its GetStats works from the values, as before it stored any)."""
        return None

    def combine_stats(self, earlier: Mapping[str, Any], later: Mapping[str, Any]) -> dict[str, Any]:
        """The statistics of values 0..b-1 from those of 0..a-1 (`earlier`) and of a..b-1 (`later`, from
        `stats_part(values, a)`). By default the later ones (an object is made whole at once)."""
        return dict(later)

    def length(self, progress: Callable[[int, int], None] | None = None) -> int | None:
        """For a sequence that is one object made whole (engine.stored_bytes: a solved graph, an endgame
        table, an elimination): makes it, reporting progress(done, total) as it goes, and gives its
        length, which a job stores whatever `upto` it was given. None for the open-ended sequences."""
        return None

    def aim(self, upto: int) -> None:
        """The `upto` its job was given, handed over before `length`: a kernel whose object is made whole
        to a bound the job names (a misère quotient's heaps) reads it here; by default it is ignored (the
        object's own `length` decides what is stored)."""
        del upto

    def makes_whole(self) -> bool:
        """Whether this kernel makes its object whole: it has its own `length`."""
        return type(self).length is not SequenceKernel.length

    def needs(self) -> tuple[StoredName, ...]:
        """The stored objects this kernel reads (engine.precompute: its job waits until they are stored);
        the worker reads them and hands them over through `give` before anything else."""
        return ()

    def give(self, inputs: Mapping[StoredName, bytes]) -> None:
        """Receive the stored bytes of every object `needs` named (what their kernels' `make` gave)."""
        if inputs:
            raise TypeError(f"{type(self).__name__} needs no stored objects, and was given {len(inputs)}")


@runtime_checkable
class ChecksPoints(Protocol):
    """A kernel that makes its object whole in stages (`SequenceKernel.length`) and can go on from where
    a stopped run left it: a worker killed part way loses at most the stage in flight.

    As each stage ends the kernel hands `checkpoint` (when set) a record, opaque bytes of its own format
    carrying their own check; whoever runs it keeps the records in order and, to go on after a stop,
    gives them back through `resume` before `length`. Records are incremental: each adds to those before
    it, so they are only of use together and in order.
    """

    checkpoint: Callable[[bytes], None] | None

    def resume(self, records: Sequence[bytes]) -> None:
        """Have the next `length` go on from `records` (those a stopped run gave, in order) instead of
        making their stages again."""
        ...


class SequenceSource(Protocol):
    """What the sequence tables need to know of a game to answer v(n) for it."""

    @property
    def game_id(self) -> str: ...
    @property
    def family(self) -> str:
        """The stored family the sequence is ("heap" for single heaps): with `game_id`, its key."""
        ...

    @property
    def live_limit(self) -> int | None: ...
    def formula_value(self, n: int) -> int | None: ...
    def formula_period(self) -> Period | None: ...
    def kernel(self) -> SequenceKernel | None: ...


class SequenceDefaults:
    """A `SequenceSource`'s answers where it has no closed form and no kernel: a source overrides those
    it has (a heap game its formula or kernel; a family stored whole has none)."""

    __slots__ = ()

    def formula_value(self, n: int) -> int | None:
        """The value of n from a closed form, or None where there is none."""
        return None

    def formula_period(self) -> Period | None:
        """The (arithmetic) period a closed form implies, e.g. Nim's g(n+1) = g(n) + 1 from 0."""
        return None

    def kernel(self) -> SequenceKernel | None:
        """The kernel computing the sequence, or None where a formula (or storage) covers all of it."""
        return None


class Tables(Protocol):
    """Stored and live one-parameter sequences, cheapest source first: formula, table, period, live.

    Methods raise LimitExceeded past the live limits, DeadlineExceeded past the deadline and
    Unavailable when only the unreachable database could answer.
    """

    def value(self, source: SequenceSource, n: int, deadline: float) -> tuple[int, Source]: ...
    def lookup_many(
        self, source: SequenceSource, ns: list[int], deadline: float
    ) -> dict[int, tuple[int, Source] | Exception]: ...
    def lookup_array(
        self, source: SequenceSource, ns: NDArray[np.int64], deadline: float
    ) -> NDArray[np.int64]:
        """v(n) for every n of `ns` (each 0..2^63-1), in order, without a Python object per value.

        All or nothing: a heap that cannot be answered raises its error and nothing is returned.
        """
        ...

    def values(
        self, source: SequenceSource, start: int, stop: int, deadline: float
    ) -> tuple[NDArray[np.int64], Source]: ...
    def word_bytes(self, source: SequenceSource, start: int, stop: int, deadline: float) -> bytes:
        """Stored values start..stop as little-endian uint32 bytes (an object stored whole as words, read
        by parts: engine.stored_bytes.read_stored_range), read without the rest of their chunks where the
        storage allows, and then not verified by the chunks' checksums: the caller checks what it reads.
        LimitExceeded where they are not all stored; Unavailable for a damaged chunk or no database."""
        ...

    def word_bytes_of(
        self, source: SequenceSource, ranges: Sequence[tuple[int, int]], deadline: float
    ) -> list[bytes]:
        """`word_bytes` of each range, those storage must give read together (one round trip): what a
        reader needing several parts of one object at once asks."""
        ...

    def period(self, source: SequenceSource, deadline: float, *, compute: bool = False) -> Period | None: ...
    def known_prefix(self, source: SequenceSource, deadline: float) -> tuple[NDArray[np.uint32], Source]:
        """Every value known so far from 0: the stored table, else the live prefix (grown a little)."""
        ...

    def remoteness(self, source: SequenceSource, n: int, deadline: float) -> int | None: ...
    def stored_size(self, game_id: str, family: str) -> int:
        """How many values of (game_id, family) are stored from 0 (0 when none or unreachable)."""
        ...

    def stored_value(self, game_id: str, family: str, index: int) -> int | None:
        """One stored value, or None where it is not stored or cannot be read now."""
        ...

    def stored_stats(self, game_id: str, family: str) -> Mapping[str, Any] | None:
        """The statistics a worker stored beside (game_id, family) (`SequenceKernel.stats_part`), when
        they cover every value stored; None otherwise (nothing stored, a table stored before statistics
        were, a job still writing it, or the database unreachable)."""
        ...

    def stored_stats_of(
        self, game_id: str, families: Sequence[str]
    ) -> Mapping[str, Mapping[str, Any] | None]:
        """`stored_stats` of several families of one game (a rules game's tiers), asked of storage at once."""
        ...

    def may_block(self) -> None:
        """Called before waiting on storage: lets the service move the request off its event loop."""
        ...

    def may_compute(self) -> None:
        """Called before real computation (a search, a solve, a table grown live): lets the service move
        the request off its event loop, or out of its own process to one that can be stopped."""
        ...

    def refusal(self, game_id: str, family: str, message: str, *, precondition: bool = False) -> NimbaseError:
        """The error refusing an answer that needs (game_id, family) stored whole by a worker (a solved
        graph, an endgame table) while it is not: `message`, and the job that will store it, queued now
        (or open already) where the service queues jobs by itself. RESOURCE_EXHAUSTED, or with
        `precondition` FAILED_PRECONDITION (the answer waits for a solve, not for more resources)."""
        ...

    def want_stored(self, game_id: str, family: str) -> None:
        """Queue the job storing (game_id, family) whole (or find it open), where the service queues jobs by
        itself: an answer was given from less than it (a live computation cut short by its deadline), and
        the next ones should not have to be. Nothing otherwise, and never an error."""
        ...


class Memo(Protocol):
    """A bounded cache shared by requests; `get_or_compute` computes a missing entry once."""

    def get_or_compute(self, key: Hashable, compute: Callable[[], T]) -> T: ...
    def peek(self, key: Hashable) -> object | None:
        """The cached value of `key`, if any (never computes, never waits)."""
        ...


class RequestLimits(Protocol):
    """The per-request bounds every kind shares (a kind's own bounds are its settings:
    `Context.settings_for`, engine.kind_settings)."""

    @property
    def search_states(self) -> int: ...
    @property
    def remoteness_states(self) -> int: ...
    @property
    def ranked_moves(self) -> int: ...
    @property
    def listed_moves(self) -> int: ...
    @property
    def stats_p_positions(self) -> int: ...
    @property
    def answer_chars(self) -> int: ...


class Allowance:
    """Search steps (states times moves) one request may still spend on extras it can answer without
    (remoteness).

    Shared by everything the request values, so ranking a thousand moves cannot cost a thousand
    searches: once it is spent, the remaining moves are listed without their remoteness.
    """

    __slots__ = ("steps",)

    def __init__(self, steps: int) -> None:
        self.steps = steps

    def spend(self, steps: int) -> bool:
        """Take `steps` from what is left, if that much is left."""
        if steps > self.steps:
            return False
        self.steps -= steps
        return True


@dataclass(slots=True, eq=False)
class Context:
    """Everything one request lends a kind: tables, bounds, its deadline (and cancellation), memo, the
    keepers of objects stored whole and the kind's own settings.

    Not reassigned once made (`dataclasses.replace` makes a changed copy), though not frozen: a frozen
    dataclass sets each field through `object.__setattr__`, and making one costs a microsecond more, a
    seventh of a distinct lookup's Python in the service. Compared and hashed by identity, as before in
    effect (no two requests share one)."""

    tables: Tables
    limits: RequestLimits
    deadline: Deadline
    memo: Memo
    #: Search steps left for remoteness in this request (see `Allowance`).
    allowance: Allowance
    #: The service's keepers (engine.keep), shared by every request: `kept.keeper(SPEC)`.
    kept: Keepers
    #: Each kind's own settings (engine.kind_settings), as the service read them.
    settings: KindSettings
    #: The files kinds' settings name, opened at start-up (engine.kind_resources): `resources.of(SPEC)`.
    resources: Resources = field(default_factory=Resources)

    def settings_for(self, cls: type[S]) -> S:
        """The kind's own settings of class `cls` (its `Family.settings`), as configured."""
        return self.settings.of(cls)


#: What `GameKind.memory_bytes` counts a kind as unless it says otherwise: generous for a kind made from
#: its id alone (a few attributes and small tables).
KIND_BYTES = 64 << 10


class GameKind(ABC, Generic[Pos]):
    """One rule set, parameters included, as the service sees it. `Pos` is its parsed position."""

    #: Canonical game id, e.g. "subtraction:1,3,4:misere".
    game_id: str
    #: The uploaded graph this kind plays on (`lights-out:graph:NAME`, `graph:NAME`), else None. The
    #: service loads it (NOT_FOUND naming it when there is none) and serves `bind_graph(graph)` instead.
    graph_name: str | None = None
    #: The metrics a main line of this kind may follow (`metric=`; an endgame's "dtm", "dtz"): each a way
    #: of ranking the moves `line_moves` knows. None by default: the line follows BestMove's order.
    metrics: tuple[str, ...] = ()
    #: Whether a live process values this game's first example when it starts, loading the kernels its
    #: memory is then measured with. False where the kernels are compiled per instance of the game as it
    #: is first solved (a rules game's board): there is nothing to load ahead, and the solve would cost
    #: every process start seconds.
    warms_up: bool = True

    def warm_ups(self) -> Sequence[str]:
        """Positions a server process (and each live process) answers before it says it is ready, value
        and best moves, then the game's stats: so that every kernel its requests may run is compiled, or
        loaded from numba's cache, before the first request and never under one's deadline. By default
        the examples ListGames shows (none where `warms_up` is False); a kind whose requests reach
        kernels its examples do not overrides it."""
        return self.info().examples if self.warms_up else ()

    def load_kernels(self) -> None:
        """Load the kernels this kind's requests may run that its warm-up questions would reach only after
        seconds of computing (a wider type of values, met far into a sequence), each on a small input:
        the warm-up calls it before asking them. By default there are none."""

    def warm_up_graph(self) -> UploadedGraph | None:
        """For a kind that plays on an uploaded graph (`graph_name`), the graph its warm-up plays on in
        its place (named `graph_name`, its `warm_ups` among its vertices); None: no warm-up."""
        return None

    def bind_graph(self, graph: UploadedGraph) -> GameKind[Any]:
        """The kind playing on `graph`, once the service has loaded the graph `graph_name` names."""
        raise NotApplicable(f"{self.game_id!r} plays on no uploaded graph")

    @abstractmethod
    def info(self) -> GameInfo:
        """The ListGames entry for this game."""

    @abstractmethod
    def parse(self, text: str) -> Pos:
        """The position `text` names, canonical; InvalidPosition quoting the text otherwise."""

    @abstractmethod
    def format(self, position: Pos) -> str:
        """The canonical text of a position."""

    @abstractmethod
    def value(self, position: Pos, ctx: Context) -> Value:
        """Everything known of one position (remoteness included where it can be found)."""

    def values(self, texts: Sequence[str], ctx: Context) -> list[Value | NimbaseError]:
        """Many positions at once, in order; a bad item gets its error, the rest are answered.

        Kinds whose values combine from shared parts override this to look the parts up in bulk.
        """
        out: list[Value | NimbaseError] = []
        for text in texts:
            try:
                out.append(self.value(self.parse(text), ctx))
            except NimbaseError as error:
                out.append(error)
        return out

    def columnar(self, heaps: NDArray[np.uint64], ctx: Context) -> NDArray[np.int64]:
        """Normal-play Grundy values of single heaps of sizes `heaps`, in order, all or nothing (the
        columnar route). Only kinds with single-heap sequences have them; the others refuse."""
        raise NotApplicable(
            f"{self.game_id!r} has no single-heap values: columnar lookups answer heap games only "
            "(use BatchGetValues)"
        )

    def p_position(self, position: Pos, ctx: Context) -> Value:
        """The value, for IsPPosition (puzzles, which have no P-positions, raise NotApplicable)."""
        return self.value(position, ctx)

    @abstractmethod
    def best_moves(self, position: Pos, limit: int | None, ctx: Context) -> BestMoveResult:
        """The value and the moves (every one, or the first `limit`), best first."""

    def line_moves(self, position: Pos, metric: str | None, ctx: Context) -> BestMoveResult:
        """The value of `position` and its best move first, ranked by `metric` (one of `metrics`, or None:
        the kind's own order), for one step of a main line (engine.mainline). By default BestMove's
        ranking, listing one move (a position with more moves than are ranked takes its first winning
        one)."""
        return self.best_moves(position, 1, ctx)

    def repetition_key(self, text: str) -> str:
        """What a main line compares to find a repetition: the canonical text of a position, less what
        does not make it another position (a FEN's move counters)."""
        return text

    def sequence(self, family: str | None, start: int, stop: int, ctx: Context) -> SequenceResult:
        """Values of a one-parameter family for start <= n < stop."""
        raise UnknownFamily(f"{self.game_id!r} has no sequence family {family or ''!r}")

    @abstractmethod
    def stats(self, ctx: Context) -> dict[str, object]:
        """What is known of the game as a whole."""

    def plan_job(self, upto: int, fill: bool = False, family: str | None = None) -> JobPlan:
        """The precompute job for `upto` (of `family`, for kinds that store several); NotApplicable where
        nothing is worth storing."""
        raise NotApplicable(f"{self.game_id!r} has nothing to precompute")

    def kernel_for(self, family: str) -> SequenceKernel | None:
        """The kernel computing the stored sequence `family` (what a worker runs), if any."""
        return None

    def memory_bytes(self) -> int:
        """About the bytes this kind holds, now or once it has answered (what a cache of kinds counts it
        as, so the count must not grow after it is kept). A kind made from its id alone holds little;
        kinds holding data of their own (bound to an uploaded graph) override it."""
        return KIND_BYTES
