"""Random game graphs for hypothesis (vertex count, edges, a retrograde label per vertex: LOSS, DRAW or
WIN for a vertex with no move) and their CSR arrays as the retrograde kernel reads them; shared by the
kernel's tests and the `graph:NAME` kind's."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st
from numpy.typing import NDArray

from engine.kernels import retrograde as R


@dataclass
class Graph:
    n: int
    edges: list[tuple[int, int]]
    terminal: list[int]

    def csr(self) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
        return R.csr_from_edges(self.n, [a for a, _ in self.edges], [b for _, b in self.edges])


@st.composite
def graphs(draw: st.DrawFn, max_n: int = 12, labels: bool = True) -> Graph:
    n = draw(st.integers(1, max_n))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    terminal = draw(st.lists(st.sampled_from([-1, -1, 0, 1] if labels else [-1]), min_size=n, max_size=n))
    return Graph(n, edges, terminal)
