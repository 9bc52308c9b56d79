"""The chess set built for real (issue 33): every material to five men, or its pawnless or pawn part, queued
as `nimbase precompute chess --men 5` queues it and run by N `nimbase worker` processes on this machine.

Long (an hour and more, so not in `make bench`'s list). The run keeps its own database (by name, on the
settings' server) and, beside it under NIMBASE_VAR_DIR, a log of what it measured, so that a run stopped
(Ctrl-C, or `--hours` reached: the workers put their jobs back, their checkpoints kept) is continued by
`--resume`, which queues nothing and starts the workers again; `--report` prints the figures without
running anything, `--sizes` the bytes each stored table would take in the format a worker writes now
(each read whole and written again in this process, nothing stored), and `--serve N` measures a server
answering N random positions drawn across every material the build stored (the issue's serving targets:
resident memory, GetValue and BestMove). The parts: `pawnless` (every material without pawns, whose
tables read only tables without pawns), then `all` (the rest: what is stored is not queued again). The
workers and the queue take their memory cap from the settings (NIMBASE_WORKER_MEMORY_BYTES): a five-man
material with pawns needs about 8 GiB, above the default, and a job no worker could finish is refused
when queued, not run.

Measured per material: the job's wall time (its row's start and end), the CPU time of the worker process
running it and of the worker's computing child while it ran it, and the largest resident size of the two
together (sampled each second), its stored bytes and bytes a position (legal positions counted by the
index). In all: the wall time the workers ran (over every resumed run), their CPU time, the stored bytes
and the database's size, beside the issue's targets (1 h for the whole set on two workers, 7.4 GB).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

import httpx
import sqlalchemy as sa

from bench.bench_chess_answers import positions
from bench.bench_chess_blocks import READY_SECONDS, p50_ms, resident_mib, timed
from bench.common import cpu_seconds, figure, pids_proportional, pids_resident, process_tree, running_server
from engine.precompute import plan_job
from engine.registry import bulk_ids, parse_game_id, plan_stored
from engine.stored_bytes import decode_words
from kinds.chess.blocks import to_side_blocks, values_from_bytes
from kinds.chess.kernels import index as ix
from kinds.chess.material import Material, materials_of
from nimbase.settings import Settings
from service.calls import GetStats, GetValue
from service.core import Nimbase
from service.jobs import worker_admission
from storage.database import create_engine
from storage.embedded import database_url
from storage.jobs import JobQueue
from storage.migrate import upgrade_head
from storage.packing import PLAIN_WIDTH, RAW
from storage.sequences import SequenceStore
from tests.facts import load_facts

DATABASE = "nimbase_chess_set"
#: Bytes a stored word holds (a stored object's length counts words).
WORD = 4
#: Seconds between samples of the workers' CPU and memory.
SAMPLE_SECONDS = 1.0
#: Slots whose legality is counted at a time (bounded memory for a five-man material).
COUNT_SLOTS = 1 << 24
TARGET_WALL = 3600.0
TARGET_BYTES = 7.4e9
#: Serving targets (issue 33): resident memory across the set, GetValue with a cold block, BestMove.
TARGET_RESIDENT_MIB = 1024.0
TARGET_COLD_MS = 2.0
TARGET_WARM_MS = 0.2
#: Calls of a formula answer over the same REST client: the round trip the transport itself costs.
FLOOR_CALLS = 300
TARGET_BEST_MOVE_MS = 10.0
#: Positions asked a BestMove of (of those asked a GetValue).
BEST_MOVES = 100


@dataclass
class JobFigures:
    """What the run measured of one material's job."""

    material: str
    slots: int
    cpu: float = 0.0
    peak_rss: int = 0
    wall: float = 0.0
    stored: int = 0
    positions: int = 0
    status: str = ""


