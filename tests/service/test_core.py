"""The service layer in-process: a real `Nimbase` over the test PostgreSQL, its methods called directly.

Every value is checked against brute-force oracles written here (exhaustive mex computations and
searches over small positions), never against the engine's own functions. Tables are stored by
running a real `Worker` until idle, after which the same service must answer from them.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal, localcontext
from functools import cache, reduce
from operator import xor

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import (
    InvalidArgument,
    InvalidGameId,
    InvalidPosition,
    LimitExceeded,
    NimbaseError,
    NotApplicable,
    UnknownFamily,
    UnknownGame,
)
from engine.periods import Period
from engine.values import MoveValue, Value
from kinds.heaps.base import HeapMove
from kinds.wythoff.kind import WythoffMove
from nimbase.settings import DEFAULT_LIMITS, Limits, Settings
from service.calls import (
    BatchGetValues,
    BestMove,
    CancelJob,
    GetJob,
    GetSequence,
    GetStats,
    GetValue,
    IsPPosition,
    JobPage,
    SubmitJob,
)
from service.core import Nimbase
from service.errors import NotFound, PermissionDenied, Unauthenticated
from storage.schema import DATA_TABLES
from worker.runner import Worker

TOKEN = "service-test-token"
LIMITS = Limits(
    live_values=1 << 16,
    batch_positions=500,
    sequence_values=5000,
    listed_moves=100,
    stats_p_positions=2000,
    request_seconds=30.0,
)
SUB = "subtraction:1,3,4"
MAX_HEAP = 2**63 - 1

Position = tuple[int, ...]
Options = Callable[[int], Iterable[Position]]


# ---- brute-force oracles ---------------------------------------------------------------------------


def mex(values: Iterable[int]) -> int:
    seen = set(values)
    g = 0
    while g in seen:
        g += 1
    return g


def nim_options(n: int) -> list[Position]:
    return [(k,) if k else () for k in range(n)]


def subtraction_options(moves: tuple[int, ...]) -> Options:
    def options(n: int) -> list[Position]:
        return [(n - s,) if s < n else () for s in moves if s <= n]

    return options


def kayles_options(n: int) -> list[Position]:
    """Octal 0.77: remove one or two adjacent pins, leaving no row, one row or two rows."""
    out: list[Position] = []
    for removed in (1, 2):
        for left in range(n - removed + 1):
            right = n - removed - left
            out.append(tuple(sorted(h for h in (left, right) if h)))
    return out


def grundy_game_options(n: int) -> list[Position]:
    """Split a heap into two unequal non-empty heaps."""
    return [(a, n - a) for a in range(1, n) if a < n - a]


RULES: dict[str, Options] = {
    "nim": nim_options,
    SUB: subtraction_options((1, 3, 4)),
    "subtraction:2,5,7": subtraction_options((2, 5, 7)),
    "octal:0.77": kayles_options,
    "grundy": grundy_game_options,
}


@cache
def single(game: str, stop: int) -> tuple[int, ...]:
    """g(0..stop-1) of a heap game by the mex rule over every option."""
    g: list[int] = []
    for n in range(stop):
        g.append(mex(reduce(xor, (g[h] for h in option), 0) for option in RULES[game](n)))
    return tuple(g)


def nim_sum(values: Iterable[int]) -> int:
    return reduce(xor, values, 0)


def canonical(heaps: Iterable[int]) -> Position:
    return tuple(sorted(h for h in heaps if h))


def text(heaps: Iterable[int]) -> str:
    return " ".join(map(str, canonical(heaps)))


def solver(options: Options, misere: bool) -> Callable[[Position], tuple[str, int]]:
    """Outcome and remoteness (Steinhaus: the winner hurries, the loser delays) of heap sums."""

    @cache
    def solve(position: Position) -> tuple[str, int]:
        children = {
            canonical(position[:i] + position[i + 1 :] + option)
            for i, heap in enumerate(position)
            for option in options(heap)
        }
        if not children:
            return ("N" if misere else "P"), 0
        found = [solve(child) for child in children]
        losing = [r for outcome, r in found if outcome == "P"]
        if losing:
            return "N", 1 + min(losing)
        return "P", 1 + max(r for _, r in found)

    return solve


def heap_children(options: Options, position: Position) -> set[tuple[int, Position, Position]]:
    """(heap moved, what replaced it, position reached) for every move of a sum."""
    return {
        (heap, option, canonical(position[:i] + position[i + 1 :] + option))
        for i, heap in enumerate(position)
        for option in options(heap)
    }


@cache
def wythoff_oracle(side: int) -> tuple[tuple[int, ...], ...]:
    """g(a, b) for a, b < side, the mex over every move of Wythoff's game."""
    g = [[0] * side for _ in range(side)]
    for a in range(side):
        for b in range(side):
            seen = {g[a - k][b] for k in range(1, a + 1)} | {g[a][b - k] for k in range(1, b + 1)}
            seen |= {g[a - k][b - k] for k in range(1, min(a, b) + 1)}
            g[a][b] = mex(seen)
    return tuple(map(tuple, g))


