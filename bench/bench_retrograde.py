"""Retrograde analysis benchmarks for issue 9; prints figures (python -m bench.bench_retrograde [--help]).

- A random directed graph of 10 million edges: build (CSR), solve (win/loss/draw and remoteness, target
  60 s), generalised Sprague-Grundy values, bytes per vertex; the naive fixed point beside the kernel on
  a small graph.
- Chess: GetValue and BestMove per position from FENs through the service layer (target 5 ms); the
  tables' own figures (solve times, the generic CSR path beside the dedicated one, bytes per position)
  are bench.bench_chess'.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from bench.common import figure
from engine.kernels import retrograde as R
from kinds.chess.tables import board_of_slot, parse_material
from service.calls import BestMove, GetValue


def warm_up() -> None:
    """Load (or compile) every numba kernel once, so the timings below are of the computation."""
    indptr, indices = R.csr_from_edges(3, [0, 1, 1], [1, 0, 2])
    R.solve_graph(indptr, indices)
    R.loopy_grundy(indptr, indices)
    R.grundy_acyclic(*R.csr_from_edges(2, [0], [1]))


def bench_graph(vertices: int, edges: int) -> None:
    rng = np.random.default_rng(9)
    sources = rng.integers(0, vertices, edges)
    targets = rng.integers(0, vertices, edges)
    t0 = time.perf_counter()
    indptr, indices = R.csr_from_edges(vertices, sources, targets)
    figure(f"random graph {vertices:,} vertices {edges:,} edges: CSR build", time.perf_counter() - t0, "s")
    t0 = time.perf_counter()
    outcome, remoteness = R.solve_graph(indptr, indices)
    solve = time.perf_counter() - t0
    figure("random graph: solve (win/loss/draw + remoteness)", solve, "s")
    figure("random graph: solve target", 60.0, "s")
    figure("random graph: solve per edge", solve / edges * 1e9, "ns")
    t0 = time.perf_counter()
    R.loopy_grundy(indptr, indices)
    figure("random graph: generalised Sprague-Grundy values", time.perf_counter() - t0, "s")
    packed = R.pack(outcome, remoteness)
    figure("random graph: bytes per vertex in memory (outcome + remoteness)", packed.nbytes / vertices, "B")
    figure("random graph: stored bytes per vertex (deflated)", len(packed.to_bytes()) / vertices, "B")
    figure("random graph: wins / losses / draws (%)", 100 * float((outcome == 1).mean()), "% won")
    # A sparser graph with long lines: fewer draws, deep remoteness.
    sparse = edges // 10
    line_src = np.arange(vertices - 1)
    jump_src = rng.integers(0, vertices - 1, sparse)
    jump_dst = np.minimum(vertices - 1, jump_src + rng.integers(1, 50, sparse))
    src = np.concatenate([line_src, jump_src])
    dst = np.concatenate([line_src + 1, jump_dst])
    indptr, indices = R.csr_from_edges(vertices, src, dst)
    t0 = time.perf_counter()
    outcome, remoteness = R.solve_graph(indptr, indices)
    figure(f"acyclic graph with a line ({src.size:,} edges): solve", time.perf_counter() - t0, "s")
    figure("acyclic graph: longest remoteness", float(remoteness.max()), "plies")
    t0 = time.perf_counter()
    R.kernel_of_acyclic(indptr, indices)
    figure("acyclic graph: kernel (P-positions)", time.perf_counter() - t0, "s")


def bench_naive(vertices: int) -> None:
    """The naive fixed point costs a pass over every edge per level of remoteness: a line with random
    forward jumps and a few back edges (deep, with draws) shows the difference."""
    rng = np.random.default_rng(4)
    line = np.arange(vertices - 1)
    jumps = rng.integers(0, vertices - 1, vertices)
    back = rng.integers(1, vertices, vertices // 50)
    src = np.concatenate([line, jumps, back])
    dst = np.concatenate(
        [line + 1, np.minimum(vertices - 1, jumps + rng.integers(1, 4, vertices)), back // 2]
    )
    indptr, indices = R.csr_from_edges(vertices, src, dst)
    t0 = time.perf_counter()
    R.solve_graph_reference(indptr.tolist(), indices.tolist())
    naive = time.perf_counter() - t0
    t0 = time.perf_counter()
    _, remoteness = R.solve_graph(indptr, indices)
    fast = time.perf_counter() - t0
    label = f"{vertices:,} vertices {src.size:,} edges, remoteness up to {remoteness.max()}"
    figure(f"naive fixed point, {label}", naive, "s")
    figure(f"queue kernel, {label}", fast, "s")


def bench_served(queries: int) -> None:
    """GetValue and BestMove of chess positions through the service layer (service.core, as the servers
    call it, without a database): the tables kept in the process after the first request."""
    from nimbase.settings import Settings
    from service.core import Nimbase

    service = Nimbase(Settings(), None)
    rng = random.Random(3)
    for name in ("KRvK", "KQvK"):
        game = f"chess:{name}"
        material = parse_material(name)
        fens: list[str] = []
        while len(fens) < queries:
            board = board_of_slot(material, rng.randrange(material.slots))
            if board is not None:
                fens.append(board.fen())
        t0 = time.perf_counter()
        service.get_value(GetValue(game, fens[0]))
        figure(
            f"service chess {name}: first request (table solved live and kept)", time.perf_counter() - t0, "s"
        )
        t0 = time.perf_counter()
        for fen in fens:
            service.get_value(GetValue(game, fen))
        figure(
            f"service chess {name}: GetValue per position", (time.perf_counter() - t0) / queries * 1e3, "ms"
        )
        t0 = time.perf_counter()
        for fen in fens[: max(1, queries // 10)]:
            service.best_move(BestMove(game, fen))
        per = (time.perf_counter() - t0) / max(1, queries // 10)
        figure(f"service chess {name}: BestMove per position", per * 1e3, "ms")
    figure("service chess: query target", 5.0, "ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vertices", type=int, default=2_000_000)
    parser.add_argument("--edges", type=int, default=10_000_000)
    parser.add_argument(
        "--naive-vertices", type=int, default=3000, help="graph size for the naive fixed point"
    )
    parser.add_argument("--queries", type=int, default=2000)
    args = parser.parse_args()
    warm_up()
    bench_graph(args.vertices, args.edges)
    bench_naive(args.naive_vertices)
    bench_served(args.queries)


if __name__ == "__main__":
    main()
