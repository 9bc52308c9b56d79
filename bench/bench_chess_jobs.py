"""Chess tables through the real worker (issue 20): every 3- and 4-man material from an empty database.

`precompute chess --men 4` is queued the way the CLI queues it (service.jobs.queue_set) in a fresh database,
and ONE worker (worker.runner.Worker, its kernels in its computing child under the default memory cap)
runs the jobs until none is left: wall time, and the CPU time of the worker and its child (the process
tree below this one, the database's processes left out) beside the target of 3 minutes, with the
materials' count and their stored bytes a position. The same materials made in this process
(`TableKernel.make`, each from the stored bytes of those it reads: what bench.bench_chess measures) are
measured in the same run for comparison (--no-in-process: not).

The kernels are compiled (numba, or loaded from its cache) first, by making every material of up to three
men in this process, and that time is given apart: otherwise whichever of the two runs first compiles
them and writes the cache the other loads (some 25 s of CPU on a loaded machine), and the comparison
measures the compiler. The worker's child then loads them from the cache, as any worker's does once one
has run.

With `--five MATERIAL` (e.g. KQRvKR; long: minutes of CPU, some 3 GB), a fresh worker then runs that
five-man material's job with the default cap, its four-man tables stored first: whether it passes the cap,
its time, and the child's peak resident and address-space sizes.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import sqlalchemy as sa

from bench.common import cpu_seconds, figure, fresh_database, pids_cpu, process_tree
from engine.precompute import plan_job
from engine.registry import parse_game_id, plan_stored
from kinds.chess.kernels import index as ix
from kinds.chess.kind import TableKernel
from kinds.chess.material import Material, materials_of, parse_material
from nimbase.settings import DEFAULT_WORKER
from service.jobs import queue_set, worker_admission
from storage.database import create_engine
from storage.jobs import JobQueue
from storage.sequences import SequenceStore
from worker.runner import Worker

#: Four-byte words: how a stored object's length counts.
WORD = 4


def _ours() -> list[int]:
    """This process and those below it but the database's (an embedded server started from here)."""
    out = []
    for pid in process_tree(os.getpid()):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() not in ("postgres", "pg_ctl"):
                out.append(pid)
        except OSError:
            continue
    return out


def _peaks(pids: list[int]) -> tuple[int, int]:
    """The largest peak resident size (VmHWM) and address space (VmPeak) among `pids`, in bytes."""
    hwm = peak = 0
    for pid in pids:
        try:
            lines = Path(f"/proc/{pid}/status").read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            key, _, rest = line.partition(":")
            if key in ("VmHWM", "VmPeak"):
                kib = int(rest.split()[0]) << 10
                hwm, peak = (max(hwm, kib), peak) if key == "VmHWM" else (hwm, max(peak, kib))
    return hwm, peak


def run_worker(engine: sa.Engine, what: str) -> tuple[float, float, int, int]:
    """One worker with the default settings until no job is left: (wall s, CPU s of the worker and its
    child, the child's peak RSS, its peak address space), read before the child is stopped."""
    worker = Worker(engine)
    before, own = pids_cpu(_ours()), cpu_seconds(os.getpid())
    started = time.perf_counter()
    while worker.run_once():  # not run_until_idle: the child's CPU and peaks are read before it stops
        pass
    wall = time.perf_counter() - started
    pids = [pid for pid in _ours() if pid != os.getpid()]
    cpu, own = pids_cpu(_ours()) - before, cpu_seconds(os.getpid()) - own
    hwm, peak = _peaks(pids)
    worker.close()
    figure(f"{what} (wall)", wall, "s")
    figure(f"{what} (CPU, worker and its child)", cpu, "s")
    figure(f"{what} (CPU, the worker's own)", own, "s")
    return wall, cpu, hwm, peak


