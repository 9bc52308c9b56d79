"""The transport-free service layer: every RPC and route is one method here.

gRPC and REST only translate requests into these calls and results into messages; all lookups,
limits and caching live here so both transports answer identically.
"""

from __future__ import annotations

import hmac
import itertools
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError

from engine.errors import InvalidArgument, LimitExceeded, NimbaseError
from engine.games.base import GameInfo, HeapGame, Heaps
from engine.games.nim import NimGame
from engine.games.registry import Game, list_games, parse_game_id
from engine.games.subtraction import SubtractionGame
from engine.games.wythoff import WythoffGame
from engine.kernels.rare_common import choose_sparseness, last_rare_at, rare_count
from engine.periods import Period
from engine.positions import parse_heaps
from engine.precompute import plan_job
from engine.search import SearchResult, estimate_states, solve
from engine.sums import (
    apply_move,
    count_sum_moves,
    format_move,
    iter_sum_moves,
    misere_nim_is_p,
    nim_sum,
    winning_moves_normal,
)
from engine.values import Outcome, Source, Value, costliest
from service.errors import NotFound, PermissionDenied, Unauthenticated, Unavailable
from service.gate import DatabaseGate
from service.sequences import HeapSequences, WouldBlock
from service.settings import Settings
from service.wythoff import WythoffValues
from storage.errors import StorageUnavailable
from storage.jobs import Job, JobQueue
from storage.sequences import SequenceStore

#: A position of either kind (heaps or Wythoff pairs), for code shared by both.
P = TypeVar("P", bound=tuple[Any, ...])
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class MoveValue:
    """One legal move and the value of the position it leads to."""

    move: str
    value: Value

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "move": self.move,
            "position": self.value.position,
            "outcome": self.value.outcome,
        }
        if self.value.grundy is not None:
            out["grundy"] = self.value.grundy
        if self.value.remoteness is not None:
            out["remoteness"] = self.value.remoteness
        return out


@dataclass(frozen=True, slots=True)
class BestMoveResult:
    value: Value
    moves: list[MoveValue]


@dataclass(frozen=True, slots=True)
class SequenceResult:
    game: str
    family: str
    start: int
    stop: int
    values: list[int]
    period: Period | None
    source: str


@dataclass(frozen=True, slots=True)
class JobView:
    id: int
    game: str
    family: str
    upto: int
    fill: bool
    status: str
    done: int
    total: int
    error: str | None
    created_at: str
    started_at: str | None
    finished_at: str | None

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "game": self.game,
            "family": self.family,
            "upto": self.upto,
            "fill": self.fill,
            "status": self.status,
            "progress": {"done": self.done, "total": self.total},
            "error": self.error,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
        }


@dataclass(slots=True)
class Health:
    database: bool
    details: dict[str, object] = field(default_factory=dict)


class NimbaseService(Protocol):
    """What the transports call; `Nimbase` below is the implementation."""

    def list_games(self) -> list[GameInfo]: ...
    def get_value(self, game: str, position: str, deadline: float | None = None) -> Value: ...
    def in_memory(self, call: Callable[[], T]) -> T | None: ...
    def best_move(
        self, game: str, position: str, limit: int | None = None, deadline: float | None = None
    ) -> BestMoveResult: ...
    def is_p_position(self, game: str, position: str, deadline: float | None = None) -> Value: ...
    def batch_get_values(
        self, game: str, positions: Sequence[str], deadline: float | None = None
    ) -> list[Value | NimbaseError]: ...
    def get_sequence(
        self, game: str, family: str | None, start: int, stop: int, deadline: float | None = None
    ) -> SequenceResult: ...
    def get_stats(self, game: str) -> dict[str, object]: ...
    def submit_job(self, token: str | None, game: str, upto: int, fill: bool = False) -> JobView: ...
    def get_job(self, job_id: int) -> JobView: ...
    def list_jobs(self, limit: int = 100) -> list[JobView]: ...
    def cancel_job(self, token: str | None, job_id: int) -> JobView: ...
    def health(self) -> Health: ...


