"""Kernels kept compiled across processes (nimbase_rules.compiled, kinds.rules.fused.expander): a second
process loads Connect Four's kernels and the solver's expansion over them from numba's disk cache
instead of compiling them; kernels that are closures (not cacheable) are compiled per process and solve
the same."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np

from kinds.rules.solve import solve_all
from nimbase_rules import Kernels, Rules
from nimbase_rules.games.connect4 import Connect4

SOLVE = """
from kinds.rules.fused import expander
from kinds.rules.solve import solve_all
from nimbase_rules.games.connect4 import Connect4
rules = Connect4(4, 3)
solve_all(rules)
kernels = rules.kernels()
compiled = [expander(kernels), kernels.moves, kernels.canonical, kernels.end]
hits = sum(sum(f.stats.cache_hits.values()) for f in compiled)
print(hits, sum(sum(f.stats.cache_misses.values()) for f in compiled))
"""


def _run(cache: Path) -> tuple[int, int]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", SOLVE], env=env, capture_output=True, text=True, check=True)
    hits, misses = out.stdout.split()
    return int(hits), int(misses)


def test_a_second_process_loads_the_kernels_compiled_by_the_first(tmp_path: Path) -> None:
    hits, misses = _run(tmp_path)
    assert misses > 0 and hits == 0
    hits, misses = _run(tmp_path)
    assert misses == 0 and hits >= 1  # the expansion at least (it holds the kernels it calls)
    made = sorted(p.name.split("_")[1] for p in (tmp_path / "nimbase-kernels").glob("*.py"))
    assert made == ["connect4", "expand"]


class _Closures(Connect4):
    """Connect Four whose kernels are closures (as a plugin may write them): compiled per process."""

    def kernels(self) -> Kernels | None:
        given = super().kernels()
        assert given is not None
        moves_of, canonical_of, end_of = given.moves, given.canonical, given.end

        @numba.njit
        def moves(code, to, info):  # type: ignore[no-untyped-def]
            return moves_of(code, to, info)

        @numba.njit
        def canonical(code):  # type: ignore[no-untyped-def]
            return canonical_of(code)

        @numba.njit
        def end(code):  # type: ignore[no-untyped-def]
            return end_of(code)

        if not hasattr(self, "_closures"):
            self._closures = Kernels(given.legal, moves, end, canonical, given.tier)
        return self._closures


def test_closure_kernels_solve_as_the_cached_ones() -> None:
    cached = solve_all(Connect4(4, 3))
    closures = solve_all(_Closures(4, 3))
    assert cached.keys() == closures.keys()
    for tier, table in cached.items():
        other = closures[tier]
        assert np.array_equal(table.codes, other.codes)
        assert np.array_equal(table.result, other.result), tier
        assert np.array_equal(table.remoteness, other.remoteness), tier


class _ClosuresScanned(_Closures):
    """The same, its tiers' positions found by trying every code (the solver's scan over the closures)."""

    tier_positions = Rules.tier_positions


def test_closure_kernels_scan_every_code_as_the_enumeration_finds_them() -> None:
    rules = _ClosuresScanned(4, 3)
    assert type(rules).tier_positions is not Connect4.tier_positions
    solved = solve_all(rules)
    for tier, table in solve_all(Connect4(4, 3)).items():
        assert np.array_equal(solved[tier].codes, table.codes), tier
        assert np.array_equal(solved[tier].result, table.result), tier
