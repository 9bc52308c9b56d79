"""How many boards lie at each fewest-press distance: the coset leader weights of the null space.

A solvable board is A x for the presses x of a coset x + N (N the null space of the press matrix A), so
its distance (fewest presses, seed 002 section 3) is the least weight in its coset, and the distance
counts are the numbers of cosets of N in F2^n by the weight of their lightest vector.

- `coset_leader_counts` groups the n coordinates by their column in a basis of N (a vector of F2^k,
  its "type"). The weight of x + sum a_i b_i is sum over types v of (t_v if v.a = 0 else m_v - t_v),
  where m_v coordinates have type v and x has t_v ones among them; so a coset's least weight depends
  only on the counts (t_v), and prod C(m_v, t_v) vectors share them (each coset counted 2^k times).
  Walking every (t_v) costs prod (m_v + 1) steps of 2^k each: one step for a shape whose press matrix
  is invertible (the counts are then binomials), a few hundred for 5 x 5 (k = 2), where walking the
  2^25 vectors would take 33 million. The sums are kept modulo primes below 2^31 and rebuilt by the
  Chinese remainder theorem, so they are exact however large (20 x 20 has C(400, 200) boards at
  distance 200). `type_walk_work` (steps x 2^k, and the modular sums, which dominate where the null
  vectors press many cells) bounds the walk, live and a worker's. With a
  `progress` callback the walk runs in slices (the types with most coordinates held at each value),
  reporting between them, so a long one shows how far it is and can be stopped.
- `coset_leader_counts_bruteforce` walks all 2^n vectors in Gray-code order with each one's coset index
  (a linear map whose kernel is N), keeping each coset's least weight: the independent check, for
  n up to about 32.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from functools import cache

import numba
import numpy as np
from numpy.typing import NDArray

from kinds.lights_out.kernels.gf2 import U64, eliminate, unpack_bits

I64 = NDArray[np.int64]

#: Largest null space dimension the type walk handles (2^k costs per step).
MAX_TYPE_NULLITY = 20
#: A walk reporting progress runs in about this many slices, each of at least SLICE_STEPS steps (so
#: the calls between them cost nothing next to the walk).
PROGRESS_SLICES = 256
SLICE_STEPS = 1 << 16


@numba.njit(cache=True, nogil=True)
def _parities(types: I64, k: int) -> NDArray[np.bool_]:
    """dot[v, a]: whether types[v] . a is odd, for every a of F2^k (the type's coordinates then count
    m_v - t_v towards the weight of x + sum a_i b_i, else t_v)."""
    combos = 1 << k
    dot = np.zeros((types.shape[0], combos), dtype=np.bool_)
    for v in range(types.shape[0]):
        for a in range(combos):
            x = types[v] & a
            parity = 0
            while x:
                parity ^= 1
                x &= x - 1
            dot[v, a] = parity == 1
    return dot


@numba.njit(cache=True, nogil=True)
def _type_walk(
    dot: NDArray[np.bool_], counts: I64, cost: I64, t: I64, walked: int, binom: I64, primes: I64, hist: I64
) -> int:
    """Walk every (t_v) of the first `walked` types from 0, the others held at t[v] (cost[a]: the weight
    of x + sum a_i b_i at the start); hist[d, p] += prod C(m_v, t_v) mod primes[p] at the least weight
    d. Returns the largest least weight met. `cost` and `t` are worked on in place."""
    ntypes = dot.shape[0]
    nprimes = primes.shape[0]
    combos = dot.shape[1]
    largest = 0
    while True:
        d = cost[0]
        for a in range(1, combos):
            if cost[a] < d:
                d = cost[a]
        if d > largest:
            largest = d
        for p in range(nprimes):
            prime = primes[p]
            w = 1
            for v in range(ntypes):
                w = (w * binom[v, t[v], p]) % prime
            hist[d, p] = (hist[d, p] + w) % prime
        v = 0
        while v < walked:
            if t[v] < counts[v]:
                t[v] += 1
                for a in range(combos):
                    cost[a] += -1 if dot[v, a] else 1
                break
            for a in range(combos):
                cost[a] += counts[v] if dot[v, a] else -counts[v]
            t[v] = 0
            v += 1
        if v == walked:
            break
    return largest


@cache
def _primes(count: int) -> tuple[int, ...]:
    """The `count` largest primes below 2^31 (products of two stay inside int64)."""
    sieve = np.ones(46341, dtype=np.bool_)  # the primes up to the square root of 2^31, by Eratosthenes
    sieve[:2] = False
    for p in range(2, math.isqrt(len(sieve) - 1) + 1):
        if sieve[p]:
            sieve[p * p :: p] = False
    small = [int(p) for p in np.flatnonzero(sieve)]
    out: list[int] = []
    candidate = 2**31 - 1
    while len(out) < count:
        if all(candidate % p for p in small if p * p <= candidate):
            out.append(candidate)
        candidate -= 2
    return tuple(out)


def _crt(residues: list[int], primes: tuple[int, ...]) -> int:
    value, modulus = 0, 1
    for r, p in zip(residues, primes, strict=True):
        step = ((r - value) * pow(modulus, -1, p)) % p
        value += modulus * step
        modulus *= p
    return value


def coordinate_types(basis: U64, nbits: int) -> tuple[I64, I64, int]:
    """(non-zero types, their counts, count of type 0) of the coordinates of a packed basis."""
    k = basis.shape[0]
    if k == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), nbits
    types = np.zeros(nbits, dtype=np.int64)
    for i in range(k):
        types |= unpack_bits(basis[i], nbits).astype(np.int64) << i
    values, counts = np.unique(types, return_counts=True)
    zero = int(counts[values == 0].sum())
    keep = values != 0
    return values[keep].astype(np.int64), counts[keep].astype(np.int64), zero


def _prime_count(span: int) -> int:
    """Primes below 2^31 whose product exceeds the largest sum kept (2^span vectors of the span)."""
    return (span + 2) // 30 + 1


def type_walk_work(basis: U64, nbits: int, *, counts_wanted: bool = True) -> int:
    """Operations `coset_leader_counts` would do: each step takes the least of 2^k weights and, where the
    counts are wanted, a product of the types' binomials and a sum modulo each prime (types + 1 modular
    operations a prime): the counts of a shape whose null vectors press many cells cost more per step
    than its 2^k (a k = 2 shape of 1,000 such cells: 140 operations a step, not 4)."""
    k = int(basis.shape[0])
    if k > MAX_TYPE_NULLITY:
        return 2**200
    _, counts, _ = coordinate_types(basis, nbits)
    steps: int = math.prod(int(m) + 1 for m in counts)
    per_step = 1 << k
    if counts_wanted:
        per_step += _prime_count(int(counts.sum())) * (len(counts) + 1)
    return steps * per_step


def coset_leader_counts(
    basis: U64,
    nbits: int,
    *,
    counts_wanted: bool = True,
    progress: Callable[[int, int], None] | None = None,
    slice_steps: int = SLICE_STEPS,
) -> tuple[list[int] | None, int]:
    """(counts of cosets of span(basis) by least weight, from 0, or None when not wanted; the largest
    least weight). The basis rows must be independent.

    With `progress`, a long walk runs in slices (the types with the most coordinates held at each of
    their values in turn: up to about PROGRESS_SLICES slices of at least `slice_steps` steps), and
    progress(steps done, steps) is called after each; it may raise to stop the walk."""
    k = basis.shape[0]
    if k > MAX_TYPE_NULLITY:
        raise ValueError(f"a null space of dimension {k} is beyond the type walk")
    types, counts, zero = coordinate_types(basis, nbits)
    order = np.argsort(counts, kind="stable")  # the types with the most coordinates last: sliced first
    types, counts = types[order], counts[order]
    span = int(counts.sum())
    nprimes = _prime_count(span) if counts_wanted else 0
    primes = _primes(nprimes) if nprimes else ()
    top = int(counts.max()) if counts.size else 0
    binom = np.zeros((types.shape[0], top + 1, max(1, nprimes)), dtype=np.int64)
    for v, m in enumerate(counts):
        for t in range(int(m) + 1):
            c = math.comb(int(m), t)
            for p, prime in enumerate(primes):
                binom[v, t, p] = c % prime
    hist = np.zeros((span + 1, nprimes), dtype=np.int64)
    largest = _walk_in_slices(
        types, counts, int(k), binom, np.array(primes, dtype=np.int64), hist, progress, slice_steps
    )
    diameter = largest + zero
    if not counts_wanted:
        return None, diameter
    inner = [_crt([int(r) for r in hist[d]], primes) for d in range(span + 1)]
    spread = [math.comb(zero, j) for j in range(zero + 1)]
    out = [0] * (nbits + 1)
    for d, value in enumerate(inner):
        if value:
            for j, ways in enumerate(spread):
                out[d + j] += value * ways
    cosets = [value >> k for value in out]
    assert all(value % (1 << k) == 0 for value in out), "coset counts must divide evenly"
    while len(cosets) > 1 and cosets[-1] == 0:
        cosets.pop()
    return cosets, diameter


def _walk_in_slices(
    types: I64,
    counts: I64,
    k: int,
    binom: I64,
    primes: I64,
    hist: I64,
    progress: Callable[[int, int], None] | None,
    slice_steps: int,
) -> int:
    """The type walk, whole or (with `progress`) one slice per value of its last types; the largest
    least weight met."""
    ntypes = int(types.shape[0])
    dot = _parities(types, k)
    base = (dot * counts[:, None]).sum(axis=0).astype(np.int64)  # every t_v = 0
    steps = math.prod(int(m) + 1 for m in counts)
    walked, slices = ntypes, 1
    if progress is not None:
        while walked > 0 and slices < PROGRESS_SLICES:
            more = slices * (int(counts[walked - 1]) + 1)
            if steps // more < slice_steps:
                break
            walked, slices = walked - 1, more
    held = range(walked, ntypes)
    signs = np.where(dot[walked:], -1, 1).astype(np.int64)
    largest, done, each = 0, 0, steps // slices
    for values in itertools.product(*(range(int(counts[v]) + 1) for v in held)):
        t = np.zeros(ntypes, dtype=np.int64)
        cost = base.copy()
        for i, (v, value) in enumerate(zip(held, values, strict=True)):
            t[v] = value
            cost += value * signs[i]
        largest = max(largest, int(_type_walk(dot, counts, cost, t, walked, binom, primes, hist)))
        done += each
        if progress is not None:
            progress(done, steps)
    return largest


@numba.njit(cache=True, nogil=True)
def _gray_minima(images: I64, least: NDArray[np.uint8]) -> None:
    n = images.shape[0]
    least[:] = 255
    least[0] = 0
    index = 0
    weight = 0
    x = 0
    for i in range(1, 1 << n):
        j = 0
        while not (i >> j) & 1:
            j += 1
        index ^= images[j]
        if (x >> j) & 1:
            weight -= 1
        else:
            weight += 1
        x ^= 1 << j
        if weight < least[index]:
            least[index] = weight


def coset_leader_counts_bruteforce(basis: U64, nbits: int) -> list[int]:
    """`coset_leader_counts` by walking all 2^nbits vectors (nbits at most 34)."""
    if nbits > 34:
        raise ValueError(f"walking 2^{nbits} vectors is out of reach")
    k = basis.shape[0]
    reduced = eliminate(basis, nbits) if k else None
    pivots = [int(p) for p in reduced.pivots] if reduced is not None else []
    rows = unpack_bits(reduced.rref[:k], nbits) if reduced is not None else None
    free = [j for j in range(nbits) if j not in set(pivots)]
    position = {j: i for i, j in enumerate(free)}
    images = np.zeros(nbits, dtype=np.int64)
    for j in free:
        images[j] = 1 << position[j]
    for i, p in enumerate(pivots):
        assert rows is not None
        images[p] = sum(1 << position[j] for j in free if rows[i, j])
    least = np.zeros(1 << len(free), dtype=np.uint8)
    _gray_minima(images, least)
    counts = np.bincount(least.astype(np.int64)).tolist()
    return [int(c) for c in counts]
