"""Main line timing: plies of best play through the service layer (service.core, as the servers call it)
from a stored endgame table.

KQvKR (with the three-man tables its moves lead to) is solved by a worker into a fresh database, as
`nimbase precompute` would store it; the service then answers from the table, kept in memory after its
first read. The figure is the time of 100 plies, from lines out of KQvKR's longest win and its
neighbours (a line ends at mate, so several lines make up the plies), beside the target for a stored
five-man table (<= 50 ms per 100 plies; its figure comes with five-man tables).

    python -m bench.bench_mainline
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from bench.common import ADMIN_TOKEN, figure, fresh_database
from nimbase.settings import Settings
from service.core import Nimbase
from storage.database import create_engine
from worker.runner import Worker

#: The stored material, and the tables its moves lead to (stored too, so every value is the table's).
MATERIAL = "KQvKR"
SUB_MATERIALS = ("KvK", "KQvK", "KRvK")
#: Plies the figure is given for, and the target for a five-man table.
PLIES = 100
TARGET_MS = 50.0
#: Times each set of lines is timed (the best is kept: the machine may be busy).
REPEATS = 5


def main() -> None:
    found = Settings.from_env()  # the database server: DATABASE_URL, else the embedded one (make: ./var/)
    settings = found.model_copy(
        update={"admin_token": ADMIN_TOKEN, "limits": replace(found.limits, request_seconds=3600.0)}
    )
    with fresh_database(settings) as url:
        engine = create_engine(url)
        try:
            service = Nimbase(settings, engine)
            started = time.perf_counter()
            for name in (*SUB_MATERIALS, MATERIAL):
                service.submit_job(ADMIN_TOKEN, f"chess:{name}", 0)
            Worker(engine, poll_seconds=0.05).run_until_idle(threading.Event())
            figure(
                f"chess {MATERIAL}: stored by a worker (with {len(SUB_MATERIALS)} tables)",
                time.perf_counter() - started,
                "s",
            )
            bench_lines(Nimbase(settings, engine))
        finally:
            engine.dispose()


def bench_lines(service: Nimbase) -> None:
    game = f"chess:{MATERIAL}"
    start = str(service.get_stats(game)["longest_win_position"])
    first = time.perf_counter()
    line = service.mainline(game, start, PLIES)
    figure(
        f"chess {MATERIAL}: first main line (tables read from storage)",
        (time.perf_counter() - first) * 1e3,
        "ms",
    )
    if line.source != "table":
        raise SystemExit(f"the main line of {start!r} came from {line.source!r}, not the stored table")
    # The positions the line passes through start lines of their own (the rest of it), until they hold
    # PLIES plies in all.
    positions = [start, *(move.value.position for move in line.moves)]
    starts, plies = [], 0
    for i, fen in enumerate(positions[:-1]):
        if plies >= PLIES:
            break
        starts.append(fen)
        plies += len(line.moves) - i
    best = float("inf")
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        timed = sum(len(service.mainline(game, fen, PLIES).moves) for fen in starts)
        best = min(best, time.perf_counter() - t0)
    figure(f"chess {MATERIAL}: longest win's main line", float(len(line.moves)), "plies")
    figure(f"chess {MATERIAL}: main line, per {PLIES} plies (stored table)", best / timed * PLIES * 1e3, "ms")
    figure(f"chess five-man main line target, per {PLIES} plies", TARGET_MS, "ms")


if __name__ == "__main__":
    main()
