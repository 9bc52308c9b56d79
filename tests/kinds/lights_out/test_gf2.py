"""Linear algebra over F2 (kinds.lights_out.kernels.gf2): every kernel against its plain-Python reference
on int rows, the chase against dense elimination, and the coset search against enumerating the coset."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kinds.lights_out.kernels.gf2 import (
    ChaseElimination,
    bfs_order,
    chase_eliminate,
    chase_unknowns,
    coset_search,
    coset_search_reference,
    eliminate,
    eliminate_reference,
    int_to_bits,
    int_to_words,
    pack_bits,
    popcount_rows,
    reduce_greedily,
    solve_reference,
    unpack_bits,
    words_for,
    words_to_int,
)


def _rows_to_words(rows: list[int], ncols: int) -> np.ndarray:
    return (
        np.stack([int_to_words(r, ncols) for r in rows])
        if rows
        else np.zeros((0, words_for(ncols)), np.uint64)
    )


def _words_to_rows(words: np.ndarray) -> list[int]:
    return [words_to_int(row) for row in words]


@st.composite
def matrices(draw: st.DrawFn, max_rows: int = 140, max_cols: int = 140) -> tuple[list[int], int]:
    m = draw(st.integers(0, max_rows))
    n = draw(st.integers(1, max_cols))
    density = draw(st.sampled_from([0.02, 0.1, 0.5]))
    rng = random.Random(draw(st.integers(0, 2**32)))
    rows = [sum(1 << j for j in range(n) if rng.random() < density) for _ in range(m)]
    if m >= 2 and draw(st.booleans()):
        rows[-1] = rows[0] ^ rows[1]  # a dependent row
    return rows, n


def test_packing_round_trips() -> None:
    rng = np.random.default_rng(1)
    for nbits in (1, 63, 64, 65, 200):
        bits = rng.integers(0, 2, size=(3, nbits), dtype=np.uint8)
        words = pack_bits(bits)
        assert words.shape == (3, words_for(nbits)) and words.dtype == np.uint64
        assert np.array_equal(unpack_bits(words, nbits), bits)
        value = int("".join(map(str, bits[0][::-1])), 2)
        assert words_to_int(words[0]) == value
        assert np.array_equal(int_to_words(value, nbits), words[0])
        assert np.array_equal(int_to_bits(value, nbits), bits[0])
    assert popcount_rows(pack_bits(np.ones((2, 130), np.uint8))).tolist() == [130, 130]


@settings(max_examples=60, deadline=None)
@given(matrices())
def test_eliminate_matches_reference(case: tuple[list[int], int]) -> None:
    rows, n = case
    got = eliminate(_rows_to_words(rows, n), n)
    rank, pivots, rref, transform = eliminate_reference(rows, n)
    assert got.rank == rank
    assert got.pivots.tolist() == pivots
    assert _words_to_rows(got.rref) == rref
    assert _words_to_rows(got.transform) == transform
    assert got.nullity == n - rank


@settings(max_examples=60, deadline=None)
@given(matrices(), st.integers(0, 2**140))
def test_solve_and_null_basis(case: tuple[list[int], int], rhs_seed: int) -> None:
    rows, n = case
    m = len(rows)
    elimination = eliminate(_rows_to_words(rows, n), n)
    # a right-hand side that is solvable half the time: A x for a random x, or random
    x_true = rhs_seed % (1 << n)
    if rhs_seed & 1:
        rhs = sum(((row & x_true).bit_count() & 1) << i for i, row in enumerate(rows))
    else:
        rhs = (rhs_seed >> 1) % (1 << max(m, 1))
    reference, reference_basis = solve_reference(rows, n, rhs)
    got = elimination.solve(int_to_words(rhs, max(m, 1))) if m else None
    if m == 0:
        return
    assert (got is None) == (reference is None)
    if got is not None:
        x = words_to_int(got)
        assert all(((row & x).bit_count() & 1) == (rhs >> i & 1) for i, row in enumerate(rows))
    basis = _words_to_rows(elimination.null_basis())
    assert basis == reference_basis
    assert all(((row & v).bit_count() & 1) == 0 for v in basis for row in rows)


def _random_graph(n: int, p: float, rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """Closed neighbourhoods of G(n, p) as CSR (each vertex its own neighbour)."""
    sets = [{i} for i in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < p:
                sets[i].add(j)
                sets[j].add(i)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([len(s) for s in sets], out=indptr[1:])
    indices = np.array([v for s in sets for v in sorted(s)], dtype=np.int64)
    return indptr, indices


def _dense_rows(indptr: np.ndarray, indices: np.ndarray) -> list[int]:
    return [sum(1 << int(v) for v in indices[indptr[i] : indptr[i + 1]]) for i in range(len(indptr) - 1)]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.sampled_from([0.02, 0.08, 0.3]), st.integers(0, 2**32))
def test_chase_matches_dense_elimination(n: int, p: float, seed: int) -> None:
    rng = random.Random(seed)
    indptr, indices = _random_graph(n, p, rng)
    rows = _dense_rows(indptr, indices)
    rank, *_ = eliminate_reference(rows, n)
    orders = [np.arange(n, dtype=np.int64), bfs_order(indptr, indices)]
    shuffled = list(range(n))
    rng.shuffle(shuffled)
    orders.append(np.array(shuffled, dtype=np.int64))
    for order in orders:
        chased = chase_eliminate(indptr, indices, order)
        assert chased.rank == rank
        assert chased.k == chase_unknowns(indptr, indices, order)
        basis = _words_to_rows(chased.null_basis)
        assert len(basis) == n - rank
        assert eliminate_reference(basis, n)[0] == len(basis)  # independent
        assert all(((row & v).bit_count() & 1) == 0 for v in basis for row in rows)
        for _ in range(4):
            x_true = rng.getrandbits(n)
            b = sum(((row & x_true).bit_count() & 1) << i for i, row in enumerate(rows))
            if rng.random() < 0.5:
                b ^= rng.getrandbits(n)
            expected, _ = solve_reference(rows, n, b)
            got = chased.solve(int_to_bits(b, n))
            assert (got is None) == (expected is None)
            if got is not None:
                x = int("".join(map(str, got[::-1])), 2)
                assert all(((row & x).bit_count() & 1) == (b >> i & 1) for i, row in enumerate(rows))


def test_chase_round_trips_through_arrays() -> None:
    indptr, indices = _random_graph(40, 0.1, random.Random(3))
    chased = chase_eliminate(indptr, indices, bfs_order(indptr, indices))
    again = ChaseElimination.from_arrays({k: v.copy() for k, v in chased.to_arrays().items()})
    assert again.rank == chased.rank and again.k == chased.k
    assert np.array_equal(again.null_basis, chased.null_basis)
    rng = np.random.default_rng(4)
    for _ in range(10):
        b = rng.integers(0, 2, 40, dtype=np.uint8)
        first, second = chased.solve(b), again.solve(b)
        assert (first is None) == (second is None)
        if first is not None and second is not None:
            assert np.array_equal(first, second)


def test_chase_of_a_path_and_a_grid_needs_few_unknowns() -> None:
    n = 1000
    sets = [{i, i - 1, i + 1} & set(range(n)) for i in range(n)]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([len(s) for s in sets], out=indptr[1:])
    indices = np.array([v for s in sets for v in sorted(s)], dtype=np.int64)
    rng = np.random.default_rng(5)
    scrambled = rng.permutation(n)
    # the path given in a scrambled vertex order: breadth-first finds it again
    inverse = np.argsort(scrambled)
    sets2 = [sorted(int(inverse[v]) for v in sets[int(scrambled[i])]) for i in range(n)]
    indptr2 = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([len(s) for s in sets2], out=indptr2[1:])
    indices2 = np.array([v for s in sets2 for v in s], dtype=np.int64)
    assert chase_unknowns(indptr, indices, np.arange(n, dtype=np.int64)) == 1
    assert chase_unknowns(indptr2, indices2, bfs_order(indptr2, indices2)) == 1


def test_bfs_order_covers_every_component() -> None:
    # three components: a triangle, an isolated vertex, a path of 3
    sets = [{0, 1, 2}, {0, 1, 2}, {0, 1, 2}, {3}, {4, 5}, {4, 5, 6}, {5, 6}]
    indptr = np.zeros(8, dtype=np.int64)
    np.cumsum([len(s) for s in sets], out=indptr[1:])
    indices = np.array([v for s in sets for v in sorted(s)], dtype=np.int64)
    order = bfs_order(indptr, indices)
    assert sorted(order.tolist()) == list(range(7))
    assert order.tolist()[3] == 3  # components stay together, in order of their first vertex


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 150), st.integers(0, 9), st.integers(0, 2**32))
def test_coset_search_matches_enumeration(nbits: int, k: int, seed: int) -> None:
    rng = random.Random(seed)
    basis = [rng.getrandbits(nbits) for _ in range(k)]
    x0 = rng.getrandbits(nbits)
    found = coset_search(int_to_words(x0, nbits), _rows_to_words(basis, nbits).reshape(k, words_for(nbits)))
    weight, lightest, next_lightest = coset_search_reference(x0, basis)
    assert found.weight == weight
    assert words_to_int(found.lightest) == lightest
    assert words_to_int(found.next_lightest) == next_lightest
    best = words_to_int(found.best)
    assert best.bit_count() == weight
    span = {0}
    for b in basis:
        span |= {v ^ b for v in span}
    assert best ^ x0 in span
    # flipping bit j: the lightest of (x0 + e_j) + span, as the walk predicts
    flips = found.flip_weights(nbits)
    for j in rng.sample(range(nbits), min(nbits, 12)):
        assert flips[j] == min((x0 ^ (1 << j) ^ v).bit_count() for v in span)


def test_reduce_greedily_stays_in_the_coset() -> None:
    rng = random.Random(6)
    nbits = 90
    basis = [rng.getrandbits(nbits) for _ in range(6)]
    x0 = rng.getrandbits(nbits)
    lighter = words_to_int(reduce_greedily(int_to_words(x0, nbits), _rows_to_words(basis, nbits)))
    span = {0}
    for b in basis:
        span |= {v ^ b for v in span}
    assert lighter ^ x0 in span
    assert lighter.bit_count() <= x0.bit_count()
