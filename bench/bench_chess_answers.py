"""GetValue and BestMove on a stored five-man table, and BatchGetValues over FENs, through the service
layer (service.core, as the servers call it), beside the previous path measured in the same run.

KQRvKR's table is taken from the benches' cache (bench.chess_cache: solved once, minutes of CPU the first
time) and stored in a fresh database as a worker's jobs store it; the service reads it once and keeps it.
Figures: the median and p99 latency of GetValue and BestMove over random positions (targets 1 ms and
5 ms), BestMove's previous path beside it (every move's position probed board by board), and the values
a second of BatchGetValues over the same FENs.

    python -m bench.bench_chess_answers                   # KQRvKR
    python -m bench.bench_chess_answers --material KQvKR  # a four-man table, quicker to solve
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace

from bench.bench_mainline import MATERIAL, previous_path
from bench.chess_cache import store_tables
from bench.common import ADMIN_TOKEN, figure, fresh_database
from engine.games.chess_tables import board_of_slot, parse_material
from nimbase.settings import Settings
from service.core import Nimbase
from storage.database import create_engine

#: Targets on a stored five-man table (ms).
VALUE_TARGET_MS = 1.0
BEST_MOVE_TARGET_MS = 5.0
#: Random positions asked.
QUERIES = 500


def positions(name: str, count: int, seed: int = 3) -> list[str]:
    """FENs of random legal positions of `name`, either side to move, either colouring."""
    material, rng = parse_material(name), random.Random(seed)
    fens: list[str] = []
    while len(fens) < count:
        board = board_of_slot(material, rng.randrange(material.slots))
        if board is not None:
            fens.append((board.mirror() if rng.random() < 0.5 else board).fen())
    return fens


def latencies(call: Callable[[str], object], fens: list[str]) -> tuple[list[float], float]:
    """Each call's wall time, sorted, and the mean CPU time of this process per call (which other
    processes' load on a shared machine inflates far less)."""
    samples: list[float] = []
    cpu = time.process_time()
    for fen in fens:
        started = time.perf_counter()
        call(fen)
        samples.append(time.perf_counter() - started)
    return sorted(samples), (time.process_time() - cpu) / len(fens)


def report(name: str, timed: tuple[list[float], float]) -> None:
    samples, cpu = timed
    figure(f"{name}: median", statistics.median(samples) * 1e3, "ms")
    figure(f"{name}: p99", samples[int(len(samples) * 0.99) - 1] * 1e3, "ms")
    figure(f"{name}: CPU per call", cpu * 1e3, "ms")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--material", default=MATERIAL)
    args = parser.parse_args(argv or [])
    name, fens = args.material, positions(args.material, QUERIES)
    game = f"chess:{name}"
    found = Settings.from_env()
    settings = found.model_copy(
        update={"admin_token": ADMIN_TOKEN, "limits": replace(found.limits, request_seconds=3600.0)}
    )
    with fresh_database(settings) as url:
        engine = create_engine(url)
        try:
            service = Nimbase(settings, engine)
            store_tables(engine, service, name)
            started = time.perf_counter()
            if service.get_value(game, fens[0]).source != "table":
                raise SystemExit(f"{game} was not answered from its stored table")
            first = time.perf_counter() - started
            figure(f"chess {name}: first answer (table read from storage)", first, "s")
            for fen in fens[:20]:  # the sub-tables its moves reach, read once
                service.best_move(game, fen)
            report(f"chess {name}: GetValue", latencies(lambda fen: service.get_value(game, fen), fens))
            figure("chess five-man GetValue target", VALUE_TARGET_MS, "ms")
            report(f"chess {name}: BestMove", latencies(lambda fen: service.best_move(game, fen), fens))
            with previous_path():
                slow = latencies(lambda fen: service.best_move(game, fen), fens)
            report(f"chess {name}: BestMove, previous path (same run)", slow)
            figure("chess five-man BestMove target", BEST_MOVE_TARGET_MS, "ms")
            size = min(len(fens), settings.limits.batch_positions)
            best, cpu = float("inf"), float("inf")
            for _ in range(3):
                t0, c0 = time.perf_counter(), time.process_time()
                service.batch_get_values(game, fens[:size])
                best, cpu = min(best, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
            figure(f"chess {name}: BatchGetValues over FENs ({size} a batch)", size / best, "values/s")
            figure(f"chess {name}: BatchGetValues over FENs, per CPU second", size / cpu, "values/s")
        finally:
            engine.dispose()


if __name__ == "__main__":
    main(sys.argv[1:])
