"""The check that makes a candidate quotient a proof: Plambeck and Siegel's local criterion.

A candidate is a finite commutative monoid Q (a table, identity 0), a subset P of it and a map Phi from
heaps to Q, extended to sums multiplicatively. Plambeck and Siegel (PS08, "Misère quotients for impartial
games", J. Combin. Theory A 115 (2008), arXiv math/0609825, the verification behind MisereSolver) observe
that Phi is *outcome-faithful* (a sum v is a misère P-position exactly when Phi(v) is in P) as soon as,
for every sum v, with T(v) the images of v's options:

    1 is not in P, and for every non-empty v:   Phi(v) in P   <=>   T(v) and P are disjoint,

by induction over the game tree (a sum with no move is an N-position in misère play). With S_h the images
of a heap h's options, T(v) is the union over the heaps h of v of Phi(v - h) * S_h, so the check is finite:

- P side: for every y in Q and heap h, y * Phi(h) in P implies y * S_h misses P ("hit" is false);
- N side: a failing sum is one whose product is not in P while every heap in it misses P. All heaps of v
  with one image x share Phi(v - h) (call it y_x), so such a sum exists exactly when some non-empty
  multiset of images has, for each image x in it, *some* heap of image x that misses from y_x (that heap
  repeated is then the failing sum). Multisets of images are walked breadth first as states
  (product, {x: y_x}), each state once, so the walk ends and finds a shortest failing sum.

MisereSolver searches failures over words in lexicographic order instead; the state walk here is its
finite form for a fixed candidate.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

#: A sum of heaps (sorted heap sizes).
Word = tuple[int, ...]


class TooLarge(Exception):
    """A candidate or its check grew past the size limit (the note says which)."""


def verify(
    table: NDArray[np.int32],
    p: NDArray[np.bool_],
    phi: Sequence[int],
    options: Sequence[frozenset[int]],
    heaps: Sequence[int],
    words: Sequence[Word],
    max_states: int,
    check: Callable[[], None] | None = None,
) -> Word | None:
    """None when (table, p, phi) is outcome-faithful on every sum of `heaps` (each heap with a move;
    `options[h]` the images of h's options, `words[x]` a sum of image x), else a sum of heaps where the
    local criterion fails."""
    if p[0]:
        return ()
    hit: dict[int, NDArray[np.bool_]] = {}
    for h in heaps:
        images = np.fromiter(options[h], dtype=np.int64)
        hit[h] = np.asarray(p[table[:, images]].any(axis=1), dtype=bool)
        lands_p = p[table[:, phi[h]]]
        bad = np.flatnonzero(lands_p & hit[h])
        if len(bad):
            return tuple(sorted((*words[int(bad[0])], h)))
    return _n_side(table, p, phi, heaps, hit, max_states, check)


def _n_side(
    table: NDArray[np.int32],
    p: NDArray[np.bool_],
    phi: Sequence[int],
    heaps: Sequence[int],
    hit: dict[int, NDArray[np.bool_]],
    max_states: int,
    check: Callable[[], None] | None,
) -> Word | None:
    order = table.shape[0]
    images = sorted({int(phi[h]) for h in heaps})
    # witness[x][y]: a heap of image x missing P from y, or -1 where every heap of image x hits.
    witness: dict[int, NDArray[np.int64]] = {}
    for x in images:
        found = np.full(order, -1, dtype=np.int64)
        for h in heaps:
            if phi[h] == x:
                found = np.where((found < 0) & ~hit[h], h, found)
        witness[x] = found
    State = tuple[int, tuple[tuple[int, int], ...]]
    parents: dict[State, tuple[State | None, int]] = {}
    queue: deque[State] = deque()
    for x in images:
        start: State = (x, ((x, 0),))
        if start not in parents:
            parents[start] = (None, x)
            queue.append(start)
    while queue:
        state = queue.popleft()
        z, pairs = state
        if not p[z] and all(witness[x][y] >= 0 for x, y in pairs):
            return _failing_sum(state, parents, witness)
        if check is not None and len(parents) % 256 == 0:
            check()
        for x2 in images:
            moved = {x: int(table[y, x2]) for x, y in pairs}
            moved[x2] = z
            nxt: State = (int(table[z, x2]), tuple(sorted(moved.items())))
            if nxt not in parents:
                parents[nxt] = (state, x2)
                if len(parents) > max_states:
                    raise TooLarge(f"checking the candidate took more than {max_states} states")
                queue.append(nxt)
    return None


def _failing_sum(
    state: tuple[int, tuple[tuple[int, int], ...]],
    parents: Mapping[tuple[int, tuple[tuple[int, int], ...]], tuple[object, int]],
    witness: dict[int, NDArray[np.int64]],
) -> Word:
    counts: dict[int, int] = {}
    walk: object = state
    while walk is not None:
        parent, x = parents[walk]  # type: ignore[index]
        counts[x] = counts.get(x, 0) + 1
        walk = parent
    _, pairs = state
    word: list[int] = []
    for x, y in pairs:
        word.extend([int(witness[x][y])] * counts[x])
    return tuple(sorted(word))