@dataclass
class RunLog:
    """What every run of this build measured so far (kept as JSON beside the database)."""

    part: str = ""
    men: int = 5
    workers: int = 0
    #: Seconds the workers ran, over every run of the build.
    wall: float = 0.0
    #: CPU seconds of the workers and their children while no job of theirs ran (imports, waits).
    idle_cpu: float = 0.0
    jobs: dict[str, JobFigures] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path) -> RunLog:
        if not path.exists():
            return cls()
        data = json.loads(path.read_text())
        jobs = {name: JobFigures(**figures) for name, figures in data.pop("jobs").items()}
        return cls(**data, jobs=jobs)

    def write(self, path: Path) -> None:
        data: dict[str, Any] = asdict(self)
        path.with_suffix(".tmp").write_text(json.dumps(data, indent=1))
        path.with_suffix(".tmp").replace(path)


def part_materials(part: str, men: int) -> list[Material]:
    """The materials of `part` to `men` men in the order the set is queued."""
    every = materials_of(men)
    return [m for m in every if not m.pawnful] if part == "pawnless" else every


def queue_part(engine: sa.Engine, part: str, men: int, cap: int) -> int:
    """Queue `part`'s materials as `precompute chess --men 5` does (service.jobs.queue_set: only those no
    other reads are asked for, the rest come as their needs), the pawnless part alone when asked."""
    wanted = {m.game_id for m in part_materials(part, men)}
    plans = [plan_job(parse_game_id(g), 0, False, None) for g in bulk_ids("chess", men) if g in wanted]
    needed = {need for plan in plans for need in plan.needs}
    queue, admit = JobQueue(engine), worker_admission(cap)
    asked = 0
    for plan in plans:
        if plan.name not in needed:
            queue.queue(plan, plan_stored, admit)
            asked += 1
    return asked


class Build:
    """The workers and the sampling of what each one's job costs."""

    def __init__(self, url: str, log: RunLog, log_path: Path, out: Path) -> None:
        self.url, self.log, self.log_path, self.out = url, log, log_path, out
        self.engine = create_engine(url)
        self.queue = JobQueue(self.engine)
        self.by_name = {m.game_id: m for m in materials_of(5)}
        self.workers: list[subprocess.Popen[bytes]] = []

    def start(self, count: int) -> None:
        exe = shutil.which("nimbase") or str(Path(sys.executable).parent / "nimbase")
        env = {**os.environ, "DATABASE_URL": self.url}
        for n in range(count):
            with (self.out / f"worker-{n}.log").open("ab") as sink:
                self.workers.append(
                    subprocess.Popen([exe, "worker"], env=env, stdout=sink, stderr=subprocess.STDOUT)
                )

    def stop(self) -> None:
        for worker in self.workers:
            worker.send_signal(signal.SIGINT)
        for worker in self.workers:
            try:
                worker.wait(timeout=120)
            except subprocess.TimeoutExpired:
                worker.kill()

    def open_jobs(self, names: set[str]) -> list[Any]:
        return [
            job
            for job in self.queue.list(limit=10_000)
            if job.game_id in names and job.status not in ("done", "failed", "cancelled")
        ]

    def run(self, names: set[str], hours: float) -> None:
        """Sample until every job of `names` is done or failed, or `hours` have passed."""
        seen: dict[int, float] = {}  # each process's CPU time at the last sample
        started = time.monotonic()
        wall_before = self.log.wall
        while time.monotonic() - started < hours * 3600:
            time.sleep(SAMPLE_SECONDS)
            running = {
                job.lease_owner: job for job in self.queue.list(limit=10_000) if job.status == "running"
            }
            for worker in self.workers:
                pids = process_tree(worker.pid)
                spent = cpu_since(pids, seen)
                job = next((j for owner, j in running.items() if owner and f":{worker.pid}:" in owner), None)
                if job is None or job.game_id not in self.by_name:
                    self.log.idle_cpu += spent
                    continue
                material = self.by_name[job.game_id]
                figures = self.log.jobs.setdefault(material.name, JobFigures(material.name, material.slots))
                figures.cpu += spent
                figures.peak_rss = max(figures.peak_rss, pids_resident(pids))
            self.log.wall = wall_before + time.monotonic() - started
            self.log.write(self.log_path)
            if not self.open_jobs(names):
                break
            if any(w.poll() is not None for w in self.workers):
                raise SystemExit("a worker exited: see its log beside the run's log")


