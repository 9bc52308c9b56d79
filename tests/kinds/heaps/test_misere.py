"""Misère quotients against a brute-force search written apart (its own move rules from the octal code,
its own memoised recursion over sorted sums), the published values, and the served kind's answers."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Hashable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar, cast

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidArgument, InvalidGameId, LimitExceeded, NimbaseError
from engine.kind import Context
from engine.positions import MAX_HEAPS
from engine.registry import parse_game_id
from engine.values import Value
from kinds.heaps.misere import MisereHeapGame, Quotient
from kinds.heaps.misere.construct import Construction, OutOfTime, StoppedInTime, _Walk, certify, compute
from kinds.heaps.misere.fold import fold_kernel, fold_reference
from kinds.heaps.misere.stored import QUOTIENT, QUOTIENTS, QuotientKernel
from tests.engine.contexts import StoredWords, engine_context, kind_settings

T = TypeVar("T")
DATA = Path(__file__).resolve().parents[2] / "data" / "misere_quotients.json"

# -- the brute force (no code shared with kinds.heaps) ------------------------------------------------


def _moves_of(code: str) -> Callable[[int], list[tuple[int, ...]]]:
    """Options of one heap under an octal code, or Grundy's game for "grundy"."""
    if code == "grundy":
        return lambda n: [(a, n - a) for a in range(1, n) if a < n - a]
    head, tail = code.split(".")
    digits = [int(head)] + [int(d) for d in tail]

    def options(n: int) -> list[tuple[int, ...]]:
        out: list[tuple[int, ...]] = []
        for k, d in enumerate(digits):
            if k > n:
                break
            if d & 1 and k == n and k > 0:
                out.append(())
            if d & 2 and 0 < k < n:
                out.append((n - k,))
            if d & 4:
                for a in range(1, n - k):
                    out.append((a, n - k - a))
        return out

    return options


@cache  # one memo a game, shared by every example
def brute_is_p(code: str) -> Callable[[tuple[int, ...]], bool]:
    options = _moves_of(code)

    @cache
    def is_p(position: tuple[int, ...]) -> bool:
        moved = False
        for i, heap in enumerate(position):
            if i and position[i - 1] == heap:
                continue
            for option in options(heap):
                moved = True
                child = tuple(sorted(position[:i] + position[i + 1 :] + tuple(h for h in option if h)))
                if is_p(child):
                    return False
        return moved  # misère: a sum with no move is won by the player to move

    return is_p


# -- a request's context -----------------------------------------------------------------------------


class _Memo:
    def __init__(self) -> None:
        self.kept: dict[Hashable, object] = {}

    def get_or_compute(self, key: Hashable, compute: Callable[[], T]) -> T:
        if key not in self.kept:
            self.kept[key] = compute()
        return self.kept[key]  # type: ignore[return-value]

    def peek(self, key: Hashable) -> object | None:
        return self.kept.get(key)


class _Tables(StoredWords):
    def refusal(self, game_id: str, family: str, message: str, *, precondition: bool = False) -> NimbaseError:
        return LimitExceeded(f"{message}; job storing {game_id} {family}")


def _ctx(heaps: int = 14) -> Context:
    """A context whose quotients are computed live to `heaps` heaps."""
    return engine_context(
        _Tables(), memo=_Memo(), settings=kind_settings(NIMBASE_LIMITS_MISERE_LIVE_HEAPS=str(heaps))
    )


GAMES = ("0.07", "0.77", "0.137", "0.75", "4.7", "grundy")


def _kind(code: str) -> MisereHeapGame:
    kind = parse_game_id("grundy:misere" if code == "grundy" else f"octal:{code}:misere")
    assert isinstance(kind, MisereHeapGame)
    return kind


_KEPT: dict[str, Context] = {}


def _shared_ctx(code: str) -> Context:
    """A fresh context whose keepers are shared by the whole module: each quotient is computed once."""
    if code not in _KEPT:
        # 4.7's quotient stops at heap 8: past it a size limit is reached only after seconds of search
        _KEPT[code] = _ctx(8 if code == "4.7" else 14)
    return engine_context(_Tables(), memo=_Memo(), kept=_KEPT[code].kept, settings=_KEPT[code].settings)


