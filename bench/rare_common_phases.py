"""Where the rare/common kernels spend their time: the rare × common pass against the check of step 2.

Only the benchmarks ask (`bench/bench_kernels.py`); the kernels time nothing themselves, so the pass is
timed alone by running a kernel again on values it is given (`known`), which skips step 2.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from kinds.heaps.kernels.octal import SplitRules
from kinds.heaps.kernels.rare_common import fill_rare_common
from kinds.heaps.kernels.rare_mask import Sparseness


@dataclass(frozen=True, slots=True)
class PhaseSplit:
    """Where one kernel's time goes on heaps start..stop-1 (CPU seconds of this process)."""

    total: float
    rare_common: float
    stats: tuple[int, ...]

    @property
    def check(self) -> float:
        """The check of rare candidates (step 2): the whole kernel less its rare × common pass."""
        return max(self.total - self.rare_common, 0.0)


def phase_split(values: NDArray[np.uint32], start: int, rules: SplitRules, how: Sparseness) -> PhaseSplit:
    """Time the kernel on values[start:] (known, e.g. computed before), whole and without step 2.

    The whole run recomputes values[start:] from values[:start]; the second run is given the values
    and skips the check, so it times the rare × common pass (and the bookkeeping of both) alone.
    """
    whole_run = np.array(values, dtype=np.uint32)
    whole_run[start:] = 0
    stats = np.zeros(8, dtype=np.int64)
    t0 = time.process_time()
    fill_rare_common(whole_run, start, rules, how, stats=stats)
    total = time.process_time() - t0
    if not np.array_equal(whole_run, values):
        raise AssertionError("the kernel disagrees with the values it was timed on")
    given = np.array(values, dtype=np.uint32)
    t0 = time.process_time()
    fill_rare_common(given, start, rules, how, known=True)
    pass_only = time.process_time() - t0
    return PhaseSplit(total, pass_only, tuple(int(s) for s in stats))