def cpu_since(pids: list[int], seen: dict[int, float]) -> float:
    """The CPU time `pids` spent since their last sample in `seen` (updated), each process apart: a job's
    child that exits between samples takes its time out of the tree's total, which must not count as a
    negative time of the next job or of the wait between jobs."""
    spent = 0.0
    for pid in pids:
        try:
            cpu = cpu_seconds(pid)
        except OSError:
            continue
        spent += max(0.0, cpu - seen.get(pid, 0.0))
        seen[pid] = cpu
    return spent


def legal_positions(material: Material) -> int:
    spec = material.spec
    return sum(
        int(ix.valid_mask(spec, lo, min(lo + COUNT_SLOTS, material.slots)).sum())
        for lo in range(0, material.slots, COUNT_SLOTS)
    )


def report(engine: sa.Engine, log: RunLog) -> None:
    """Each material's figures and the totals, from the log and the database."""
    store, queue = SequenceStore(engine), JobQueue(engine)
    jobs = {job.game_id: job for job in queue.list(limit=10_000)}
    print(
        f"{'material':<10} {'slots':>12} {'status':>8} {'wall s':>9} {'CPU s':>9} {'ns/slot':>8} "
        f"{'peak GiB':>9} {'stored MB':>10} {'B/position':>10}"
    )
    stored_total = cpu_total = 0.0
    done = 0
    part = log.part
    for material in part_materials(part, log.men):
        figures = log.jobs.setdefault(material.name, JobFigures(material.name, material.slots))
        job = jobs.get(material.game_id)
        info = store.info(material.game_id, "table")
        figures.status = job.status if job is not None else ("stored" if info is not None else "absent")
        if job is not None and job.started_at is not None and job.finished_at is not None:
            figures.wall = (job.finished_at - job.started_at).total_seconds()
        if info is not None and figures.status in ("done", "stored"):
            figures.stored = info.computed_upto * WORD
            if not figures.positions:
                figures.positions = legal_positions(material)
            done += 1
        stored_total += figures.stored
        cpu_total += figures.cpu
        per = figures.stored / figures.positions if figures.positions else float("nan")
        print(
            f"{material.name:<10} {material.slots:>12,} {figures.status:>8} {figures.wall:>9.1f} "
            f"{figures.cpu:>9.1f} {1e9 * figures.cpu / material.slots:>8.1f} "
            f"{figures.peak_rss / 2**30:>9.2f} {figures.stored / 1e6:>10.2f} {per:>10.4f}"
        )
    with engine.connect() as connection:
        size = connection.execute(sa.text("SELECT pg_database_size(current_database())")).scalar_one()
    what = f"chess set ({part}, {log.workers} workers)"
    figure(f"{what}: materials stored", done, f"of {len(part_materials(part, log.men))}")
    figure(f"{what}: wall time the workers ran", log.wall, "s")
    figure("chess set: the whole set's target (two workers)", TARGET_WALL, "s")
    figure(f"{what}: CPU time of the jobs", cpu_total, "s")
    figure(f"{what}: CPU time of the workers between jobs", log.idle_cpu, "s")
    figure(f"{what}: stored bytes of the tables", stored_total / 1e9, "GB")
    figure(f"{what}: the database's size", size / 1e9, "GB")
    figure("chess set: the whole set's stored target", TARGET_BYTES / 1e9, "GB")
    positions = sum(f.positions for f in log.jobs.values() if f.stored)
    if positions:
        figure(f"{what}: stored bytes a position", stored_total / positions, "B")


