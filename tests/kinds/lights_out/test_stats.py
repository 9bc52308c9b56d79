"""Lights Out statistics (seed 002, section 3): distance counts and diameters against breadth-first
search, the coset walk and its bounds, the polynomial method's nullity against elimination, and the
statistics a stats job stores, read back and served first."""

from __future__ import annotations

import itertools
import json
import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import keep
from engine.errors import InvalidArgument, LimitExceeded, NotApplicable
from engine.kind import Context
from engine.stored_bytes import decode_words
from kinds.lights_out.chebyshev_f2 import (
    chebyshev,
    chebyshev_reference,
    gcd,
    multiply,
    plane_nullity,
    shift_by_one,
    shift_by_one_reference,
    square,
)
from kinds.lights_out.kernels.gf2 import eliminate, int_to_words, unpack_bits
from kinds.lights_out.kernels.stats import (
    coset_leader_counts,
    coset_leader_counts_bruteforce,
    type_walk_work,
)
from kinds.lights_out.kind import LightsOut
from kinds.lights_out.settings import ELIMINATIONS
from kinds.lights_out.shape import (
    Shape,
)
from kinds.lights_out.solver import eliminate_shape
from kinds.lights_out.stats import (
    STATS_WORK,
    EliminationStatsKernel,
    ShapeStatistics,
    StatsKernel,
    nullity_by_polynomial,
)
from kinds.lights_out.stored import STATS, encode_elimination, stats_bytes, stats_from_bytes
from tests.engine.contexts import StoredWords, engine_context
from tests.facts import load_facts
from tests.kinds.lights_out.boards import bfs_distances, graph_kind, kind, solver_for

FACTS = load_facts("lights_out")["lights_out"]


# -- statistics ----------------------------------------------------------------------------------------


def test_5x5_stats(ctx: Context) -> None:
    game = kind("lights-out:5x5")
    stats = ShapeStatistics(game.shape).shape_stats()
    assert stats["rank"] == 23 and stats["nullity"] == 2
    counts = stats["distance_counts"]
    assert isinstance(counts, list) and sum(counts) == 2**23
    basis = solver_for(game.shape, ctx).elimination.null_basis
    assert counts == coset_leader_counts_bruteforce(basis, 25)
    assert stats["diameter"] == len(counts) - 1 == 15


def test_4x4_stats_against_bfs() -> None:
    game = kind("lights-out:4x4")
    distances = bfs_distances(game)
    stats = ShapeStatistics(game.shape).shape_stats()
    histogram = np.bincount(list(distances.values())).tolist()
    assert stats["distance_counts"] == histogram and 2 ** stats["rank"] == len(distances) == 2**12


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 18), st.integers(0, 5), st.integers(0, 2**32))
def test_type_walk_matches_bruteforce(nbits: int, k: int, seed: int) -> None:
    rng = random.Random(seed)
    rows = [rng.getrandbits(nbits) for _ in range(k)]
    elimination = eliminate(
        np.stack([int_to_words(r, nbits) for r in rows]) if rows else np.zeros((0, 1), np.uint64), nbits
    )
    basis = elimination.rref[: elimination.rank]
    counts, diameter = coset_leader_counts(basis, nbits)
    assert counts == coset_leader_counts_bruteforce(basis, nbits)
    assert diameter == len(counts) - 1
    assert sum(counts) == 2 ** (nbits - elimination.rank)


def test_the_live_walk_is_bounded_by_its_true_cost(ctx: Context) -> None:
    """30x31 on the torus: its walk has few steps (about 1.2e8 with 2^2 each) but its null vectors press
    most cells, so the counts' sums cost about 4e9 operations, 12 s here: past STATS_WORK, not done live."""
    basis = solver_for(Shape.grid(30, 31, "torus"), ctx).elimination.null_basis
    assert type_walk_work(basis, 930, counts_wanted=False) <= STATS_WORK < type_walk_work(basis, 930)
    stats = ShapeStatistics(LightsOut(Shape.grid(30, 31, "torus")).shape).shape_stats()
    assert stats["nullity"] == 2 and stats["distance_counts"] is None and stats["diameter"] is None