@pytest.mark.parametrize("code", GAMES)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_random_sums_agree_with_the_brute_force(code: str, data: Any) -> None:
    """A few sums by default, the splitting games' of at most 24 tokens (their brute force takes seconds
    past that); more, and larger, with -m slow (test_more_random_sums_agree_with_the_brute_force)."""
    _agrees_with_the_brute_force(code, data, largest_split_sum=24)


@pytest.mark.slow
@pytest.mark.parametrize("code", GAMES)
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_more_random_sums_agree_with_the_brute_force(code: str, data: Any) -> None:
    _agrees_with_the_brute_force(code, data, largest_split_sum=36)


def _agrees_with_the_brute_force(code: str, data: Any, largest_split_sum: int) -> None:
    heaps = tuple(sorted(data.draw(st.lists(st.integers(1, 12), min_size=1, max_size=6))))
    while code in ("0.77", "4.7", "grundy") and sum(heaps) > largest_split_sum:
        heaps = heaps[:-1]  # the brute force's own limit: these games split heaps into many sums
    kind = _kind(code)
    ctx = _shared_ctx(code)
    try:
        value = kind.value(heaps, ctx)
    except LimitExceeded:
        # refused only past the quotient's bound, where the bounded search's budget ran out
        assert not kind.quotient(ctx).value.covers(heaps[-1])
        return
    assert value.outcome == ("P" if brute_is_p(code)(heaps) else "N"), heaps
    assert value.grundy is None


@pytest.mark.parametrize("code", ["0.75", "0.312", "0.07", "0.137"])
def test_the_quotient_is_outcome_faithful_on_every_small_sum(code: str) -> None:
    kind = _kind(code)
    q = kind.quotient(_shared_ctx(code)).value
    is_p = brute_is_p(code)
    top = min(q.bound, 10)
    for a in range(0, top + 1):
        for b in range(a, top + 1):
            for c in range(b, top + 1):
                heaps = tuple(h for h in (a, b, c) if h)
                z = 0
                for h in heaps:
                    z = int(q.table[z, q.phi[h]])
                assert bool(q.p[z]) == is_p(heaps), heaps


def test_the_quotient_is_a_reduced_commutative_monoid() -> None:
    q = _kind("0.75").quotient(_shared_ctx("0.75")).value
    table = q.table
    n = q.order
    assert (table == table.T).all()
    assert (table[0] == np.arange(n)).all()
    assert all(
        table[table[a, b], c] == table[a, table[b, c]] for a in range(n) for b in range(n) for c in range(n)
    )
    # reduced: any two elements are told apart by some element (the quotient is generated by its heaps)
    for a in range(n):
        for b in range(a + 1, n):
            assert any(q.p[table[a, x]] != q.p[table[b, x]] for x in range(n))


def _published() -> dict[str, Any]:
    facts: dict[str, Any] = json.loads(DATA.read_text())
    return facts


@pytest.mark.parametrize("entry", _published()["quotients"], ids=lambda entry: entry["code"])
def test_published_quotients(entry: dict[str, Any]) -> None:
    """Each quotient tests/data/misere_quotients.json records from the literature: order, P-portion,
    the pretending function's certified period, single-heap P-positions."""
    kind = _kind(entry["code"])
    last = max(entry.get("single_heap_p_positions", [1]))
    # To heap 40 where an order or a period is checked (the criterion's reach), else as far as the last
    # single-heap P-position printed (Kayles' quotient to heap 40 takes seconds more).
    heaps = max(last, 40) if "order" in entry or "pretending_period" in entry else last
    q = kind.quotient(_ctx(heaps)).value
    if "order" in entry:
        assert q.order == entry["order"], entry
        assert len(q.p_portion()) == entry["p_portion_size"], entry
    if "pretending_period" in entry:
        assert q.period is not None and q.period.period == entry["pretending_period"], (entry, q.period)
    if "single_heap_p_positions" in entry:
        found = [n for n in range(1, last + 1) if q.p[q.element_of(n)]]
        assert found == entry["single_heap_p_positions"], entry["code"]


