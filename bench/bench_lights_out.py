"""Lights Out (issue 8, the engine): each figure beside its target, and elimination beside the
polynomial method where both run.

- 20 x 20 plane, shape loaded: solvable, fewest presses and best move of random boards (target 50 ms).
- 256 x 256 from a cold start (a fresh process: imports, numba's cached kernels, the shape's
  elimination, then the board): solvable and one solution (target 2 s); plane and torus.
- 5 x 5 shape statistics, 2^23 solvable boards (target 60 s), and the brute-force walk over all 2^25
  press vectors that checks them.
- The stats job (family "stats", what a worker stores): 5 x 5 (target 60 s) and 33 x 33 on the cylinder
  (1,089 cells: the live answer lists no counts), the walk's rate in `type_walk_work` operations a
  second, and what STATS_JOB_WORK then takes at most (target: within the hour).
- Rank and nullity of the n x n plane by the polynomial method for n up to 100,000 (target 2 s each),
  and elimination against it on the same n where both run.
- A 100,000-vertex graph (a 316 x 316 grid with its vertices shuffled): upload checks and elimination.

Run: `python -m bench.bench_lights_out`.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import time

from bench.common import figure
from engine.graphs import build_graph
from engine.kind import Context
from kinds.lights_out.chebyshev_f2 import plane_nullity
from kinds.lights_out.kernels.stats import coset_leader_counts_bruteforce, type_walk_work
from kinds.lights_out.kind import LightsOut
from kinds.lights_out.settings import LightsOutSettings
from kinds.lights_out.shape import Shape
from kinds.lights_out.solver import eliminate_shape, solver_bytes
from kinds.lights_out.stats import STATS_JOB_WORK, STATS_WORK, ShapeStatistics, StatsKernel
from kinds.lights_out.stored import solver_of
from tests.engine.contexts import StoredWords, engine_context

COLD = """
import time
started = time.perf_counter()
from kinds.lights_out.kind import LightsOut
from kinds.lights_out.settings import LightsOutSettings
from kinds.lights_out.shape import Shape
from tests.engine.contexts import StoredWords, engine_context
game = LightsOut(Shape.grid(256, 256, {topology!r}))
board = game.parse({text!r})
answer = game.solve(board, engine_context(StoredWords()))
elapsed = time.perf_counter() - started
assert answer.solvable and answer.solution
print(elapsed, len(answer.solution), answer.remoteness)
"""


def fresh() -> Context:
    """A request's context with nothing kept and nothing stored (a cold server)."""
    return engine_context(StoredWords())


def twenty() -> None:
    shape = Shape.grid(20, 20)
    ctx = fresh()
    game = LightsOut(shape)
    started = time.perf_counter()
    solver_of(shape, ctx)
    figure("lights-out 20x20: load the shape (elimination)", (time.perf_counter() - started) * 1e3, "ms")
    rng = random.Random(1)
    samples = []
    for _ in range(200):
        text = "/".join("".join(rng.choice("01") for _ in range(20)) for _ in range(20))
        started = time.perf_counter()
        board = game.parse(text)
        answer = game.solve(board, ctx)
        moves = game.press_values(board, ctx)
        samples.append(time.perf_counter() - started)
        assert answer.solvable and answer.remoteness is not None
        assert moves[0].answer.remoteness == answer.remoteness - 1
    figure(
        "lights-out 20x20: solvable + fewest presses + best move, median",
        statistics.median(samples) * 1e3,
        "ms",
    )
    figure("lights-out 20x20: same, worst of 200 random boards", max(samples) * 1e3, "ms")
    figure("lights-out 20x20: target", 50.0, "ms")


