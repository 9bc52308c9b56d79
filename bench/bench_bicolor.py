"""Bicolor Nim (issue: live values of 3-heap positions, families stored by workers).

- Live values: G and G- of the hardest positions of up to 3 heaps of up to 20 stones (the box kernel's
  cost is the product of the heaps' (white + 1) (black + 1), largest for three 10w10b heaps), each beside
  the 1 s target, and the box kernel against the plain memoised search (the previous path) on positions
  the search still finishes.
- Families: every family the workers store with n (and m) up to 8, filled to p = 100,000 by one worker
  from a fresh database, beside the 5-minute target.
"""

from __future__ import annotations

import random
import time

from bench.common import figure, fresh_database
from kinds.bicolor.kernels.boxes import Heaps, box_values, canonical, values_reference
from kinds.bicolor.kind import parse_family, stored_family_names
from storage.database import create_engine
from storage.jobs import JobQueue
from storage.sequences import SequenceStore
from worker.runner import Worker

#: The positions whose box is largest among 3 heaps of at most 20 stones each, and a few others.
HARD: tuple[Heaps, ...] = (
    ((10, 10), (10, 10), (10, 10)),
    ((9, 11), (10, 10), (11, 9)),
    ((20, 0), (10, 10), (0, 20)),
    ((7, 13), (13, 7), (10, 10)),
)
FAMILY_UPTO = 100_000
FAMILY_N = 8


def live_values() -> None:
    box_values(((1, 1), (1, 1)))  # compile (or load from cache) outside the measurements
    worst = 0.0
    for heaps in HARD:
        started = time.perf_counter()
        g, m, _ = box_values(heaps)
        elapsed = time.perf_counter() - started
        worst = max(worst, elapsed)
        text = " ".join(f"{w}w{b}b" for w, b in heaps)
        figure(f"bicolor G={g[-1]}, G-={m[-1]} of {text}", elapsed, "s")
    rng = random.Random(7)
    for _ in range(20):
        whites = [rng.randint(0, 20) for _ in range(3)]
        heaps = tuple((w, rng.randint(0, 20 - w)) for w in whites)
        started = time.perf_counter()
        box_values(heaps)
        worst = max(worst, time.perf_counter() - started)
    figure("bicolor live, worst of the above and 20 random 3-heap positions", worst, "s")
    figure("bicolor live, target", 1.0, "s")

    # The box kernel against the plain memoised search (the path it replaces) on the same positions.
    for heaps in (((4, 4), (4, 4), (4, 4)), ((6, 3), (5, 5), (2, 7))):
        text = " ".join(f"{w}w{b}b" for w, b in heaps)
        started = time.perf_counter()
        box_values(heaps)
        kernel = time.perf_counter() - started
        started = time.perf_counter()
        values_reference(canonical(heaps))
        search = time.perf_counter() - started
        figure(f"bicolor {text}: box kernel", kernel, "s")
        figure(f"bicolor {text}: memoised search (plain Python)", search, "s")


def families() -> None:
    names = stored_family_names(FAMILY_N)
    names = [name for name in names if max(parse_family(name).fixed) <= FAMILY_N]
    with fresh_database() as url:
        engine = create_engine(url)
        queue = JobQueue(engine)
        queue.submit("bicolor-nim", "f_2", 1000, fill=True)  # compile outside the measured run
        Worker(engine).run_once()
        with engine.begin() as connection:
            connection.exec_driver_sql("TRUNCATE sequences, sequence_chunks, jobs CASCADE")
        for name in names:
            queue.submit("bicolor-nim", name, FAMILY_UPTO, fill=True)
        started = time.perf_counter()
        worker = Worker(engine)
        while worker.run_once():
            pass
        elapsed = time.perf_counter() - started
        store = SequenceStore(engine)
        certified = 0
        for name in names:
            info = store.info("bicolor-nim", name)
            assert info is not None and info.computed_upto == FAMILY_UPTO, (name, info)
            certified += info.period is not None and info.period.certified
        figure(
            f"bicolor {len(names)} families (n, m <= {FAMILY_N}) to p = {FAMILY_UPTO:,}: worker time",
            elapsed,
            "s",
        )
        figure("bicolor families: target", 300.0, "s")
        figure("bicolor families with a certified period", certified, "families")
        engine.dispose()


def main() -> None:
    live_values()
    families()


if __name__ == "__main__":
    main()