def test_0312_pretends_to_be_adders_as_plambeck_prints() -> None:
    """plambeck.org's 0.312: heaps with the same printed adder have the same element, heaps with
    different ones different elements, and A + A (two heaps of 4) pretends to be :0, the empty sum."""
    (entry,) = [e for e in _published()["quotients"] if e["code"] == "0.312"]
    q = _kind("0.312").quotient(_ctx(30)).value
    pretends = {int(heap): label for heap, label in entry["pretends"].items()}
    for h1, label1 in pretends.items():
        for h2, label2 in pretends.items():
            assert (q.element_of(h1) == q.element_of(h2)) == (label1 == label2), (h1, h2)
    a = q.element_of(4)
    assert entry["A_plus_A"] == ":0" and int(q.table[a, a]) == 0
    assert q.period is not None and q.period.period == entry["pretends_period"]
    top = max(pretends)
    for heap in range(top + 1, 200):  # "etc (period 2)": every heap past the list, by the period
        assert q.element_of(heap) == q.element_of(heap - 2)


#: Two-digit octal games whose quotient to heap 20 is quick: the structure theorems are checked on them.
STRUCTURE_GAMES = ("0.04", "0.22", "0.31", "0.34", "0.44", "0.52", "0.53", "0.56", "0.75", "0.312", "0.137")


@pytest.mark.parametrize("code", STRUCTURE_GAMES)
def test_quotients_obey_the_published_structure_theorems(code: str) -> None:
    """Every nontrivial quotient has even order (Plambeck and Siegel); one with |P| = 2 has order
    2^n + 2 or 2^n + 4 (Siegel). Each Q_N is the quotient of a closed set (heaps up to N), so both hold
    for it whether or not it is certified."""
    theorems = {t["name"] for t in _published()["theorems"]}
    assert theorems == {"even_order", "two_p_positions"}
    q = _kind(code).quotient(_ctx(20)).value
    assert q.order == 1 or q.order % 2 == 0, (code, q.order)
    if len(q.p_portion()) == 2:
        assert any(q.order - 2**n in (2, 4) for n in range(1, 20)), (code, q.order)


def test_kayles_single_heaps_sibert_conway() -> None:
    q = _kind("0.77").quotient(_ctx(20)).value
    assert [n for n in range(1, 21) if q.p[q.element_of(n)]] == [1, 4, 9, 12, 20]


def test_a_walk_stopped_between_heaps_gives_the_heaps_done() -> None:
    """`enough` stops the walk before a heap: the quotient of the heaps done, as far as it goes the whole
    one (Kayles' single heaps that are P-positions, Sibert and Conway), its note saying where it stopped."""
    asked = iter(range(1000))
    with pytest.raises(StoppedInTime) as info:
        compute(_kind("0.77").rules, 20, enough=lambda: next(asked) >= 8)
    q = info.value.quotient
    assert 1 <= q.bound < 20 and q.note is not None and "the request's time ran out" in q.note
    assert [n for n in range(1, q.bound + 1) if q.p[q.element_of(n)]] == [
        n for n in (1, 4, 9, 12, 20) if n <= q.bound
    ]