def cold_256() -> None:
    rng = random.Random(2)
    for topology in ("plane", "torus"):
        game = LightsOut(Shape.grid(256, 256, topology))
        board = 0
        for i in rng.sample(range(256 * 256), 5000):
            board = game.press(board, i)  # a solvable board (the plane's null space has dimension 144)
        code = COLD.format(topology=topology, text=game.format(board))
        wall = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        wall = time.perf_counter() - wall
        elapsed, presses, remoteness = out.stdout.split()
        figure(f"lights-out 256x256 {topology}, cold process: solvable + a solution", float(elapsed), "s")
        figure(f"lights-out 256x256 {topology}, the same with interpreter start", wall, "s")
        figure(
            f"lights-out 256x256 {topology}: presses in the solution ({remoteness=})", int(presses), "presses"
        )
    figure("lights-out 256x256 cold: target", 2.0, "s")


def stats_5x5() -> None:
    shape = Shape.grid(5, 5)
    started = time.perf_counter()
    stats = ShapeStatistics(shape).shape_stats()
    elapsed = time.perf_counter() - started
    counts = stats["distance_counts"]
    assert counts is not None and sum(counts) == 2**23
    figure(f"lights-out 5x5 stats (rank {stats['rank']}, diameter {stats['diameter']})", elapsed * 1e3, "ms")
    figure("lights-out 5x5 stats: target", 60_000.0, "ms")
    basis = eliminate_shape(shape).null_basis
    coset_leader_counts_bruteforce(basis, 9)  # compile or load outside the measurement
    started = time.perf_counter()
    assert coset_leader_counts_bruteforce(basis, 25) == counts
    figure(
        "lights-out 5x5 stats by walking all 2^25 press vectors (check)",
        (time.perf_counter() - started) * 1e3,
        "ms",
    )


def stats_job() -> None:
    """The worker's kernel for the family "stats", from a cold shape (the elimination included)."""
    rate = 0.0
    for rows, cols, topology, label in ((5, 5, "plane", "5x5"), (33, 33, "cylinder", "33x33:cylinder")):
        shape = Shape.grid(rows, cols, topology)
        live = ShapeStatistics(shape).shape_stats()
        started = time.perf_counter()
        StatsKernel(shape).words()
        elapsed = time.perf_counter() - started
        listed = "live has its counts too" if live["distance_counts"] is not None else "live: no counts"
        figure(f"lights-out {label} stats job ({listed})", elapsed * 1000, "ms")
        if label == "5x5":
            figure("lights-out 5x5 stats job: target", 60_000.0, "ms")
        else:  # the walk is most of this job: its rate, whole job counted
            rate = type_walk_work(eliminate_shape(shape).null_basis, shape.cells) / elapsed
    figure("lights-out stats job: walk rate (33x33:cylinder)", rate / 1e6, "M ops/s")
    figure(
        f"lights-out STATS_JOB_WORK = 2^{STATS_JOB_WORK.bit_length() - 1} at that rate",
        STATS_JOB_WORK / rate / 60,
        "min",
    )
    figure("lights-out STATS_JOB_WORK: target (within the hour)", 60.0, "min")
    # The live walk cannot be stopped: its bound (STATS_WORK) must hold for its true cost. 30x31 on the
    # torus has few steps but costly counts, and is refused live (its counts are a stats job's).
    torus = Shape.grid(30, 31, "torus")
    basis = eliminate_shape(torus).null_basis
    work = type_walk_work(basis, torus.cells)
    figure(
        "lights-out 30x31:torus walk, steps x 2^k only",
        type_walk_work(basis, torus.cells, counts_wanted=False),
        "ops",
    )
    figure("lights-out 30x31:torus walk with its counts (type_walk_work)", work, "ops")
    figure("  ... at the walk rate above", work / rate, "s")
    figure(f"  ... the live bound (STATS_WORK = 2^{STATS_WORK.bit_length() - 1})", STATS_WORK, "ops")


