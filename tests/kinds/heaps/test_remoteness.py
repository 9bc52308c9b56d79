"""Single-heap remoteness: the numba kernel, its reference and an exhaustive search agree."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.search import solve
from kinds.heaps.kernels.remoteness import heap_remoteness, heap_remoteness_reference
from kinds.heaps.kernels.subtraction import subtraction_reference
from kinds.heaps.subtraction import SubtractionGame

sets = st.lists(st.integers(1, 9), min_size=1, max_size=4, unique=True).map(lambda s: tuple(sorted(s)))


@settings(max_examples=60, deadline=None)
@given(moves=sets, misere=st.booleans(), stop=st.integers(1, 120))
def test_kernel_matches_reference_and_search(moves: tuple[int, ...], misere: bool, stop: int) -> None:
    values = subtraction_reference(moves, misere, stop)
    fast = heap_remoteness(np.array(values, dtype=np.uint32), moves).tolist()
    assert fast == heap_remoteness_reference(values, moves)
    game = SubtractionGame(moves, misere)
    for n in range(0, stop, max(1, stop // 12)):
        heaps = (n,) if n else ()
        assert fast[n] == solve(game, heaps, max_states=10_000).remoteness