def test_a_quotient_stopped_for_time_answers_its_request_and_is_not_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A request whose time ran out part way is answered from the heaps done (a heap past them goes to the
    bounded search), and that shorter quotient is not kept (the job storing the whole one is asked for):
    a short deadline cannot leave a short quotient to the requests after it. Its walk is kept instead,
    and the next request goes on from the heap after the last one done, to the whole quotient."""
    kind, ctx = _kind("0.77"), _ctx(14)
    whole = compute(kind.rules, 14)
    expected = kind.value((2, 3), _ctx(14)).outcome  # with time enough for the whole quotient
    cut = iter(range(1000))
    real = Construction.run

    def short_of_time(self: Construction, *args: Any, **kwargs: Any) -> Quotient:
        return real(self, *args, **{**kwargs, "enough": lambda: next(cut) >= 6})

    monkeypatch.setattr(Construction, "run", short_of_time)
    kept = kind.quotient(ctx)
    keeper = ctx.kept.keeper(QUOTIENTS)
    assert kept.source == "live" and kept.value.bound < whole.bound
    assert keeper.peek((QUOTIENT, kind.game_id)) is None
    assert cast(_Tables, ctx.tables).wanted == [(kind.game_id, QUOTIENT)]  # a worker's job stores it whole
    assert kept.value.bound >= 3 and kind.value((2, 3), ctx).outcome == expected  # within the heaps done
    walk = keeper.peek(("quotient walk", kind.game_id))
    assert walk is not None and isinstance(walk.value, Construction)
    done = walk.value.heaps_done
    assert done >= kept.value.bound

    monkeypatch.setattr(Construction, "run", real)
    added: list[int] = []
    add_heap = _Walk.add_heap

    def counted(self: _Walk, n: int) -> None:
        added.append(n)
        add_heap(self, n)

    monkeypatch.setattr(_Walk, "add_heap", counted)
    again = kind.quotient(ctx)
    assert added[0] == done + 1, "the walk started again instead of going on"
    assert again.value.bound == whole.bound and np.array_equal(again.value.phi, whole.phi)
    assert keeper.peek((QUOTIENT, kind.game_id)) is not None
    assert keeper.peek(("quotient walk", kind.game_id)) is None  # made whole: the walk is let go


@pytest.mark.parametrize("code", GAMES)
def test_a_walk_stopped_again_and_again_makes_the_quotient_of_one_walk(
    code: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A construction stopped inside a heap (the heap undone and tried again next run: here once after
    the heap was all added, once in its first reduction) and then by requests each stopped after two
    heaps (between two heaps, each going on from there) makes the very quotient `compute` makes in one
    go."""
    rules = _kind(code).rules
    whole = compute(rules, 8)  # 4.7's walk past heap 8 takes seconds
    construction = Construction(rules, 8)
    with pytest.raises(StoppedInTime):
        construction.run(enough=lambda: construction.heaps_done >= 4)
    walk = construction._walk
    assert walk is not None and construction.heaps_done == 4
    before = (list(walk.phi), list(walk.phi_w), list(walk.gens), len(walk.options), walk.table.copy())
    add_heap = walk.add_heap

    def half_added(n: int) -> None:
        add_heap(n)
        raise OutOfTime  # as a check inside the heap would, its work all done but not counted

    walk.add_heap = half_added  # type: ignore[method-assign]
    with pytest.raises(StoppedInTime):
        construction.run()
    del walk.add_heap
    assert construction._walk is walk and construction.heaps_done == 4  # the heap undone
    after = (list(walk.phi), list(walk.phi_w), list(walk.gens), len(walk.options), walk.table)
    assert after[:4] == before[:4] and np.array_equal(after[4], before[4])

    reduce = _Walk.reduce
    stops = iter([True])

    def stopped_reducing(self: _Walk, *args: Any, **kwargs: Any) -> None:
        if next(stops, False):
            raise OutOfTime  # in the middle of a new generator's expansion
        reduce(self, *args, **kwargs)

    monkeypatch.setattr(_Walk, "reduce", stopped_reducing)
    runs = 0
    while True:
        runs += 1
        assert runs < 100, "no progress"
        heaps = iter(range(1000))
        try:
            found = construction.run(enough=lambda heaps=heaps: next(heaps) >= 2)  # type: ignore[misc]
            break
        except StoppedInTime as stopped:
            assert stopped.quotient.bound <= whole.bound
    assert runs >= 2
    assert found.bound == whole.bound and np.array_equal(found.phi, whole.phi)
    assert np.array_equal(found.table, whole.table) and np.array_equal(found.p, whole.p)
    assert found.period == whole.period and found.note == whole.note