def serve(url: str, log: RunLog, queries: int) -> None:
    """One server process on the build's database answering `queries` random positions, each of a
    material drawn at random among those stored (more than two men): GetValue first asked (its block
    mostly cold: few positions share one), asked again (warm), BestMove, and the resident memory of the
    serving process (where blocks are kept) and of it with its live processes, ready and after them."""
    stored = [f.material for f in log.jobs.values() if f.stored and sum(c.isupper() for c in f.material) > 2]
    rng = random.Random(33)
    asked = [rng.choice(stored) for _ in range(queries)]
    fens = [positions(name, 1, rng.randrange(1 << 30))[0] for name in asked]
    what = f"chess set served ({len(stored)} materials, {queries} positions over REST)"
    with (
        running_server(url, 1, {"NIMBASE_LOG_LEVEL": "ERROR"}, ready_seconds=READY_SECONDS) as server,
        httpx.Client(base_url=server.base, timeout=600) as client,
    ):
        idle, idle_own = resident_mib(server), pids_resident([server.pid]) / 2**20
        idle_shared = pids_proportional(process_tree(server.pid)) / 2**20
        first = [timed(client, "/v1/value", f"chess:{n}", fen) for n, fen in zip(asked, fens, strict=True)]
        again = [timed(client, "/v1/value", f"chess:{n}", fen) for n, fen in zip(asked, fens, strict=True)]
        pairs = list(zip(asked, fens, strict=True))[:BEST_MOVES]
        best = [timed(client, "/v1/best-move", f"chess:{n}", fen) for n, fen in pairs]
        floor = [formula_timed(client) for _ in range(FLOOR_CALLS)]
        after, after_own = resident_mib(server), pids_resident([server.pid]) / 2**20
        after_shared = pids_proportional(process_tree(server.pid)) / 2**20
    figure(f"{what}: GetValue p50, first asked", p50_ms(first), "ms")
    # The first position asked of a material also reads its header and block index (the target
    # for a table's first answer in a fresh server is 50 ms); the others of it read a cold block alone.
    opened: set[str] = set()
    opening: list[float] = []
    cold: list[float] = []
    for name, ms in zip(asked, first, strict=True):
        (cold if name in opened else opening).append(ms)
        opened.add(name)
    figure(f"  ... the first position of each material ({len(opening)}): GetValue p50", p50_ms(opening), "ms")
    figure(f"  ... the other positions ({len(cold)}), each a cold block: GetValue p50", p50_ms(cold), "ms")
    figure("chess set served: GetValue p50 with a cold block: target", TARGET_COLD_MS, "ms")
    figure(f"{what}: GetValue p50, asked again", p50_ms(again), "ms")
    figure(f"{what}: BestMove p50", p50_ms(best), "ms")
    figure(
        "  ... a formula answer (Nim) over the same REST client: the transport's floor, p50",
        p50_ms(floor),
        "ms",
    )
    rng = random.Random(
        34
    )  # other positions: blocks the server's run did not bring into the database's cache
    in_process(url, asked, [positions(name, 1, rng.randrange(1 << 30))[0] for name in asked])
    figure("chess set served: BestMove p50: target", TARGET_BEST_MOVE_MS, "ms")
    plain = plain_words(url)
    for form, of in (("plain words, read by ranges", True), ("packed or deflated chunks, read whole", False)):
        firsts = [ms for name, ms in zip(asked, first, strict=True) if (name in plain) == of]
        bests = [ms for (name, _), ms in zip(pairs, best, strict=True) if (name in plain) == of]
        if firsts:
            count = len({name for name in asked if (name in plain) == of})
            figure(
                f"  ... tables stored as {form} ({count}): GetValue p50, first asked", p50_ms(firsts), "ms"
            )
        if bests:
            figure(f"  ... tables stored as {form}: BestMove p50", p50_ms(bests), "ms")
    figure(f"{what}: the serving process's resident memory, ready", idle_own, "MiB")
    figure(f"{what}: the serving process's resident memory, after", after_own, "MiB")
    figure(f"{what}: with its live processes, ready", idle, "MiB")
    figure(f"{what}: with its live processes, after", after, "MiB")
    # The live processes are forked from one template and share its pages: counted once each (Pss).
    figure(f"{what}: with its live processes, shared pages counted once, ready", idle_shared, "MiB")
    figure(f"{what}: with its live processes, shared pages counted once, after", after_shared, "MiB")
    figure("chess set served: server resident memory: target", TARGET_RESIDENT_MIB, "MiB")