def polynomial() -> None:
    started = time.perf_counter()
    nullity = plane_nullity(100_000)
    figure(
        f"lights-out 100000x100000 nullity by polynomials (= {nullity})", time.perf_counter() - started, "s"
    )
    rng = random.Random(3)
    sample = [99_999, 98_303, 65_535, 65_534, 81_919, 90_111, 96_255]
    sample += rng.sample(range(50_000, 100_001), 13)
    worst, worst_n = 0.0, 0
    for n in sample:
        plane_nullity.cache_clear()
        started = time.perf_counter()
        plane_nullity(n)
        elapsed = time.perf_counter() - started
        if elapsed > worst:
            worst, worst_n = elapsed, n
    figure(
        f"lights-out nullity by polynomials, worst of {len(sample)} n >= 50,000 (n = {worst_n})", worst, "s"
    )
    figure("lights-out nullity by polynomials: target", 2.0, "s")
    for n in (64, 128, 256):
        plane_nullity.cache_clear()
        started = time.perf_counter()
        by_polynomial = plane_nullity(n)
        poly_time = time.perf_counter() - started
        started = time.perf_counter()
        by_elimination = eliminate_shape(Shape.grid(n, n)).nullity
        elim_time = time.perf_counter() - started
        assert by_polynomial == by_elimination
        figure(f"lights-out {n}x{n} nullity {by_polynomial}: polynomial method", poly_time * 1e3, "ms")
        figure(f"lights-out {n}x{n} nullity {by_elimination}: elimination (chase)", elim_time * 1e3, "ms")


def big_graph() -> None:
    side = 316
    n = side * side
    rng = random.Random(4)
    names = [f"v{i}" for i in range(n)]
    rng.shuffle(names)
    edges = []
    for r in range(side):
        for c in range(side):
            if c + 1 < side:
                edges.append([names[r * side + c], names[r * side + c + 1]])
            if r + 1 < side:
                edges.append([names[r * side + c], names[(r + 1) * side + c]])
    vertices = sorted(names)
    started = time.perf_counter()
    game = LightsOut.for_uploaded(build_graph("grid316", vertices, edges))
    figure(
        f"lights-out graph of {n:,} vertices, {len(edges):,} edges: checks and CSR",
        time.perf_counter() - started,
        "s",
    )
    started = time.perf_counter()
    ctx = fresh()
    solver = solver_of(game.shape, ctx).value
    elapsed = time.perf_counter() - started
    what = f"{solver.elimination.k} unknowns, nullity {solver.nullity}"
    figure(f"lights-out graph of {n:,} vertices: elimination ({what})", elapsed, "s")
    figure(f"lights-out graph of {n:,} vertices: kept elimination", solver_bytes(solver) / 2**20, "MiB")
    board = 0
    for i in rng.sample(range(n), 100):
        board = game.press(board, i)
    started = time.perf_counter()
    answer = game.solve(board, ctx)
    assert answer.solvable
    figure("lights-out graph of 100k vertices: solve a board", (time.perf_counter() - started) * 1e3, "ms")


def kept_eliminations() -> None:
    """What the keeper weighs each kept elimination (`solver_bytes`), beside its budget."""
    budget = LightsOutSettings().elimination_bytes
    for topology in ("plane", "torus"):
        weight = solver_bytes(solver_of(Shape.grid(256, 256, topology), fresh()).value)
        figure(f"lights-out 256x256 {topology}: kept elimination", weight / 2**20, "MiB")
        figure(
            f"  ... such shapes kept (NIMBASE_CACHE_LIGHTS_OUT_ELIMINATION_BYTES {budget >> 20} MiB)",
            budget // weight,
            "shapes",
        )


def main() -> None:
    for spec in ((3, 3), (5, 5)):  # load numba's cached kernels outside the measurements
        game = LightsOut(Shape.grid(*spec))
        ShapeStatistics(game.shape).shape_stats()
        game.press_values(game.flip_set(0), fresh())
    twenty()
    cold_256()
    stats_5x5()
    stats_job()
    polynomial()
    kept_eliminations()
    big_graph()


if __name__ == "__main__":
    main()