def test_a_run_with_less_time_than_a_heap_took_does_not_start_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A heap a run was stopped in part way after some time is not started by a run with less room than
    that (it would be stopped again, later): that run stops before it at once, answering the heaps done;
    a run with more room tries it again."""
    construction = Construction(_kind("0.77").rules, 14)
    with pytest.raises(StoppedInTime):
        construction.run(enough=lambda: construction.heaps_done >= 5)
    tried: list[int] = []
    add_heap = _Walk.add_heap

    def slow_then_stopped(self: _Walk, n: int) -> None:
        tried.append(n)
        if len(tried) == 1:
            time.sleep(0.2)
            raise OutOfTime
        add_heap(self, n)

    monkeypatch.setattr(_Walk, "add_heap", slow_then_stopped)
    with pytest.raises(StoppedInTime):
        construction.run(room=5.0)
    assert tried == [6] and construction.heaps_done == 5
    with pytest.raises(StoppedInTime) as stopped:
        construction.run(room=0.1)
    assert tried == [6] and stopped.value.quotient.bound == 5
    assert np.array_equal(construction.run(room=5.0).phi, compute(_kind("0.77").rules, 14).phi)
    assert tried[:2] == [6, 6]


def test_a_certified_quotient_answers_any_heap() -> None:
    kind = _kind("0.75")
    ctx = _ctx(24)
    q = kind.quotient(ctx).value
    assert q.certified
    big = (10**12, 10**15 + 3)
    value = kind.value(big, ctx)
    assert value.source == "period"
    assert value.outcome == ("P" if q.p[int(q.table[q.element_of(big[0]), q.element_of(big[1])])] else "N")


def test_best_moves_flag_every_move_to_a_p_position() -> None:
    kind = _kind("0.137")
    ctx = _ctx()
    is_p = brute_is_p("0.137")
    position = (3, 5, 7)
    result = kind.best_moves(position, None, ctx)
    assert result.value.outcome == ("P" if is_p(position) else "N")
    for move in result.moves:
        reached = tuple(int(h) for h in move.value.position.split()) if move.value.position else ()
        assert move.value.outcome == ("P" if is_p(reached) else "N")
    winning = [m for m in result.moves if m.value.outcome == "P"]
    assert [m for m in result.moves if m.best] == (
        winning or result.moves[: len([m for m in result.moves if m.best])]
    )


def test_stats_and_sequence() -> None:
    kind = _kind("0.75")
    ctx = _ctx(24)
    stats = kind.stats(ctx)
    quotient = stats["quotient"]
    assert isinstance(quotient, dict)
    assert quotient["order"] == 8 and quotient["certified"] is True
    assert quotient["presentation"]["generators"]
    sequence = kind.sequence(None, 0, 30, ctx)
    q = kind.quotient(ctx).value
    assert sequence.values == [q.element_of(n) for n in range(30)]
    assert sequence.period is not None and sequence.period.certified


def test_tame_game_is_recognised() -> None:
    kind = _kind("0.03")  # take two tokens: misère Nim with heaps of value 0 and 1
    stats = kind.stats(_ctx())
    assert stats["tame"] is True
    genus = stats["genus"]
    assert isinstance(genus, list) and genus[1] == "0^120" and genus[2] == "1^031"


def test_misere_ids_on_games_without_a_misere_form_are_refused() -> None:
    for text in ("chess:KRvK:misere", "wythoff:misere", "lights-out:5x5:misere", "bicolor-nim:misere"):
        with pytest.raises(InvalidGameId, match="misère"):
            parse_game_id(text)


def test_stored_quotient_reads_back() -> None:
    q = _kind("0.312").quotient(_ctx()).value
    again = Quotient.from_bytes(q.to_bytes(), q.game_id)
    assert (again.table == q.table).all() and (again.phi == q.phi).all() and again.period == q.period
    with pytest.raises(ValueError):
        Quotient.from_bytes(q.to_bytes(), "octal:0.7:misere")


def test_fold_kernel_matches_its_reference() -> None:
    q = _kind("0.07").quotient(_shared_ctx("0.07")).value
    rng = np.random.default_rng(5)
    elements = rng.integers(0, q.order, 500).astype(np.int32)
    offsets = np.array(sorted({0, 500, *rng.integers(0, 500, 30).tolist()}), dtype=np.int64)
    assert fold_kernel(q.table, elements, offsets).tolist() == fold_reference(
        q.table, elements.tolist(), offsets.tolist()
    )


def test_periodicity_criterion_needs_its_whole_window() -> None:
    from kinds.heaps.misere.construct import HeapRules

    rules = HeapRules("x", lambda n: [], 2, True)
    # period 2 from 1, t = 2: proved only once phi reaches 2*1 + 2*2 + 2 - 1 = 7
    assert certify([0, 1, 2, 1, 2, 1, 2], rules) is None
    assert certify([0, 1, 2, 1, 2, 1, 2, 1], rules) is not None


def test_subtraction_sums_go_through_the_quotient() -> None:
    kind = parse_game_id("subtraction:1,3,4:misere")
    ctx = _ctx(24)
    options = {1, 3, 4}

    @cache
    def is_p(position: tuple[int, ...]) -> bool:
        moved = False
        for i, heap in enumerate(position):
            for s in options:
                if s <= heap:
                    moved = True
                    rest = position[:i] + position[i + 1 :] + ((heap - s,) if heap > s else ())
                    if is_p(tuple(sorted(rest))):
                        return False
        return moved

    for heaps in [(2, 3), (5, 6, 7), (1, 1, 9), (4, 8, 10, 11)]:
        value = kind.value(heaps, ctx)
        assert value.outcome == ("P" if is_p(heaps) else "N"), heaps
        assert value.kind is not None
    big = kind.value((999, 1000, 1000), ctx)  # the quotient's period answers it
    assert big.source == "period"


def test_the_job_a_refusal_queues_is_planned() -> None:
    from engine.precompute import StoredName
    from engine.registry import plan_stored

    for game in ("octal:0.77:misere", "grundy:misere", "subtraction:1,3,4:misere"):
        plan = plan_stored(StoredName(game, "quotient"))
        assert plan.family == "quotient" and plan.game_id == game and plan.values > 0


def test_a_jobs_upto_is_the_heap_bound_its_quotient_is_computed_to() -> None:
    """`upto` counts heap sizes 0..upto-1, as for every heap game's job; 0 (the job a refusal queues)
    asks for the default bound. Grundy's game is never certified, so its bound is exactly the one asked."""
    from kinds.heaps.misere.stored import JOB_HEAPS

    kind = _kind("grundy")
    assert kind.plan_job(16).values == 16 and kind.plan_job(0).values == JOB_HEAPS + 1
    kernel = kind.kernel_for("quotient")
    assert kernel is not None
    kernel.aim(16)
    assert isinstance(kernel, QuotientKernel)
    q = Quotient.from_bytes(kernel.make(), kind.game_id)
    assert q.bound == 15 and q.target == 15 and q.note is None
    live = kind.quotient(_ctx(15)).value  # the same walk asked live to heap 15
    assert (q.table == live.table).all() and (q.phi == live.phi).all()
    with pytest.raises(InvalidArgument, match="upto"):
        kind.plan_job(10**9)