def formula_timed(client: httpx.Client) -> float:
    """One REST GetValue of a formula answer (s): what a call costs with no table read."""
    started = time.perf_counter()
    client.get("/v1/value", params={"game": "nim", "position": "1 2"}).raise_for_status()
    return time.perf_counter() - started


def in_process(url: str, asked: list[str], fens: list[str]) -> None:
    """Positions of the same materials asked of a fresh service in this process (its blocks cold, then
    warm): the service's own time for each, without a transport's round trip."""
    service = Nimbase(Settings.from_env(), create_engine(url))

    def took(name: str, fen: str) -> float:
        started = time.perf_counter()
        value = service.get_value(GetValue(f"chess:{name}", fen))
        if value.source != "table":
            raise SystemExit(f"GetValue of {fen} in chess:{name}: from {value.source}, not a table")
        return time.perf_counter() - started

    opened: set[str] = set()
    first: list[float] = []
    for name, fen in zip(asked, fens, strict=True):
        ms = took(name, fen)
        if name in opened:
            first.append(ms)
        opened.add(name)
    again = [took(name, fen) for name, fen in zip(asked, fens, strict=True)]
    figure("chess set, the service in process: GetValue p50 with a cold block", p50_ms(first), "ms")
    figure("chess set, the service in process: GetValue p50 asked again (warm)", p50_ms(again), "ms")
    figure("chess set served: GetValue p50 warm: target", TARGET_WARM_MS, "ms")


def plain_words(url: str) -> set[str]:
    """The materials whose stored tables are plain words (what a worker stores now: a block is read by
    its byte range), not chunks packed or deflated (a table stored before, read a whole chunk at a time)."""
    engine = create_engine(url, pool_size=1)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text(
                    "SELECT game_id FROM sequence_chunks WHERE family = 'table' AND chunk_index = 0 "
                    "AND width = :width AND codec = :codec"
                ),
                {"width": PLAIN_WIDTH, "codec": RAW},
            ).all()
    finally:
        engine.dispose()
    return {str(row.game_id).partition(":")[2] for row in rows}


def written_now(url: str, name: str) -> tuple[str, int, int]:
    """(`name`, its stored bytes, the bytes of its values written in the format a worker writes now)."""
    engine = create_engine(url, pool_size=1)
    try:
        store, game_id = SequenceStore(engine), f"chess:{name}"
        info = store.info(game_id, "table")
        assert info is not None, name
        data = decode_words(store.read_range(game_id, "table", 0, info.computed_upto))
        material = next(m for m in materials_of(5) if m.name == name)
        return name, len(data), len(to_side_blocks(values_from_bytes(data), material))
    finally:
        engine.dispose()


def sizes(url: str, log: RunLog, workers: int) -> None:
    """Every stored table of the build written again in the format a worker writes now (by `workers`
    processes): its bytes beside what is stored, per material and in all."""
    names = [f.material for f in log.jobs.values() if f.stored]
    stored = now = 0
    with concurrent.futures.ProcessPoolExecutor(workers) as pool:
        for name, old, new in pool.map(written_now, [url] * len(names), names):
            stored, now = stored + old, now + new
            positions = log.jobs[name].positions
            print(
                f"{name:<10} stored {old:>13,} B  written now {new:>13,} B  {new / positions:.4f} B/position"
            )
    what = f"chess set ({log.part}): {len(names)} tables"
    figure(f"{what}, stored bytes", stored / 1e9, "GB")
    figure(f"{what}, in the format written now", now / 1e9, "GB")
    figure("chess set: the whole set's stored target", TARGET_BYTES / 1e9, "GB")


