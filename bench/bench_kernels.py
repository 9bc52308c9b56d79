"""Kernel benchmarks for issue 3; prints figures (run: python -m bench.bench_kernels [--help]).

- Grundy's game: time to every value below 2^k and the cost per value of each doubling.
- Kayles (0.77) and Dawson's Kayles (0.07): periods certified from an empty table.
- 0.16: grown until Guy-Smith certifies its period or the limit is reached.
- 0.56: certified from nothing (period 144, preperiod 326,640: about 2^20 values).
- 0.6: no known period; the time to the size `make run` precomputes (DEFAULT_PRECOMPUTE).
- Wythoff: the Grundy table of side 4096.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from engine.games.grundy import GrundyGame
from engine.games.octal import OctalGame
from engine.kernels.rare_common import choose_sparseness, last_rare_at
from engine.kernels.wythoff import wythoff_table

EMPTY = np.zeros(0, dtype=np.uint32)


def warm_up() -> None:
    """Load (or compile) every numba kernel once, so the timings below are of the computation."""
    GrundyGame().kernel().extend(EMPTY, 5000)
    OctalGame("0.77").kernel().solve(1 << 10)
    OctalGame("0.16").kernel().extend(EMPTY, 5000)
    wythoff_table(64)


def bench_grundy(top: int) -> None:
    kernel = GrundyGame().kernel()
    values = EMPTY
    started = time.perf_counter()
    for exp in range(16, top + 1):
        t0 = time.perf_counter()
        values = kernel.extend(values, 1 << exp)
        dt = time.perf_counter() - t0
        fresh = (1 << exp) - (1 << (exp - 1)) if exp > 16 else 1 << exp
        how = choose_sparseness(values, (0,))
        print(
            f"grundy n < 2^{exp}: total {time.perf_counter() - started:7.2f} s, last doubling "
            f"{dt:6.2f} s = {dt / fresh * 1e6:6.2f} us/value; max value {int(values.max())}, "
            f"rare {how.rare} under mask {how.mask:#x} (flip {how.flip}), last rare at "
            f"{last_rare_at(values, how)}",
            flush=True,
        )


def bench_octal(code: str, limit: int) -> None:
    kernel = OctalGame(code).kernel()
    t0 = time.perf_counter()
    values, period = kernel.solve(limit)
    dt = time.perf_counter() - t0
    if period is None:
        print(f"octal:{code}: no period certified below n = {len(values)} ({dt:.2f} s)", flush=True)
    else:
        print(
            f"octal:{code}: certified period {period.period}, preperiod {period.preperiod} "
            f"from {len(values)} values in {dt:.3f} s",
            flush=True,
        )


def bench_wythoff(side: int) -> None:
    t0 = time.perf_counter()
    table = wythoff_table(side)
    dt = time.perf_counter() - t0
    print(f"wythoff table {side} x {side}: {dt:.2f} s, {table.nbytes / 2**20:.0f} MiB uint32", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--grundy-exp", type=int, default=22, help="Grundy's game up to 2^k (24 is long)")
    parser.add_argument("--octal-016-limit", type=int, default=1 << 21, help="most values for 0.16")
    parser.add_argument("--wythoff-side", type=int, default=4096)
    parser.add_argument("--octal-06-exp", type=int, default=23, help="0.6 up to 2^k (no period to stop at)")
    parser.add_argument(
        "--skip", nargs="*", default=[], choices=["grundy", "octal", "016", "056", "06", "wythoff"]
    )
    args = parser.parse_args()
    t0 = time.perf_counter()
    warm_up()
    print(f"warm-up (numba cache load or compile): {time.perf_counter() - t0:.2f} s", flush=True)
    if "octal" not in args.skip:
        for code in ("0.77", "0.07", "0.137"):
            bench_octal(code, 1 << 16)
    if "wythoff" not in args.skip:
        bench_wythoff(args.wythoff_side)
    if "grundy" not in args.skip:
        bench_grundy(args.grundy_exp)
    if "016" not in args.skip:
        bench_octal("0.16", args.octal_016_limit)
    if "056" not in args.skip:
        bench_octal("0.56", 1 << 21)  # from nothing to the certificate
    if "06" not in args.skip:
        bench_octal("0.6", 1 << args.octal_06_exp)


if __name__ == "__main__":
    main()
