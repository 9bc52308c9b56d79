"""Runs every benchmark in turn; each prints its own figures."""

from __future__ import annotations

import importlib

SCRIPTS = (
    "bench.bench_precompute",
    "bench.bench_service",
    "bench.bench_columnar",
    "bench.bench_slow_readers",
    "bench.bench_grpc_layers",
    "bench.bench_kernels",
    "bench.bench_live",
    "bench.bench_bicolor",
    "bench.bench_lights_out",
    "bench.bench_graphs",
    "bench.bench_isolation",
    "bench.bench_retrograde",
    "bench.bench_lila",
    "bench.bench_mainline",
    "bench.bench_chess_answers",
    "bench.bench_rules",
    "bench.bench_chess",
    "bench.bench_chess_jobs",
    "bench.bench_stats",
    "bench.bench_misere",
    "bench.bench_lifecycle",
    "bench.bench_chess_blocks",
    "bench.bench_chess_stored",
    "bench.bench_start_cost",
)

for name in SCRIPTS:
    print(f"== {name}", flush=True)
    importlib.import_module(name).main()