def truth(url: str, log: RunLog) -> None:
    """Each stored table's longest mate (the statistics its job stored beside it, as GetStats gives them:
    the longest win or loss in plies, either side to move) beside the Gaviota tables' longest mate of the
    material and Conrady's longest Nalimov mate where he gives one (`tests/data/chess_longest_wins.json`,
    sources in `tests/data/README.md`): every material built, checked without reading a table."""
    facts = load_facts("chess_longest_wins")
    conrady = {fact["material"]: fact["plies"] for fact in facts["longest_by_conrady"]}
    engine = create_engine(url, pool_size=1)
    service = Nimbase(Settings.from_env(), engine)
    agree = differ = 0
    try:
        for name in sorted(f.material for f in log.jobs.values() if f.stored):
            stats = service.get_stats(GetStats(f"chess:{name}"))
            ours = max(int(cast(int, stats["longest_win"])), int(cast(int, stats["longest_loss"])))
            published = facts["longest_dtm"].get(name, {}).get("plies", 0)
            verdict = "agree" if ours == published else "DIFFERS"
            agree, differ = agree + (ours == published), differ + (ours != published)
            more = f"  Conrady {conrady[name]}" if name in conrady else ""
            print(f"{name:<8} longest mate {ours:>4} plies  Gaviota {published:>4}  {verdict}{more}")
            if name in conrady and conrady[name] != ours:
                differ += 1
                print(f"{name:<8} DIFFERS from Conrady's {conrady[name]} plies")
    finally:
        engine.dispose()
    figure("chess set: stored tables whose longest mate agrees with the Gaviota tables", agree, "tables")
    figure("chess set: figures that differ (Gaviota, Conrady)", differ, "figures")


def _stop_on_signals() -> None:
    """SIGINT and SIGTERM stop the run as Ctrl-C does (the workers put their jobs back), even where the
    run was started in the background, which ignores SIGINT."""

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)


def main() -> None:
    _stop_on_signals()
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--part", choices=("pawnless", "all"), help="what to build (a new run: all)")
    parser.add_argument("--men", type=int, default=5, help="the most men (a new run)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--hours", type=float, default=24.0, help="stop the workers after this long")
    start = parser.add_mutually_exclusive_group()
    start.add_argument("--resume", action="store_true", help="continue the build (with --part all: its rest)")
    start.add_argument("--report", action="store_true", help="print the figures, run nothing")
    parser.add_argument("--serve", type=int, default=0, help="then serve this many random positions")
    parser.add_argument(
        "--truth", action="store_true", help="then each stored table's longest mate beside the published ones"
    )
    parser.add_argument("--sizes", action="store_true", help="then the tables' bytes in today's format")
    args = parser.parse_args()
    settings = Settings.from_env()
    out = Path(settings.var_dir) / "chess-set"
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "run.json"
    server = database_url(settings.database_url, settings.var_dir)
    head, _, query = server.partition("?")
    url = head.rsplit("/", 1)[0] + "/" + DATABASE + (f"?{query}" if query else "")
    fresh = not (args.resume or args.report)
    if fresh:
        admin = create_engine(server).execution_options(isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)'))
            connection.execute(sa.text(f'CREATE DATABASE "{DATABASE}"'))
        admin.dispose()
        log_path.unlink(missing_ok=True)
    upgrade_head(url)
    log = RunLog.read(log_path)
    build = Build(url, log, log_path, out)
    if fresh or (args.resume and args.part is not None and args.part != log.part):
        log.part = args.part or "all"
        log.men = args.men if fresh else log.men
        asked = queue_part(build.engine, log.part, log.men, settings.worker.memory_bytes)
        figure(f"chess set ({log.part}): jobs asked for (the rest queued as what they read)", asked, "jobs")
    if not args.report:
        log.workers = args.workers
        build.start(args.workers)
        try:
            build.run({m.game_id for m in part_materials(log.part, log.men)}, args.hours)
        except KeyboardInterrupt:
            print("stopping the workers: their jobs go back to the queue, --resume continues", flush=True)
        finally:
            build.stop()
            log.write(log_path)
    report(build.engine, log)
    log.write(log_path)
    if args.truth:
        truth(url, log)
    if args.sizes:
        sizes(url, log, args.workers)
    if args.serve:
        serve(url, log, args.serve)


if __name__ == "__main__":
    main()