def test_stats_of_large_shapes(ctx: Context) -> None:
    stats = ShapeStatistics(kind("lights-out:20x20").shape).shape_stats()
    assert stats["nullity"] == 0 and stats["diameter"] == 400
    counts = stats["distance_counts"]
    assert isinstance(counts, list) and counts[200] == math.comb(400, 200)
    big = ShapeStatistics(kind("lights-out:100000x100000").shape).shape_stats()
    assert big["method"] == "polynomial" and big["rank"] == 10**10 - big["nullity"]
    assert big["distance_counts"] is None
    # the polynomial method (sides past 256) against elimination, on a shape both reach
    long = ShapeStatistics(kind("lights-out:300x2").shape).shape_stats()
    assert long["method"] == "polynomial"
    assert long["nullity"] == eliminate_shape(Shape.grid(300, 2)).nullity
    # past the boards valued live: the elimination is made for the answer, not kept
    torus = kind("lights-out:300x260:torus").stats(ctx)
    assert torus["method"] == "elimination" and torus["source"] == "live"
    assert ctx.kept.keeper(ELIMINATIONS).kept_bytes == 0
    assert isinstance(torus["rank"], int) and isinstance(torus["nullity"], int)
    assert torus["rank"] + torus["nullity"] == 300 * 260
    with pytest.raises(LimitExceeded):
        ShapeStatistics(kind("lights-out:100000x100000:torus").shape).shape_stats()
    with pytest.raises(LimitExceeded):
        kind("lights-out:300x300").parse("0")


# -- the polynomial method -------------------------------------------------------------------------------


def test_chebyshev_polynomials() -> None:
    for n in range(300):
        assert chebyshev(n) == chebyshev_reference(n)
    rng = random.Random(11)
    for _ in range(50):
        p = rng.getrandbits(rng.randint(1, 300))
        assert shift_by_one(p) == shift_by_one_reference(p)
        assert square(p) == multiply(p, p)
        q = rng.getrandbits(40) | 1
        assert gcd(multiply(p, q), q) == q


def test_polynomial_nullity_agrees_with_elimination(ctx: Context) -> None:
    for n in range(1, 257):
        assert nullity_by_polynomial(n) == solver_for(Shape.grid(n, n), ctx).nullity, n
    for rows, cols in itertools.product(range(1, 25), repeat=2):
        assert plane_nullity(rows, cols) == eliminate_shape(Shape.grid(rows, cols)).nullity, (rows, cols)


def test_known_nullities() -> None:
    # 4 x 4: 4, 5 x 5: 2 (Anderson and Feil), 9: 8, 11: 6, 19: 16
    assert [nullity_by_polynomial(n) for n in (4, 5, 9, 11, 19)] == [4, 2, 8, 6, 16]
    # 100,000 x 100,000 against an independent plain-Python reckoning of deg gcd(p_n(x), p_n(x + 1)):
    # both polynomials by their three-term recurrences (no doubling, no Taylor shift), Euclid bit by bit
    assert nullity_by_polynomial(100_000) == _nullity_by_recurrence(100_000)
    assert [_nullity_by_recurrence(n) for n in (4, 5, 9, 11, 19, 256)] == [
        nullity_by_polynomial(n) for n in (4, 5, 9, 11, 19, 256)
    ]


def _nullity_by_recurrence(n: int) -> int:
    """deg gcd(p_n(x), p_n(x + 1)) for p_0 = 1, p_1 = x, p_{k+1} = x p_k + p_{k-1} over F2 (ints as
    polynomials): p_n(x + 1) follows q_0 = 1, q_1 = x + 1, q_{k+1} = (x + 1) q_k + q_{k-1}."""
    p0, p1 = 1, 0b10
    q0, q1 = 1, 0b11
    for _ in range(n - 1):
        p0, p1 = p1, (p1 << 1) ^ p0
        q0, q1 = q1, (q1 << 1) ^ q1 ^ q0
    a, b = (p1, q1) if n >= 1 else (1, 1)
    while b:
        top = b.bit_length()
        while a.bit_length() >= top:
            a ^= b << (a.bit_length() - top)
        a, b = b, a
    return a.bit_length() - 1


# -- the stored statistics (family "stats") ------------------------------------------------------------


@pytest.mark.parametrize(
    "spec", ["lights-out:3x3", "lights-out:4x4", "lights-out:5x5", "lights-out:3x3:torus"]
)
def test_the_stats_kernel_stores_the_live_statistics(spec: str) -> None:
    game = kind(spec)
    kernel = game.kernel_for(STATS)
    assert isinstance(kernel, StatsKernel) and kernel.family == "stats"
    words = kernel.words()
    assert stats_from_bytes(game.shape, decode_words(words)) == ShapeStatistics(game.shape).shape_stats()
    plan = game.plan_job(0, family="stats")
    assert (plan.game_id, plan.family) == (spec, "stats") and plan.values >= len(words)
    # the elimination stays the default family
    assert game.plan_job(0).family == game.plan_job(0, family="elimination").family == "elimination"


