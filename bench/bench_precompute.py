"""Precompute to the issue's sizes including storage: values per second and stored bytes per value.

Each measurement runs in a fresh database, so the chunk table holds just that one sequence.
"""

from __future__ import annotations

import sys
import time

from bench.common import figure, fresh_database
from kinds.wythoff.kernels.tiles import PAIRS, values_for_side
from storage.database import create_engine
from storage.jobs import JobQueue
from storage.sequences import SequenceStore
from worker.runner import Worker

#: (game, family, values): a subtraction game filled past its period, Grundy's game, which has none,
#: and Wythoff's Grundy table of 4096 x 4096 pairs in tiles.
RUNS: tuple[tuple[str, str, int], ...] = (
    ("subtraction:1,3,4", "heap", 10_000_000),
    ("grundy", "heap", 1 << 20),
    ("wythoff", PAIRS, values_for_side(4096)),
)


def measure(game: str, family: str, upto: int) -> None:
    with fresh_database() as url:
        engine = create_engine(url)
        # Compile (or load from cache) the kernels outside the measured run.
        JobQueue(engine).submit(game, family, 1000, fill=True)
        Worker(engine).run_once()
        with engine.begin() as connection:
            connection.exec_driver_sql("TRUNCATE sequences, sequence_chunks, jobs CASCADE")
        job = JobQueue(engine).submit(game, family, upto, fill=True)
        started = time.perf_counter()
        Worker(engine).run_once()
        elapsed = time.perf_counter() - started
        done = JobQueue(engine).get(job.id)
        assert done is not None and done.status == "done", done
        info = SequenceStore(engine).info(game, family)
        assert info is not None and info.computed_upto == upto
        size = SequenceStore(engine).table_bytes()
        figure(f"precompute {game} to {upto:,}: wall time", elapsed, "s")
        figure(f"precompute {game} to {upto:,}: values per second", upto / elapsed, "values/s")
        figure(f"precompute {game} to {upto:,}: stored bytes per value", size / upto, "B/value")
        engine.dispose()


def main() -> None:
    for game, family, upto in RUNS:
        if len(sys.argv) > 1 and sys.argv[1] != game:
            continue
        measure(game, family, upto)


if __name__ == "__main__":
    main()