@cache
def wythoff_p_pairs(side: int) -> frozenset[tuple[int, int]]:
    """The P-pairs (a_n, a_n + n) below `side`, built greedily: a_n is the least number not yet used."""
    pairs: set[tuple[int, int]] = set()
    used: set[int] = set()
    for n in itertools.count():
        a = mex(used)
        if a + n >= side:
            return frozenset(pairs)
        pairs.add((a, a + n))
        used |= {a, a + n}
    raise AssertionError("unreachable")


def wythoff_moves(a: int, b: int) -> set[tuple[int, int]]:
    """The pairs one move of Wythoff's game reaches from (a, b), each sorted."""
    out = {(min(a - k, b), max(a - k, b)) for k in range(1, a + 1)}
    out |= {(min(a, b - k), max(a, b - k)) for k in range(1, b + 1)}
    return out | {(a - k, b - k) for k in range(1, min(a, b) + 1)}


def floor_phi(n: int) -> int:
    """floor(n * golden ratio) with 80 significant digits (exact for the n used here)."""
    with localcontext() as ctx:
        ctx.prec = 80
        return int(Decimal(n) * (1 + Decimal(5).sqrt()) / 2)


def is_big_p_pair(a: int, b: int) -> bool:
    a, b = min(a, b), max(a, b)
    return floor_phi(b - a) == a


# ---- fixtures and helpers --------------------------------------------------------------------------


@pytest.fixture
def service(clean_db: sa.Engine) -> Nimbase:
    return Nimbase(Settings(admin_token=TOKEN, limits=LIMITS), clean_db)


def run_worker(engine: sa.Engine) -> None:
    Worker(engine, worker_id="service-test-worker", poll_seconds=0).run_until_idle(threading.Event())