def make_in_process(materials: list[Material]) -> dict[str, bytes]:
    """Each material's table made in this process, in order, each from the bytes of those it reads."""
    made: dict[str, bytes] = {}
    for material in materials:
        kernel = TableKernel(material)
        kernel.give({need: made[need.game_id.partition(":")[2]] for need in kernel.needs()})
        made[material.name] = kernel.make()
    return made


def warm_up() -> None:
    """The kernels compiled (or loaded from numba's cache, which the worker's child then reads)."""
    wall, cpu = time.perf_counter(), time.process_time()
    make_in_process(materials_of(3))
    what = "chess: kernels compiled or loaded from cache (every 3-man material made), before both"
    figure(f"{what} (wall)", time.perf_counter() - wall, "s")
    figure(f"{what} (CPU)", time.process_time() - cpu, "s")


def bench_small(url: str, in_process: bool) -> None:
    warm_up()
    engine = create_engine(url)
    done = queue_set(JobQueue(engine), "chess", 4, False, worker_admission(DEFAULT_WORKER.memory_bytes))
    queued = len(done.asked)
    materials = materials_of(4)
    run_worker(engine, "chess: every 3- and 4-man material, one worker's jobs")
    figure("chess: every 3- and 4-man material: target", 180.0, "s")
    queue, store = JobQueue(engine), SequenceStore(engine)
    jobs = [job for job in queue.list(limit=10_000) if job.game_id.startswith("chess:")]
    failed = [f"{job.game_id}: {job.error}" for job in jobs if job.status != "done"]
    assert not failed, failed
    figure("chess: 3- and 4-man materials stored, one job each", len(jobs), "materials")
    figure("chess: 3- and 4-man jobs submitted (the others queued as what they read)", queued, "jobs")
    stored = positions = 0
    for material in materials:
        info = store.info(material.game_id, "table")
        assert info is not None, material.name
        stored += info.computed_upto * WORD
        positions += int(ix.valid_mask(material.spec, 0, material.slots).sum())
    figure("chess: 3- and 4-man materials: stored bytes per position (objects)", stored / positions, "B")
    figure("chess: 3- and 4-man materials: database bytes per position", store.table_bytes() / positions, "B")
    engine.dispose()
    if in_process:
        wall, cpu = time.perf_counter(), time.process_time()
        make_in_process(materials)
        what = "chess: every 3- and 4-man material, made in this process, this run"
        figure(f"{what} (wall)", time.perf_counter() - wall, "s")
        figure(f"{what} (CPU)", time.process_time() - cpu, "s")


def bench_five(url: str, name: str) -> None:
    """`name`'s job alone by a fresh worker under the default memory cap (its sub-tables stored)."""
    engine = create_engine(url)
    plan = plan_job(parse_game_id(f"chess:{name}"), 1)
    job = JobQueue(engine).submit_plan(plan, plan_stored)
    assert not job.waits_for, f"{name} reads tables not stored: {job.waits_for}"
    cap = DEFAULT_WORKER.memory_bytes
    _, _, hwm, peak = run_worker(engine, f"chess {name}: one job under the worker's default cap")
    figure(f"chess {name}: the worker's memory cap", cap / 2**30, "GiB")
    figure(f"chess {name}: the computing child's peak RSS", hwm / 2**30, "GiB")
    figure(f"chess {name}: the computing child's peak address space", peak / 2**30, "GiB")
    done = JobQueue(engine).get(job.id)
    assert done is not None
    figure(f"chess {name}: the job is done (1 yes)", int(done.status == "done"), done.error or "")
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-in-process", action="store_true", help="not the in-process comparison")
    parser.add_argument("--five", default="", help="also this five-man material's job (long), e.g. KQRvKR")
    args, _ = parser.parse_known_args()
    if args.five:
        parse_material(args.five)
    with fresh_database() as url:
        bench_small(url, not args.no_in_process)
        if args.five:
            bench_five(url, args.five)


if __name__ == "__main__":
    main()