#: Searched positions whose answers are kept.
_SOLVED_CACHE_SIZE = 65_536
#: A misère search whose cheap upper bound exceeds its budget this many times over is refused at once.
_HOPELESS = 50

#: Stats of stored tables kept (one entry per game and table size).
_STATS_CACHE_SIZE = 256

#: Games parsed from ids are kept this many at a time (ids are user text, so the cache is bounded).
_GAME_CACHE_SIZE = 1024


def _as_iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _job_view(job: Job) -> JobView:
    return JobView(
        id=job.id,
        game=job.game_id,
        family=job.family,
        upto=job.upto,
        fill=job.fill,
        status=job.status,
        done=job.done,
        total=job.total,
        error=job.error,
        created_at=_as_iso(job.created_at) or "",
        started_at=_as_iso(job.started_at),
        finished_at=_as_iso(job.finished_at),
    )


class Nimbase:
    """The service: lookups in the order formula → table → period → live, within `Limits`."""

    def __init__(self, settings: Settings, engine: Engine | None) -> None:
        self._settings = settings
        self._limits = settings.limits
        self._engine = engine
        self._gate = DatabaseGate()
        self._store = SequenceStore(engine) if engine is not None else None
        self._jobs = JobQueue(engine) if engine is not None else None
        self.sequences = HeapSequences(self._store, self._gate, self._limits)
        self._games: OrderedDict[str, Game] = OrderedDict()
        self.wythoff = WythoffValues(self.sequences, WythoffGame())
        self._games_lock = threading.Lock()
        self._solved: OrderedDict[tuple[str, Heaps], SearchResult] = OrderedDict()
        self._stats: OrderedDict[tuple[str, int], dict[str, object]] = OrderedDict()

    # -- games and positions --------------------------------------------------------------------

    def game(self, game_id: str) -> Game:
        """The game an id names (parsed once, then cached)."""
        with self._games_lock:
            game = self._games.get(game_id)
            if game is not None:
                self._games.move_to_end(game_id)
                return game
        game = parse_game_id(game_id)
        with self._games_lock:
            self._games[game_id] = game
            while len(self._games) > _GAME_CACHE_SIZE:
                self._games.popitem(last=False)
        return game

    def list_games(self) -> list[GameInfo]:
        return list_games()

    def _deadline(self, deadline: float | None) -> float:
        cap = time.monotonic() + self._limits.request_seconds
        return cap if deadline is None else min(deadline, cap)

    # -- values ---------------------------------------------------------------------------------

    def get_value(self, game: str, position: str, deadline: float | None = None) -> Value:
        rules = self.game(game)
        if isinstance(rules, WythoffGame):
            return self.wythoff.value_of(position)
        heaps = parse_heaps(position)
        return self._value(rules, heaps, self._deadline(deadline), remoteness=True)

    def is_p_position(self, game: str, position: str, deadline: float | None = None) -> Value:
        return self.get_value(game, position, deadline)

    def in_memory(self, call: Callable[[], T]) -> T | None:
        """`call()` if memory alone answers it (no database, no computation), else None.

        Errors in the request are raised as usual: they cost nothing to find.
        """
        try:
            with self.sequences.memory_only():
                return call()
        except WouldBlock:
            return None

    def batch_get_values(
        self, game: str, positions: Sequence[str], deadline: float | None = None
    ) -> list[Value | NimbaseError]:
        if len(positions) > self._limits.batch_positions:
            raise InvalidArgument(
                f"{len(positions)} positions in one batch; at most {self._limits.batch_positions} are allowed"
            )
        rules = self.game(game)
        if isinstance(rules, WythoffGame):
            return [self._guarded(partial(self.wythoff.value_of, item)) for item in positions]
        limit = self._deadline(deadline)
        parsed: list[Heaps | NimbaseError] = []
        for item in positions:
            try:
                parsed.append(parse_heaps(item))
            except NimbaseError as error:
                parsed.append(error)
        if rules.misere:
            return [
                item
                if isinstance(item, NimbaseError)
                else self._guarded(partial(self._value, rules, item, limit, remoteness=False))
                for item in parsed
            ]
        known = self.sequences.lookup_many(
            rules, [h for item in parsed if not isinstance(item, NimbaseError) for h in item], limit
        )
        return [
            item if isinstance(item, NimbaseError) else self._sum_from(rules, item, known) for item in parsed
        ]

    @staticmethod
    def _guarded(answer: Callable[[], Value]) -> Value | NimbaseError:
        """The answer, or the error that is its answer (one bad item never fails a whole batch)."""
        try:
            return answer()
        except NimbaseError as error:
            return error

    def _sum_from(
        self, game: HeapGame, heaps: Heaps, known: dict[int, tuple[int, Source] | Exception]
    ) -> Value | NimbaseError:
        """A normal-play value from heap values looked up in bulk."""
        total = 0
        sources: list[Source] = []
        for heap in heaps:
            found = known[heap]
            if isinstance(found, NimbaseError):
                return found
            if isinstance(found, Exception):
                raise found
            total ^= found[0]
            sources.append(found[1])
        remoteness = 0 if not heaps else None
        return Value(
            game.game_id,
            _position_text(heaps),
            "P" if total == 0 else "N",
            total,
            remoteness,
            costliest(sources),
        )

    def _value(self, game: HeapGame, heaps: Heaps, deadline: float, *, remoteness: bool) -> Value:
        position = _position_text(heaps)
        if game.misere:
            outcome, grundy, source, known_remoteness = self._misere(game, heaps, deadline)
        else:
            grundy, source = self._nim_sum(game, heaps, deadline)
            outcome = "P" if grundy == 0 else "N"
            known_remoteness = None
        if known_remoteness is None and remoteness:
            known_remoteness = self._remoteness_of(game, heaps, deadline)
        return Value(game.game_id, position, outcome, grundy, known_remoteness, source)

    def _nim_sum(self, game: HeapGame, heaps: Heaps, deadline: float) -> tuple[int, Source]:
        total = 0
        sources: list[Source] = []
        previous = -1
        odd = False
        # Heaps are sorted: equal heaps cancel in pairs, so only sizes of odd multiplicity count.
        for heap in (*heaps, -2):
            if heap == previous:
                odd = not odd
                continue
            if odd and previous >= 0:
                value, source = self.sequences.value(game, previous, deadline)
                total ^= value
                sources.append(source)
            previous, odd = heap, True
        return total, costliest(sources)

    def _misere(
        self, game: HeapGame, heaps: Heaps, deadline: float
    ) -> tuple[Outcome, int | None, Source, int | None]:
        if isinstance(game, NimGame):
            return ("P" if misere_nim_is_p(heaps) else "N"), None, "formula", None
        if not heaps:
            return "N", None, "formula", 0
        if len(heaps) == 1:
            value, source = self.sequences.value(game, heaps[0], deadline)
            return ("P" if value == 0 else "N"), None, source, None
        budget = self._limits.search_states
        estimate = estimate_states(game, heaps)
        if estimate > _HOPELESS * budget:
            # The search could only end at its budget: say so now instead of after seconds of work.
            raise LimitExceeded(
                f"solving {game.game_id!r} position {_position_text(heaps)!r} would visit about "
                f"{estimate:.3g} positions, beyond the live search budget of {budget}"
            )
        result = self._search(game, heaps, budget, deadline)
        return result.outcome, None, "live", result.remoteness

    def _remoteness_of(self, game: HeapGame, heaps: Heaps, deadline: float) -> int | None:
        if not heaps:
            return 0
        if isinstance(game, NimGame) and not game.misere and len(heaps) == 1:
            return 1
        if isinstance(game, SubtractionGame) and len(heaps) == 1:
            return self.sequences.heap_remoteness(game, heaps[0], deadline)
        if estimate_states(game, heaps) > self._limits.remoteness_states:
            return None
        try:
            return self._search(game, heaps, self._limits.remoteness_states, deadline).remoteness
        except LimitExceeded:
            return None

    def _search(self, game: HeapGame, heaps: Heaps, budget: int, deadline: float) -> SearchResult:
        """A bounded search, its answers kept (bounded) so a repeated question costs nothing."""
        key = (game.game_id, heaps)
        known = self._solved.get(key)
        if known is not None:
            return known
        self.sequences.require_blocking_allowed()
        result = solve(game, heaps, max_states=budget, deadline=deadline)
        with self._games_lock:
            self._solved[key] = result
            while len(self._solved) > _SOLVED_CACHE_SIZE:
                self._solved.popitem(last=False)
        return result

    # -- moves ----------------------------------------------------------------------------------

    def best_move(
        self, game: str, position: str, limit: int | None = None, deadline: float | None = None
    ) -> BestMoveResult:
        if limit is not None and limit < 1:
            raise InvalidArgument(f"limit {limit} is below 1")
        if limit is not None and limit > self._limits.listed_moves:
            raise InvalidArgument(f"limit {limit} is above the maximum of {self._limits.listed_moves}")
        rules = self.game(game)
        if isinstance(rules, WythoffGame):
            return self._wythoff_best_move(position, limit)
        heaps = parse_heaps(position)
        until = self._deadline(deadline)
        return self._list_moves(
            self._value(rules, heaps, until, remoteness=True),
            count_sum_moves(rules, heaps),
            lambda: iter_sum_moves(rules, heaps),
            lambda: self._winning_moves(rules, heaps, until, limit or 1),
            lambda child, ranked: self._value(rules, child, until, remoteness=ranked),
            limit,
        )

    def _wythoff_best_move(self, position: str, limit: int | None) -> BestMoveResult:
        pairs = self.wythoff.parse(position)
        return self._list_moves(
            self.wythoff.value(pairs),
            self.wythoff.count_moves(pairs),
            lambda: self.wythoff.moves(pairs),
            lambda: self.wythoff.winning_moves(pairs),
            lambda child, _: self.wythoff.value(child),
            limit,
        )

    def _list_moves(
        self,
        value: Value,
        count: int,
        every: Callable[[], Iterable[tuple[str, P]]],
        winning: Callable[[], Iterable[tuple[str, P]]],
        evaluate: Callable[[P, bool], Value],
        limit: int | None,
    ) -> BestMoveResult:
        """Every move ranked best first when there are few; else winning moves first, then the rest
        in order, up to `limit` (the evaluation flag says whether the move list is being ranked)."""
        if count <= self._limits.ranked_moves:
            moves = [MoveValue(label, evaluate(child, True)) for label, child in every()]
            moves.sort(key=_move_rank)
            return BestMoveResult(value, moves[:limit] if limit is not None else moves)
        if limit is None:
            raise LimitExceeded(
                f"position {value.position!r} has {count} moves, more than the {self._limits.ranked_moves} "
                f"listed without a limit; pass limit (at most {self._limits.listed_moves})"
            )
        listed: list[MoveValue] = []
        seen: set[P] = set()
        for label, child in itertools.chain(winning(), every()):
            if len(listed) >= limit:
                break
            if child in seen:
                continue
            seen.add(child)
            try:
                listed.append(MoveValue(label, evaluate(child, False)))
            except LimitExceeded:
                continue  # a move whose value is beyond the limits is left out, not the whole answer
        return BestMoveResult(value, listed)

    def _winning_moves(
        self, game: HeapGame, heaps: Heaps, deadline: float, limit: int
    ) -> list[tuple[str, Heaps]]:
        if not game.misere:
            return winning_moves_normal(
                game, heaps, lambda n: self.sequences.value(game, n, deadline)[0], limit=limit
            )
        if isinstance(game, NimGame):
            total = nim_sum(heaps)
            found: list[tuple[str, Heaps]] = []
            for index, heap in enumerate(heaps):
                if index and heaps[index - 1] == heap:
                    continue
                for target in sorted(t for t in {heap ^ total, 0, 1} if t < heap):
                    left = (target,) if target else ()
                    child = apply_move(heaps, index, left)
                    if misere_nim_is_p(child):
                        found.append((format_move(heap, left), child))
            return found
        return []

    # -- sequences and stats --------------------------------------------------------------------

    def get_sequence(
        self, game: str, family: str | None, start: int, stop: int, deadline: float | None = None
    ) -> SequenceResult:
        rules = self.game(game)
        if isinstance(rules, WythoffGame):
            self._check_range(start, stop)
            values_list, row_source = self.wythoff.row(family or "row:0", start, stop)
            return SequenceResult(
                rules.game_id, family or "row:0", start, stop, values_list, None, row_source
            )
        family = family or "heap"
        if family != "heap":
            raise NotFound(f"{game!r} has no sequence family {family!r}; its family is 'heap'")
        self._check_range(start, stop)
        until = self._deadline(deadline)
        values, source = self.sequences.values(rules, start, stop, until)
        period = rules.formula_period() or self.sequences.period(rules, until, compute=True)
        return SequenceResult(rules.game_id, family, start, stop, values.tolist(), period, source)

    def _check_range(self, start: int, stop: int) -> None:
        if start < 0:
            raise InvalidArgument(f"start {start} is negative")
        if start > stop:
            raise InvalidArgument(f"start {start} is greater than stop {stop}")
        if stop - start > self._limits.sequence_values:
            raise InvalidArgument(
                f"range {start}..{stop} holds {stop - start} values; at most "
                f"{self._limits.sequence_values} are allowed in one call"
            )

    def get_stats(self, game: str) -> dict[str, object]:
        rules = self.game(game)
        if isinstance(rules, WythoffGame):
            return self._wythoff_stats()
        until = self._deadline(None)
        if self.sequences.kernel(rules) is None:
            # A closed form answers every heap (Nim): only the empty heap is a P-position, or in
            # misère play only the heap of one.
            period = rules.formula_period()
            return {
                "game": rules.game_id,
                "period": period.as_dict() if period else None,
                "computed_upto": None,
                "source": "formula",
                "p_positions": [1] if rules.misere else [0],
            }
        info = self.sequences.info(rules)
        if info is None and self.sequences.database_needed_but_down():
            raise Unavailable(f"stats of {rules.game_id!r} need the database, which is unreachable")
        if info is None or info.computed_upto == 0:
            live = self.sequences.live_values(rules)
            if len(live) == 0:
                live = self.sequences.values(rules, 0, 4096, until)[0].astype(np.uint32)
            return self._heap_stats(rules, live.astype(np.uint32), "live", until)
        # A stored table changes only when a worker extends it: its stats are computed once per size.
        key = (rules.game_id, info.computed_upto)
        stats = self._stats.get(key)
        if stats is None:
            values, _ = self.sequences.values(rules, 0, info.computed_upto, until)
            stats = self._heap_stats(rules, values.astype(np.uint32), "table", until)
            self._stats[key] = stats
            while len(self._stats) > _STATS_CACHE_SIZE:
                self._stats.popitem(last=False)
        return stats

    def _heap_stats(
        self, rules: HeapGame, values: NDArray[np.uint32], source: Source, deadline: float
    ) -> dict[str, object]:
        """What GetStats reports of a computed prefix g(0..n-1) of a heap game."""
        period = rules.formula_period() or self.sequences.period(rules, deadline, compute=True)
        observe = getattr(self.sequences.kernel(rules), "observe", None)
        if period is None and callable(observe):
            # A regularity the values show, reported as such (certified: false), never used to answer.
            seen = observe(values)
            period = seen if isinstance(seen, Period) else None
        p_positions = np.flatnonzero(values == 0).tolist()
        listed = len(p_positions) <= self._limits.stats_p_positions
        stats: dict[str, object] = {
            "game": rules.game_id,
            "period": period.as_dict() if period else None,
            "source": source,
            "computed_upto": len(values),
            "max_value": int(values.max()) if len(values) else None,
            "max_value_at": int(values.argmax()) if len(values) else None,
            "p_positions": p_positions if listed else len(p_positions),
            "p_positions_count": len(p_positions),
            "rare_mask": None,
            "rare_count": None,
            "last_rare_at": None,
        }
        sparse_rules = getattr(rules, "rules", None) if rules.splits else None
        if sparse_rules is not None and len(values):
            how = choose_sparseness(values, sparse_rules.two)
            stats.update(
                rare_mask=how.mask, rare_count=rare_count(values, how), last_rare_at=last_rare_at(values, how)
            )
        return stats

    def _wythoff_stats(self) -> dict[str, object]:
        side = self.wythoff.stored_side()
        p_pairs = 0
        rank = 0
        while True:
            lower = self.wythoff.p_pair(rank)
            if lower[1] >= side:
                break
            p_pairs += 1
            rank += 1
        return {
            "game": "wythoff",
            "table_side": side,
            "computed_upto": side * side,
            "live_side": self.wythoff.largest_answerable() + 1,
            "p_positions": p_pairs,
            "period": None,
        }

    # -- jobs -----------------------------------------------------------------------------------

    def _authorize(self, token: str | None) -> None:
        expected = self._settings.admin_token
        if expected is None:
            raise PermissionDenied("job submission is disabled: the server has no NIMBASE_ADMIN_TOKEN")
        if not token:
            raise Unauthenticated("an admin token is required: send 'authorization: Bearer <token>'")
        if not hmac.compare_digest(token.encode(), expected.encode()):
            raise PermissionDenied("the admin token is wrong")

    def _queue(self) -> JobQueue:
        if self._jobs is None:
            raise Unavailable("this server runs without a database; jobs are unavailable")
        return self._jobs

    def submit_job(self, token: str | None, game: str, upto: int, fill: bool = False) -> JobView:
        self._authorize(token)
        plan = plan_job(self.game(game), upto, fill)
        queue = self._queue()
        job = self._gate.call(lambda: queue.submit(plan.game_id, plan.family, plan.values, fill=plan.fill))
        return _job_view(job)

    def get_job(self, job_id: int) -> JobView:
        queue = self._queue()
        job = self._gate.call(lambda: queue.get(job_id))
        if job is None:
            raise NotFound(f"no job {job_id}")
        return _job_view(job)

    def list_jobs(self, limit: int = 100) -> list[JobView]:
        if limit < 1:
            raise InvalidArgument(f"limit {limit} is below 1")
        queue = self._queue()
        return [_job_view(job) for job in self._gate.call(lambda: queue.list(limit=min(limit, 1000)))]

    def cancel_job(self, token: str | None, job_id: int) -> JobView:
        self._authorize(token)
        queue = self._queue()
        job = self._gate.call(lambda: queue.cancel(job_id))
        if job is None:
            raise NotFound(f"no job {job_id}")
        return _job_view(job)

    def health(self) -> Health:
        engine = self._engine
        if engine is None:
            return Health(database=False, details={"database": "not configured"})

        def ping() -> bool:
            try:
                with engine.connect() as connection:
                    connection.execute(text("select 1"))
            except OperationalError as error:
                raise StorageUnavailable(str(error)) from error
            return True

        try:
            return Health(database=self._gate.call(ping))
        except StorageUnavailable:
            return Health(database=False, details={"database": "unreachable"})


def _position_text(heaps: Heaps) -> str:
    """The canonical text of heaps that are already canonical (sorted, no zeros)."""
    return " ".join(map(str, heaps))


def _move_rank(move: MoveValue) -> tuple[int, int, str]:
    """Best first: moves to P-positions (fastest win first), then the slowest loss; ties by text."""
    value = move.value
    if value.outcome == "P":
        return (0, value.remoteness if value.remoteness is not None else 1 << 62, move.move)
    return (1, -(value.remoteness if value.remoteness is not None else -1), move.move)