def row_counts(engine: sa.Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {
            table.name: int(conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())
            for table in DATA_TABLES
        }


def values_only(items: Sequence[Value | NimbaseError]) -> list[Value]:
    assert all(isinstance(item, Value) for item in items), items
    return [item for item in items if isinstance(item, Value)]


def check_moves(moves: list[MoveValue], expected: dict[str, tuple[int, list[int], int]]) -> None:
    """Every move once, with its record and the Grundy value of the position it reaches; winning first.

    `expected` maps the reached position's text to (heap moved, what replaced it, its Grundy value).
    """
    assert len(moves) == len(expected)
    seen: set[str] = set()
    for move in moves:
        heap, to, grundy = expected[move.value.position]
        assert move.kind == HeapMove(heap, tuple(to))
        assert move.as_dict()["heap"] == heap and move.as_dict()["to"] == to
        assert move.move == f"{heap} -> {'+'.join(map(str, to)) if to else 0}"
        assert move.value.grundy == grundy
        assert move.value.outcome == ("P" if grundy == 0 else "N")
        seen.add(move.value.position)
    assert seen == set(expected)
    outcomes = [m.value.outcome for m in moves]
    assert outcomes == sorted(outcomes, key=lambda o: o != "P"), "moves to P-positions come first"


def expected_heap_moves(game: str, position: Position) -> dict[str, tuple[int, list[int], int]]:
    g = single(game, max(position) + 1)
    return {
        text(child): (heap, list(option), nim_sum(g[h] for h in child))
        for heap, option, child in heap_children(RULES[game], position)
    }


# ---- settings --------------------------------------------------------------------------------------


def test_settings_defaults_do_not_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NIMBASE_ADMIN_TOKEN", "from-the-environment")
    monkeypatch.setenv("NIMBASE_LIMITS_LIVE_VALUES", "5")
    defaults = Settings()
    assert defaults.admin_token is None and defaults.limits == DEFAULT_LIMITS
    configured = Settings(admin_token=TOKEN, limits=LIMITS)
    assert configured.admin_token == TOKEN and configured.limits.batch_positions == 500


# ---- values ----------------------------------------------------------------------------------------


def test_nim_values_outcomes_and_remoteness(service: Nimbase) -> None:
    g = single("nim", 8)
    solve = solver(nim_options, misere=False)
    for heaps in itertools.combinations_with_replacement(range(8), 3):
        position = canonical(heaps)
        value = service.get_value(GetValue("nim", " ".join(map(str, heaps))))
        outcome, remoteness = solve(position)
        expected = (text(heaps), outcome, nim_sum(g[h] for h in heaps), remoteness, "formula")
        assert (value.position, value.outcome, value.grundy, value.remoteness, value.source) == expected
        assert service.is_p_position(IsPPosition("nim", text(heaps))).outcome == outcome
    assert service.get_value(GetValue("nim", "5")).remoteness == 1
    assert service.get_value(GetValue("nim", "")).remoteness == 0
    huge = service.get_value(GetValue("nim", f"3 5 {10**18} {MAX_HEAP}"))
    assert (huge.grundy, huge.source) == (3 ^ 5 ^ 10**18 ^ MAX_HEAP, "formula")
    batch = values_only(service.batch_get_values(BatchGetValues("nim", ["0", "1 1", "3 5 6", "2 7 7"])))
    assert [(v.position, v.outcome, v.grundy) for v in batch] == [
        ("", "P", 0),
        ("1 1", "P", 0),
        ("3 5 6", "P", 0),
        ("2 7 7", "N", 2),
    ]


def test_nim_best_move_lists_every_move_with_its_fields(service: Nimbase) -> None:
    result = service.best_move(BestMove("nim", "3 5 7"))
    assert result.value.grundy == 1
    check_moves(result.moves, expected_heap_moves("nim", (3, 5, 7)))
    assert {m.move for m in result.moves if m.value.outcome == "P"} == {"3 -> 2", "5 -> 4", "7 -> 6"}
    big = 10**12
    # Too many moves to rank: refused without a limit, winning moves first with one.
    with pytest.raises(LimitExceeded):
        service.best_move(BestMove("nim", f"3 5 {big}"))
    limited = service.best_move(BestMove("nim", f"3 5 {big}", 3))
    assert len(limited.moves) == 3
    first = limited.moves[0]
    assert first.kind == HeapMove(big, (6,)) and first.move == f"{big} -> 6"
    assert (first.value.position, first.value.outcome, first.value.grundy) == ("3 5 6", "P", 0)


def test_misere_nim_matches_exhaustive_search(service: Nimbase) -> None:
    solve = solver(nim_options, misere=True)
    for heaps in itertools.combinations_with_replacement(range(5), 4):
        value = service.get_value(GetValue("nim:misere", " ".join(map(str, heaps))))
        outcome, remoteness = solve(canonical(heaps))
        assert (value.position, value.outcome, value.grundy) == (text(heaps), outcome, None)
        assert value.remoteness == remoteness
        assert service.is_p_position(IsPPosition("nim:misere", text(heaps))).outcome == outcome
    big = 10**18
    assert service.get_value(GetValue("nim:misere", f"2 2 {big} {big}")).outcome == "P"
    assert service.get_value(GetValue("nim:misere", "1 1 1")).outcome == "P"
    assert service.get_value(GetValue("nim:misere", f"1 1 {big}")).outcome == "N"
    best = service.best_move(BestMove("nim:misere", "1 2 4"))
    assert best.value.outcome == "N"
    assert [m.value.outcome for m in best.moves] == [
        solve(canonical(map(int, m.value.position.split())))[0] for m in best.moves
    ]
    assert [m.move for m in best.moves if m.value.outcome == "P"] == ["4 -> 3"]


def test_subtraction_answers_live_then_from_the_stored_table(service: Nimbase, clean_db: sa.Engine) -> None:
    g = single(SUB, 3000)
    assert all(g[n] == g[n - 7] for n in range(7, 3000)), "the oracle's own period, used for huge heaps"
    solve = solver(RULES[SUB], misere=False)

    first = service.get_value(GetValue(SUB, "100"))
    assert (first.grundy, first.outcome, first.source) == (g[100], "P" if g[100] == 0 else "N", "live")
    for n in range(60):
        value = service.get_value(GetValue(SUB, str(n)))
        assert (value.grundy, value.remoteness) == (g[n], solve(canonical((n,)))[1])
        assert value.source in (("formula",) if n == 0 else ("live", "period"))
        assert service.is_p_position(IsPPosition(SUB, str(n))).outcome == ("P" if g[n] == 0 else "N")
    batch = service.batch_get_values(BatchGetValues(SUB, ["10 11 12", "3 x", "7 7", "", "2 9 33"]))
    assert isinstance(batch[1], InvalidPosition) and "'3 x'" in str(batch[1])
    good = [batch[i] for i in (0, 2, 3, 4)]
    assert [v.grundy for v in values_only(good)] == [g[10] ^ g[11] ^ g[12], 0, 0, g[2] ^ g[9] ^ g[33]]
    check_moves(service.best_move(BestMove(SUB, "5 9")).moves, expected_heap_moves(SUB, (5, 9)))

    job = service.submit_job(SubmitJob(SUB, 3000, True, token=TOKEN)).job
    assert (job.game, job.family, job.upto, job.fill, job.status) == (SUB, "heap", 3000, True, "queued")
    run_worker(clean_db)
    assert service.get_job(GetJob(job.id)).status == "done"
    service.tables.forget(SUB)  # skip the few seconds a cached table header lives

    for n in (1, 100, 2345, 2999):
        value = service.get_value(GetValue(SUB, str(n)))
        assert (value.grundy, value.source) == (g[n], "table")
    for n in (3000, 10**15 + 3, MAX_HEAP):
        value = service.get_value(GetValue(SUB, str(n)))
        assert (value.grundy, value.source) == (g[n % 7], "period")
    mixed = values_only(service.batch_get_values(BatchGetValues(SUB, [str(n) for n in range(2990, 3010)])))
    assert [v.grundy for v in mixed] == [g[n % 7] for n in range(2990, 3010)]
    assert [v.source for v in mixed] == ["table"] * 10 + ["period"] * 10
    assert service.get_value(GetValue(SUB, "100 2999")).source == "table"
    assert service.get_value(GetValue(SUB, f"100 {10**15 + 3}")).grundy == g[100] ^ g[(10**15 + 3) % 7]
    assert service.get_value(GetValue(SUB, f"100 {10**15 + 3}")).source == "period"
    check_moves(service.best_move(BestMove(SUB, "5 9 2000")).moves, expected_heap_moves(SUB, (5, 9, 2000)))


def test_misere_subtraction_matches_exhaustive_search(service: Nimbase) -> None:
    game = SUB + ":misere"
    solve = solver(RULES[SUB], misere=True)
    for n in range(40):
        value = service.get_value(GetValue(game, str(n)))
        assert (value.outcome, value.grundy) == (solve(canonical((n,)))[0], None)
    for heaps in itertools.combinations_with_replacement(range(9), 3):
        value = service.get_value(GetValue(game, " ".join(map(str, heaps))))
        outcome, remoteness = solve(canonical(heaps))
        assert (value.position, value.outcome, value.grundy) == (text(heaps), outcome, None)
        assert value.remoteness == remoteness


def test_kayles_values_and_huge_heaps_by_period(service: Nimbase) -> None:
    game = "octal:0.77"
    g = single(game, 400)
    # Kayles (octal 0.77): period 12 from heap 71 on, the last exception at 70; the oracle shows it.
    assert all(g[n] == g[n - 12] for n in range(83, 400)) and g[70] != g[82]
    values = values_only(service.batch_get_values(BatchGetValues(game, [str(n) for n in range(400)])))
    assert [v.grundy for v in values] == list(g)
    assert values[0].source == "formula" and {v.source for v in values[1:]} <= {"live", "period"}
    for n in (10**18, 10**18 + 1, 10**18 + 5, MAX_HEAP):
        value = service.get_value(GetValue(game, str(n)))
        assert (value.grundy, value.source) == (g[71 + (n - 71) % 12], "period")
    assert (
        service.get_value(GetValue(game, f"5 17 {10**18}")).grundy
        == g[5] ^ g[17] ^ g[71 + (10**18 - 71) % 12]
    )
    check_moves(service.best_move(BestMove(game, "7")).moves, expected_heap_moves(game, (7,)))
    check_moves(service.best_move(BestMove(game, "3 6")).moves, expected_heap_moves(game, (3, 6)))


def test_grundys_game_values_and_splits(service: Nimbase) -> None:
    g = single("grundy", 150)
    values = values_only(service.batch_get_values(BatchGetValues("grundy", [str(n) for n in range(150)])))
    assert [v.grundy for v in values] == list(g)
    for heaps in [(7, 4), (3, 5, 13), (20, 20), (100, 149)]:
        assert service.get_value(GetValue("grundy", " ".join(map(str, heaps)))).grundy == nim_sum(
            g[h] for h in heaps
        )
    assert service.is_p_position(IsPPosition("grundy", "2")).outcome == "P"
    check_moves(service.best_move(BestMove("grundy", "9")).moves, expected_heap_moves("grundy", (9,)))


def test_wythoff_pairs_and_sums(service: Nimbase, clean_db: sa.Engine) -> None:
    side = 40
    g = wythoff_oracle(side)
    p_pairs = wythoff_p_pairs(side)
    cells = [(a, b) for a in range(side) for b in range(a, side)]
    assert {cell for cell in cells if g[cell[0]][cell[1]] == 0} == p_pairs
    for start in range(0, len(cells), 400):
        chunk = cells[start : start + 400]
        answers = values_only(
            service.batch_get_values(BatchGetValues("wythoff", [f"{b},{a}" for a, b in chunk]))
        )
        for (a, b), value in zip(chunk, answers, strict=True):
            assert value.position == (f"{a},{b}" if (a, b) != (0, 0) else "")
            assert (value.grundy, value.outcome) == (g[a][b], "P" if (a, b) in p_pairs else "N")
    for a, b in cells[:300]:
        assert service.is_p_position(IsPPosition("wythoff", f"{a},{b}")).outcome == (
            "P" if (a, b) in p_pairs else "N"
        )
    for pairs in [((3, 5), (4, 7)), ((1, 2), (6, 10)), ((7, 2), (5, 5), (8, 13)), ((10, 3), (4, 4))]:
        value = service.get_value(GetValue("wythoff", " ".join(f"{a},{b}" for a, b in pairs)))
        assert value.grundy == nim_sum(g[min(p)][max(p)] for p in pairs)
        assert value.position == " ".join(
            f"{min(p)},{max(p)}" for p in sorted(tuple(sorted(p)) for p in pairs)
        )

    # Pairs far beyond any table: P exactly at Wythoff pairs, found in closed form.
    rank = 10**15
    low = floor_phi(rank)
    at_p = service.get_value(GetValue("wythoff", f"{low},{low + rank}"))
    assert (at_p.outcome, at_p.grundy, at_p.source) == ("P", 0, "formula")
    beside = service.get_value(GetValue("wythoff", f"{low},{low + rank + 1}"))
    assert (beside.outcome, beside.grundy) == ("N", None)
    assert service.get_value(GetValue("wythoff", f"1,2 {low},{low + rank}")).outcome == "P"
    win = service.best_move(BestMove("wythoff", f"{low},{low + rank + 1}", 1)).moves
    assert len(win) == 1 and win[0].value.outcome == "P"
    record = win[0].kind
    assert isinstance(record, WythoffMove) and record.pair == (low, low + rank + 1)
    assert is_big_p_pair(*record.to)

    result = service.best_move(BestMove("wythoff", "4,6"))
    expected = wythoff_moves(4, 6)
    assert len(result.moves) == len(expected)
    for move in result.moves:
        c, d = map(int, move.move.split(" -> ")[1].split(","))
        assert move.kind == WythoffMove((4, 6), (c, d))
        assert (c, d) in expected and move.value.grundy == g[c][d]
    assert {m.kind.to for m in result.moves if isinstance(m.kind, WythoffMove)} == expected
    assert [m for m in result.moves if m.value.outcome == "P"] == result.moves[:1]
    assert result.moves[0].kind == WythoffMove((4, 6), (3, 5))

    assert service.get_stats(GetStats("wythoff"))["table_side"] == 0
    job = service.submit_job(SubmitJob("wythoff", 256, token=TOKEN)).job
    assert job.family == "pairs"
    run_worker(clean_db)
    service.tables.forget("wythoff")
    stats = service.get_stats(GetStats("wythoff"))
    assert (stats["table_side"], stats["computed_upto"]) == (256, 256 * 256)
    assert stats["p_positions"] == len(wythoff_p_pairs(256))
    assert (
        service.get_value(GetValue("wythoff", "5,9")).grundy,
        service.get_value(GetValue("wythoff", "5,9")).source,
    ) == (
        g[5][9],
        "table",
    )
    assert service.get_value(GetValue("wythoff", "9,5 2,1")).source == "table"


# ---- sequences and stats ---------------------------------------------------------------------------


def test_sequences_of_every_family(service: Nimbase) -> None:
    nim = service.get_sequence(GetSequence("nim", None, 0, 20))
    assert (nim.family, nim.values, nim.period) == ("heap", list(range(20)), Period(0, 1, 1, True))
    g = single(SUB, 3000)
    sub = service.get_sequence(GetSequence(SUB, "heap", 0, 3000))
    assert (sub.values, sub.period) == (list(g), Period(0, 7, 0, True))
    far = service.get_sequence(GetSequence(SUB, None, 10**12, 10**12 + 14))
    assert (far.values, far.source) == ([g[n % 7] for n in range(10**12, 10**12 + 14)], "period")
    k = single("octal:0.77", 400)
    kayles = service.get_sequence(GetSequence("octal:0.77", "heap", 0, 400))
    assert kayles.values == list(k)
    assert kayles.period is not None and kayles.period.certified and kayles.period.period == 12
    assert all(k[n] == k[n - 12] for n in range(kayles.period.preperiod + 12, 400))
    assert service.get_sequence(GetSequence("grundy", None, 0, 150)).values == list(single("grundy", 150))
    w = wythoff_oracle(40)
    assert service.get_sequence(GetSequence("wythoff", None, 0, 40)).values == list(range(40))
    row = service.get_sequence(GetSequence("wythoff", "row:3", 0, 40))
    assert (row.family, row.values) == ("row:3", [w[min(3, n)][max(3, n)] for n in range(40)])

    for game, family in [("wythoff", "pairs"), ("wythoff", "heap"), (SUB, "pairs"), ("nim", "row:0")]:
        with pytest.raises(UnknownFamily) as caught:
            service.get_sequence(GetSequence(game, family, 0, 5))
        assert caught.value.code == "NOT_FOUND" and repr(family) in str(caught.value)
    for start, stop in [(5, 4), (-1, 3), (0, LIMITS.sequence_values + 1)]:
        with pytest.raises(InvalidArgument):
            service.get_sequence(GetSequence(SUB, None, start, stop))


HEAP_STATS = {
    "game",
    "period",
    "source",
    "computed_upto",
    "max_value",
    "max_value_at",
    "p_positions",
    "p_positions_count",
    "rare_mask",
    "rare_count",
    "last_rare_at",
    "pending",
}


def test_stats(service: Nimbase) -> None:
    assert service.get_stats(GetStats("nim")) == {
        "game": "nim",
        "period": {"preperiod": 0, "period": 1, "saltus": 1, "certified": True},
        "computed_upto": None,
        "source": "formula",
        "p_positions": [0],
        "pending": [],
    }
    assert service.get_stats(GetStats("nim:misere"))["p_positions"] == [1]

    stats = service.get_stats(GetStats(SUB))
    assert set(stats) == HEAP_STATS
    upto = stats["computed_upto"]
    assert isinstance(upto, int) and upto >= 1000
    g = single(SUB, upto)
    zeros = [n for n in range(upto) if g[n] == 0]
    assert stats["p_positions"] == zeros and stats["p_positions_count"] == len(zeros)
    assert (stats["max_value"], stats["max_value_at"], stats["source"]) == (3, 5, "live")
    assert stats["period"] == {"preperiod": 0, "period": 7, "saltus": 0, "certified": True}
    assert stats["rare_count"] is None

    grundy = service.get_stats(GetStats("grundy"))
    assert set(grundy) == HEAP_STATS
    assert isinstance(grundy["rare_count"], int) and isinstance(grundy["rare_mask"], int)
    listed = grundy["p_positions"]
    oracle = single("grundy", 150)
    assert isinstance(listed, list) and [n for n in listed if n < 150] == [
        n for n in range(150) if oracle[n] == 0
    ]

    wythoff = service.get_stats(GetStats("wythoff"))
    assert (wythoff["table_side"], wythoff["computed_upto"], wythoff["p_positions"]) == (0, 0, 0)


# ---- jobs ------------------------------------------------------------------------------------------


def test_jobs_submit_get_list_cancel(service: Nimbase, clean_db: sa.Engine) -> None:
    with pytest.raises(Unauthenticated):
        service.submit_job(SubmitJob(SUB, 100, token=None))
    with pytest.raises(Unauthenticated):
        service.submit_job(SubmitJob(SUB, 100, token=""))
    with pytest.raises(PermissionDenied):
        service.submit_job(SubmitJob(SUB, 100, token="wrong"))
    with pytest.raises(PermissionDenied):
        Nimbase(Settings(limits=LIMITS), clean_db).submit_job(SubmitJob(SUB, 100, token=TOKEN))
    assert service.job_page(JobPage())[0] == []

    first = service.submit_job(SubmitJob(SUB, 5000, token=TOKEN)).job
    second = service.submit_job(SubmitJob("octal:0.77", 1000, True, token=TOKEN)).job
    assert [j.id for j in service.job_page(JobPage())[0]] == [second.id, first.id]
    assert [j.id for j in service.job_page(JobPage(1))[0]] == [second.id]
    got = service.get_job(GetJob(first.id))
    assert (got.game, got.family, got.upto, got.fill, got.status) == (SUB, "heap", 5000, False, "queued")
    assert (got.done, got.total, got.error, got.started_at, got.finished_at) == (0, 5000, None, None, None)
    assert got.created_at and got.as_dict()["progress"] == {"done": 0, "total": 5000}

    with pytest.raises(Unauthenticated):
        service.cancel_job(CancelJob(first.id, token=None))
    with pytest.raises(PermissionDenied):
        service.cancel_job(CancelJob(first.id, token="wrong"))
    assert service.get_job(GetJob(first.id)).status == "queued"
    cancelled = service.cancel_job(CancelJob(first.id, token=TOKEN))
    assert cancelled.status == "cancelled" and cancelled.finished_at is not None
    assert service.cancel_job(CancelJob(first.id, token=TOKEN)).status == "cancelled"
    with pytest.raises(NotFound):
        service.get_job(GetJob(10**9))
    with pytest.raises(NotFound):
        service.cancel_job(CancelJob(10**9, token=TOKEN))

    run_worker(clean_db)
    done = service.get_job(GetJob(second.id))
    assert (done.status, done.done, done.total, done.error) == ("done", 1000, 1000, None)
    assert done.started_at is not None and done.finished_at is not None
    assert service.get_job(GetJob(first.id)).status == "cancelled"


def test_bad_inputs_never_change_stored_data(service: Nimbase, clean_db: sa.Engine) -> None:
    service.submit_job(SubmitJob(SUB, 2000, True, token=TOKEN))
    run_worker(clean_db)
    queued = service.submit_job(SubmitJob("octal:0.77", 500, token=TOKEN)).job
    before = row_counts(clean_db)
    assert before["sequences"] == 1 and before["sequence_chunks"] == 1 and before["jobs"] == 2
    jobs_before = [j.as_dict() for j in service.job_page(JobPage())[0]]

    failures: list[tuple[Callable[[], object], type[NimbaseError], str]] = [
        (lambda: service.get_value(GetValue(SUB, "3 x 5")), InvalidPosition, "'3 x 5'"),
        (lambda: service.get_value(GetValue(SUB, "-1")), InvalidPosition, "'-1'"),
        (lambda: service.is_p_position(IsPPosition("wythoff", "3;5")), InvalidPosition, "'3;5'"),
        (lambda: service.best_move(BestMove(SUB, "12 y")), InvalidPosition, "'12 y'"),
        (lambda: service.get_value(GetValue("go", "1")), UnknownGame, "'go'"),
        (lambda: service.get_stats(GetStats("go")), UnknownGame, "'go'"),
        (lambda: service.get_value(GetValue("subtraction:0,2", "1")), InvalidGameId, "subtraction:0,2"),
        (lambda: service.best_move(BestMove(SUB, "5", 0)), InvalidArgument, "limit 0"),
        (lambda: service.best_move(BestMove(SUB, "5", LIMITS.listed_moves + 1)), InvalidArgument, "limit"),
        (lambda: service.job_page(JobPage(0))[0], InvalidArgument, "limit 0"),
        (
            lambda: service.batch_get_values(BatchGetValues(SUB, ["1"] * (LIMITS.batch_positions + 1))),
            InvalidArgument,
            "501",
        ),
        (lambda: service.get_sequence(GetSequence(SUB, None, 9, 3)), InvalidArgument, "start 9"),
        (lambda: service.submit_job(SubmitJob("nim", 10, token=TOKEN)), NotApplicable, "'nim'"),
        (lambda: service.submit_job(SubmitJob(SUB, 0, token=TOKEN)), InvalidArgument, "upto 0"),
        (lambda: service.submit_job(SubmitJob("go", 10, token=TOKEN)), UnknownGame, "'go'"),
        (lambda: service.submit_job(SubmitJob(SUB, 10, token=None)), Unauthenticated, "token"),
        (lambda: service.cancel_job(CancelJob(queued.id, token="wrong")), PermissionDenied, "token"),
        (lambda: service.get_job(GetJob(10**9)), NotFound, str(10**9)),
    ]
    for call, error, quoted in failures:
        with pytest.raises(error) as caught:
            call()
        assert quoted in str(caught.value)
        assert caught.value.code == error.code

    assert row_counts(clean_db) == before
    assert [j.as_dict() for j in service.job_page(JobPage())[0]] == jobs_before
    assert service.get_value(GetValue(SUB, "1999")).source == "table"


# ---- a property ------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    game=st.sampled_from(["nim", SUB, "subtraction:2,5,7", "octal:0.77"]),
    heaps=st.lists(st.integers(0, 60), max_size=6),
)
def test_small_sums_match_the_oracle(service: Nimbase, game: str, heaps: list[int]) -> None:
    g = single(game, 61)
    total = nim_sum(g[h] for h in heaps)
    value = service.get_value(GetValue(game, " ".join(map(str, heaps))))
    assert (value.position, value.outcome, value.grundy) == (text(heaps), "P" if total == 0 else "N", total)
    [batched] = values_only(
        service.batch_get_values(BatchGetValues(game, [" ".join(map(str, reversed(heaps)))]))
    )
    assert (batched.position, batched.grundy) == (value.position, total)