def test_the_stats_job_reports_progress_and_goes_past_the_live_limits(ctx: Context) -> None:
    game = kind("lights-out:5x5")
    assert (
        ShapeStatistics(game.shape).shape_stats(max_work=2**10)["distance_counts"] is None
    )  # past a smaller live budget
    seen: list[tuple[int, int]] = []
    stats = ShapeStatistics(game.shape).job_stats(progress=lambda done, total: seen.append((done, total)))
    assert stats == ShapeStatistics(game.shape).shape_stats() and seen and seen[-1][0] == seen[-1][1]
    # 1,056 cells: the live answer has no counts, the job lists them (one null vector, 374 cells pressed)
    big = kind("lights-out:32x33")
    live = ShapeStatistics(big.shape).shape_stats()
    assert live["distance_counts"] is None and live["nullity"] == 1
    stored = ShapeStatistics(big.shape).job_stats()
    counts = stored["distance_counts"]
    assert counts is not None and stored["diameter"] == live["diameter"] == len(counts) - 1
    null_vector = unpack_bits(solver_for(big.shape, ctx).elimination.null_basis[0], big.shape.cells)
    m = int(null_vector.sum())
    rest = big.shape.cells - m
    # a coset is {x, x + v}: its least weight is min(t, m - t) + z for t ones on v's cells, z off them
    expected = [0] * (big.shape.cells + 1)
    for t in range(m + 1):
        for z in range(rest + 1):
            expected[min(t, m - t) + z] += math.comb(m, t) * math.comb(rest, z)
    expected = [c // 2 for c in expected]
    while expected[-1] == 0:
        expected.pop()
    assert counts == expected and sum(counts) == 2 ** stored["rank"]


def test_the_stats_job_refuses_what_it_cannot_walk() -> None:
    # the walk's work shows only once the null space is known: the plan (eliminating nothing) queues
    # the job, and the job refuses, quoting the shape
    nine = kind("lights-out:9x9")
    assert nine.plan_job(0, family="stats").family == "stats"
    with pytest.raises(LimitExceeded, match=r"lights-out:9x9 \(nullity 8\).*2\^77"):
        ShapeStatistics(nine.shape).job_stats()
    with pytest.raises(LimitExceeded, match=r"lights-out:9x9 \(nullity 8\).*2\^77"):
        StatsKernel(nine.shape).make()
    # what is refused without eliminating: a grid whose elimination would be too large
    with pytest.raises(LimitExceeded, match=r"lights-out:2000x2000:torus needs an elimination too large"):
        kind("lights-out:2000x2000:torus").plan_job(0, family="stats")
    with pytest.raises(LimitExceeded, match=r"lights-out:39x39.*dimension 32"):
        ShapeStatistics(kind("lights-out:39x39").shape).job_stats()
    with pytest.raises(LimitExceeded, match="lights-out:5x5"):
        ShapeStatistics(kind("lights-out:5x5").shape).job_stats(max_work=1000)
    # rank and nullity of large plane boards come from the polynomial method only: nothing to walk
    for spec in ("lights-out:300x300", "lights-out:100000x100000"):
        with pytest.raises(NotApplicable, match=rf"{spec}: .*polynomial method"):
            kind(spec).plan_job(0, family="stats")
    with pytest.raises(NotApplicable):
        StatsKernel(kind("lights-out:300x300").shape).make()
    with pytest.raises(InvalidArgument, match=r"'elimination' and 'stats', not 'heap'"):
        kind("lights-out:3x3").plan_job(0, family="heap")
    assert kind("lights-out:3x3").kernel_for("heap") is None


def test_stored_statistics_read_back_only_when_they_add_up() -> None:
    shape = kind("lights-out:3x3").shape
    data = stats_bytes(shape, ShapeStatistics(kind("lights-out:3x3").shape).job_stats())
    assert json.loads(data)["distance_counts"] == ["1", "9", "36", "84", "126", "126", "84", "36", "9", "1"]
    body = json.loads(data)
    bad = [
        {**body, "game": "lights-out:3x4"},
        {**body, "version": 0},
        {**body, "rank": 8},
        {**body, "diameter": 8},
        {**body, "distance_counts": ["1", "9", "36", "84", "126", "126", "84", "36", "9", "2"]},
        {**body, "distance_counts": [1, 9, 36, 84, 126, 126, 84, 36, 9, 1]},
    ]
    for wrong in bad:
        with pytest.raises(ValueError):
            stats_from_bytes(shape, json.dumps(wrong).encode())
    with pytest.raises(ValueError):
        stats_from_bytes(shape, b"\xff not json")
    # a graph of the same name with other edges does not read another's statistics
    path = graph_kind(4, [(0, 1), (1, 2), (2, 3)], "p")
    other = graph_kind(4, [(0, 1), (1, 2)], "p")
    stored = stats_bytes(path.shape, ShapeStatistics(path.shape).job_stats())
    assert stats_from_bytes(path.shape, stored)["rank"] == ShapeStatistics(path.shape).shape_stats()["rank"]
    with pytest.raises(ValueError, match="another shape"):
        stats_from_bytes(other.shape, stored)


def test_get_stats_answers_from_the_stored_statistics_first() -> None:
    tables = StoredWords()
    ctx = engine_context(tables)
    game = kind("lights-out:32x33")
    live = game.stats(ctx)
    assert live["source"] == "live" and live["distance_counts"] is None
    assert isinstance(live["note"], str) and '"stats"' in live["note"]
    tables.words[(game.game_id, STATS)] = StatsKernel(game.shape).words()
    table = game.stats(ctx)
    assert table["source"] == "table" and "note" not in table
    counts = table["distance_counts"]
    assert isinstance(counts, list) and isinstance(live["diameter"], int)
    assert len(counts) == live["diameter"] + 1 and table["diameter"] == live["diameter"]
    assert counts[:2] == [1, 1056] and all(isinstance(c, str) for c in counts[10:-10])  # past 2^53: text
    assert sum(int(c) for c in counts) == 2**1055 and table["solvable_boards"] == "2^1055"
    # stored statistics, once read, are kept: final
    tables.words[(game.game_id, STATS)] = tables.words[(game.game_id, STATS)][:100]
    assert game.stats(ctx) == table
    # what is stored whole only: a job still writing (half the words) is not read (by a fresh server)
    assert game.stats(engine_context(tables))["source"] == "live"
    # the polynomial method's shapes read nothing and have no note
    poly = kind("lights-out:100000x100000").stats(ctx)
    assert poly["source"] == "formula" and "note" not in poly
    assert poly["solvable_boards"] == f"2^{poly['rank']}" and poly["distance_counts"] is None


def test_a_live_elimination_gives_way_to_a_stored_one(monkeypatch: pytest.MonkeyPatch) -> None:
    tables = StoredWords()
    ctx = engine_context(tables)
    monkeypatch.setattr(keep, "STORED_RECHECK_SECONDS", 3600.0)
    game = kind("lights-out:6x5:torus")
    board = game.parse("/".join(["10000"] * 6))
    assert game.value(board, ctx).source == "live"
    words = encode_elimination(eliminate_shape(game.shape))
    tables.words[(game.game_id, "elimination")] = words
    assert game.value(board, ctx).source == "live"  # storage is looked at again only now and then
    monkeypatch.setattr(keep, "STORED_RECHECK_SECONDS", 0.0)
    assert game.value(board, ctx).source == "table"
    del tables.words[(game.game_id, "elimination")]
    assert game.value(board, ctx).source == "table"  # a stored one is kept: not looked for again


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 16), st.integers(0, 5), st.integers(0, 2**32), st.integers(1, 64))
def test_the_walk_in_slices_agrees_with_the_whole_walk(
    nbits: int, k: int, seed: int, slice_steps: int
) -> None:
    rng = random.Random(seed)
    rows = [rng.getrandbits(nbits) for _ in range(k)]
    elimination = eliminate(
        np.stack([int_to_words(r, nbits) for r in rows]) if rows else np.zeros((0, 1), np.uint64), nbits
    )
    basis = elimination.rref[: elimination.rank]
    seen: list[tuple[int, int]] = []
    sliced = coset_leader_counts(
        basis, nbits, progress=lambda done, total: seen.append((done, total)), slice_steps=slice_steps
    )
    assert sliced == coset_leader_counts(basis, nbits)
    assert seen[-1][0] == seen[-1][1] and [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_a_progress_that_raises_stops_the_walk(ctx: Context) -> None:
    basis = solver_for(kind("lights-out:4x4").shape, ctx).elimination.null_basis

    def stop(done: int, total: int) -> None:
        raise RuntimeError(f"stopped at {done} of {total}")

    with pytest.raises(RuntimeError, match="stopped at"):
        coset_leader_counts(basis, 16, progress=stop, slice_steps=1)


# -- the statistics stored beside a stored elimination --------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    ["lights-out:5x5", "lights-out:3x3:torus", "lights-out:4x4", "lights-out:12x12", "lights-out:40x40"],
)
def test_stats_stored_beside_the_elimination_are_the_live_ones(spec: str) -> None:
    """The elimination's job stores beside it what GetStats would make of it (note included where the
    counts are beyond the live limits), and GetStats answers from them without the elimination."""
    game = kind(spec)
    kernel = game.kernel_for("elimination")
    assert isinstance(kernel, EliminationStatsKernel)
    words = kernel.words()
    stats = kernel.stats_part(words, 0)
    assert stats is not None and kernel.stats_part(words[:-1], 0) is None and kernel.stores_stats
    with_elimination = StoredWords()
    with_elimination.words[(spec, "elimination")] = words
    live = game.stats(engine_context(with_elimination))
    assert live["source"] == "table"  # the stored elimination's
    only_stats = StoredWords()
    only_stats.stats[(spec, "elimination")] = json.loads(json.dumps(stats))  # as stored (JSON)
    assert game.stats(engine_context(only_stats)) == live
    both = StoredWords()
    both.words, both.stats = with_elimination.words, only_stats.stats
    assert game.stats(engine_context(both)) == live