def _batch_texts(seed: int) -> list[str]:
    """Sums as clients send them: canonical or not (unsorted, zero heaps, leading zeros, odd spacing),
    with bad ones among them."""
    rng = np.random.default_rng(seed)
    texts = ["", "0", "1 2 3", "3 2 1", " 1  2", "007 5", "1\t2\r\n3", "1 2 ", "5 0 5", "x", "1 é", "4 -1"]
    texts += ["9" * 19, "1 " + "8" * 18, " ".join(["3"] * 40) + " 2", "12 1000000000000000"]
    texts += ["1 " * MAX_HEAPS + "0", "1 " * (MAX_HEAPS - 1) + "0"]  # zero heaps count toward the limit
    # heaps of eight digits or more (read a byte at a time), leading zeros past eight, spaces at the ends
    texts += ["12345678 87654321", "00000001 2", "0" * 8, "00000000000000000012 3", "99999999 100000000 1"]
    texts += [" 5", "5 ", "1 2  3", "7\t", "0 0 0", "10 9 8 7 6 5 4 3 2 1"]
    for top in (1 << 11, 10**6, 1 << 40, 10**17):  # sorted by radix passes of each width
        texts.append(" ".join(str(int(h)) for h in rng.integers(1, top, 100)))
    # a long text with a space, a zero or a bad byte put at places in its middle (a double space, a heap
    # cut in two, a descent, a leading zero or a zero heap)
    long_text = " ".join(str(h) for h in sorted(int(h) for h in rng.integers(1, 10**5, 120)))
    texts.append(long_text)
    middle = len(long_text) // 2
    for k in range(middle - 4, middle + 40, 3):
        texts += [long_text[:k] + extra + long_text[k:] for extra in (" ", "0", "x", " 0")]
    texts.append(long_text[: middle + 20] + " 1")  # a descent at the end
    for _ in range(200):
        count = int(rng.integers(0, 90))
        heaps = [
            [0, int(rng.integers(1, 40)), int(rng.integers(1, 10**12))][int(rng.integers(3))]
            for _ in range(count)
        ]
        if rng.random() < 0.5:
            heaps.sort()
        texts.append(str(rng.choice([" ", "  ", "\n"])).join(map(str, heaps)))
    return texts


