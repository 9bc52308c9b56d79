"""Precompute subtraction:1,3,4 to 10^7 including storage: values per second and stored bytes per value."""

from __future__ import annotations

import sys
import time

from bench.common import figure, fresh_database
from storage.database import create_engine
from storage.jobs import JobQueue
from storage.sequences import SequenceStore
from worker.runner import Worker

GAME = "subtraction:1,3,4"


def main(upto: int = 10_000_000) -> None:
    with fresh_database() as url:
        engine = create_engine(url)
        # Compile (or load from cache) the kernels outside the measured run.
        warm = JobQueue(engine).submit("subtraction:1,3,5", "heap", 1000, fill=True)
        Worker(engine).run_once()
        assert JobQueue(engine).get(warm.id) is not None
        job = JobQueue(engine).submit(GAME, "heap", upto, fill=True)
        started = time.perf_counter()
        Worker(engine).run_once()
        elapsed = time.perf_counter() - started
        done = JobQueue(engine).get(job.id)
        assert done is not None and done.status == "done", done
        info = SequenceStore(engine).info(GAME, "heap")
        assert info is not None and info.computed_upto == upto
        size = SequenceStore(engine).table_bytes()
        figure(f"precompute {GAME} to {upto:,}: wall time", elapsed, "s")
        figure(f"precompute {GAME} to {upto:,}: values per second", upto / elapsed, "values/s")
        figure(f"precompute {GAME} to {upto:,}: stored bytes per value", size / upto, "B/value")
        engine.dispose()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000)