@pytest.mark.parametrize("code", ["0.75", "grundy"])
def test_the_batch_pass_matches_its_reference_and_the_parser(code: str) -> None:
    from engine.positions import format_heaps, parse_heaps
    from kinds.heaps.misere.batch import OK, SLOW, parse_fold, parse_fold_reference

    q = _kind(code).quotient(_shared_ctx(code)).value
    texts = _batch_texts(11)
    folded = parse_fold(q, texts)
    pre, per = (0, 0) if q.period is None else (q.period.preperiod, q.period.period)
    reference = parse_fold_reference(texts, q.rows, q.phi_list, pre, per)
    for i, text in enumerate(texts):
        status, z, top, canonical = reference[i]
        assert int(folded.status[i]) == status, text
        if status == SLOW:
            continue
        assert (int(folded.element[i]), int(folded.top[i])) == (z, top), text
        assert folded.positions[i] == (text if canonical is None else canonical), text
        heaps = parse_heaps(text)  # the per-position path agrees
        assert folded.positions[i] == format_heaps(heaps)
        z_alone = 0
        for h in heaps:
            z_alone = int(q.table[z_alone, q.element_of(h)])
        assert z_alone == z
    assert [int(s) for s in folded.status[:12]] == [OK] * 9 + [SLOW] * 3
    assert int(folded.status[12]) == SLOW  # 19 digits: the parser's own bounds decide
    assert [int(s) for s in folded.status[16:18]] == [SLOW, OK]  # one token too many, then as many


@pytest.mark.parametrize("period", [3, 4, 6, 7])
def test_the_batch_pass_folds_past_any_period_as_its_reference(period: int) -> None:
    """A period that is a power of two is folded by a mask, any other by a residue: both as the
    reference does, in a made-up commutative table (heap sizes mod 5, added)."""
    from kinds.heaps.misere.batch import OK, fold_texts, parse_fold_reference

    rng = np.random.default_rng(period)
    table = (np.add.outer(np.arange(5), np.arange(5)) % 5).astype(np.int32)
    phi = rng.integers(0, 5, 12).astype(np.int32)
    texts = _batch_texts(period)
    folded = fold_texts(texts, table, phi, 4, period)
    reference = parse_fold_reference(texts, table.tolist(), phi.tolist(), 4, period)
    assert sum(r[0] == OK for r in reference) > 200
    for i, (status, z, top, _) in enumerate(reference):
        assert int(folded.status[i]) == status, texts[i]
        if status == OK:
            assert (int(folded.element[i]), int(folded.top[i])) == (z, top), texts[i]


@pytest.mark.parametrize("code", ["0.75", "grundy"])
def test_a_batch_answers_as_each_position_alone(code: str) -> None:
    kind = _kind(code)
    ctx = _shared_ctx(code)
    texts = [*_batch_texts(12)[:60], "1 2 3 " * 3, "2 99999", "3 x 4"]
    batch = kind.values(texts, ctx)
    assert len(batch) == len(texts)
    for text, answer in zip(texts, batch, strict=True):
        try:
            alone: Value | NimbaseError = kind.value(kind.parse(text), ctx)
        except NimbaseError as error:
            alone = error
        if isinstance(alone, NimbaseError):
            assert isinstance(answer, NimbaseError) and type(answer) is type(alone), text
            assert str(answer) == str(alone)
        else:
            assert isinstance(answer, Value) and answer == alone._replace(remoteness=answer.remoteness), text
    bad = batch[-1]
    assert isinstance(bad, NimbaseError) and "3 x 4" in str(bad)


def test_a_batch_answers_the_same_in_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch split into many parts (each parsed in its own pass) answers as in one."""
    import kinds.heaps.misere.kind as misere_kind

    kind = _kind("0.75")
    ctx = _shared_ctx("0.75")
    texts = _batch_texts(13)[:80]
    whole = kind.values(texts, ctx)
    monkeypatch.setattr(misere_kind, "PART_CHARS", 40)
    monkeypatch.setattr(misere_kind, "PART_POSITIONS", 3)
    assert len(list(misere_kind._parts(texts))) > len(texts) // 3
    parted = kind.values(texts, ctx)
    assert [str(a) if isinstance(a, NimbaseError) else a for a in parted] == [
        str(a) if isinstance(a, NimbaseError) else a for a in whole
    ]
