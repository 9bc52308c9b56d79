"""GetStats of large stored tables (issue 32), answered from the statistics their workers stored beside
them, beside the target of 100 ms each.

In a fresh database, ONE worker (worker.runner.Worker, its kernels in its computing child) stores
`octal:0.6` to 2^23 values and `grundy` to 2^22, a four-man chess table (--chess, KBNvK), a five-man one
(--five, KNNvKN; its sub-tables first) and every tier of connect4:5x4 (--rules): the sizes the issue
names. Five-man materials without pawns have the fewest slots (242,221,056 each), and among them
knights have the fewest moves: KNNvKN's slots took two thirds of the time of the next fastest sampled
(KRRvKR, KBNvKN, KBBvKB, KNNvKB, KQQvKQ) to prepare. It is stored in about 10 minutes on a loaded
two-core machine, the rest in about five (--five '' skips it; --octal-log2, --grundy-log2,
--chess and --rules choose smaller ones, e.g. 16, 16, KQvKR and connect4:4x4 for a quick run). Each
storing time is printed, for information. Then `nimbase serve` (one process) answers `GET /v1/stats`
for each over a kept connection: the first answer (its statistics read from PostgreSQL), then the median
and the slowest of --repeats more, each beside the target.
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time

import httpx

from bench.common import ADMIN_TOKEN, figure, fresh_database, running_server
from nimbase.settings import Settings
from service.calls import SubmitJob
from service.core import Nimbase
from storage.database import create_engine
from storage.sequences import SequenceStore
from worker.runner import Worker

#: What each GetStats answer is judged against (issue 32), in milliseconds.
TARGET_MS = 100.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--octal-log2", type=int, default=23)
    parser.add_argument("--grundy-log2", type=int, default=22)
    parser.add_argument("--chess", default="KBNvK", help="a material of up to five men ('' for none)")
    parser.add_argument("--five", default="KNNvKN", help="a material of five men ('' for none)")
    parser.add_argument("--rules", default="connect4:5x4", help="a rules game ('' for none)")
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args(argv)
    jobs = [("octal:0.6", 1 << args.octal_log2), ("grundy", 1 << args.grundy_log2)]
    names = {"octal:0.6": f"octal:0.6 at 2^{args.octal_log2}", "grundy": f"grundy at 2^{args.grundy_log2}"}
    for material in dict.fromkeys(filter(None, (args.chess, args.five))):
        jobs.append((f"chess:{material}", 0))
        names[f"chess:{material}"] = f"chess:{material}"
    if args.rules:
        jobs.append((args.rules, 0))
        names[args.rules] = args.rules
    with fresh_database() as url:
        engine = create_engine(url)
        service = Nimbase(Settings(admin_token=ADMIN_TOKEN), engine)
        store = SequenceStore(engine)
        for game, upto in jobs:
            service.submit_job(SubmitJob(game, upto, token=ADMIN_TOKEN))
            started = time.perf_counter()
            Worker(engine, worker_id="bench-stats", poll_seconds=0).run_until_idle(threading.Event())
            figure(f"storing {names[game]} (worker, statistics included)", time.perf_counter() - started, "s")
            figure("  its statistics stored beside it (JSON)", _stats_bytes(store, game) / 1024, "KiB")
        engine.dispose()
        with (
            running_server(url, ready_seconds=600) as server,
            httpx.Client(base_url=server.base, timeout=120) as http,
        ):
            for game, _ in jobs:
                _measure(http, game, names[game], args.repeats)


def _stats_bytes(store: SequenceStore, game: str) -> int:
    """The bytes of the statistics stored beside every family of `game` (a rules game's tiers)."""
    found = (store.stats(info.game_id, info.family) for info in store.list_sequences(game))
    return sum(len(json.dumps(stats)) for _, stats in filter(None, found))


def _measure(http: httpx.Client, game: str, name: str, repeats: int) -> None:
    """The first GetStats of `game` and `repeats` more, each checked to be answered from the table."""
    times = []
    for _ in range(repeats + 1):
        started = time.perf_counter()
        response = http.get("/v1/stats", params={"game": game})
        times.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200 or response.json().get("source") != "table":
            raise RuntimeError(f"GetStats of {game!r}: {response.status_code} {response.text[:300]}")
    first, rest = times[0], times[1:]
    figure(f"GetStats {name}: first answer (target {TARGET_MS:.0f} ms)", first, "ms")
    figure(f"GetStats {name}: median of {repeats} (target {TARGET_MS:.0f} ms)", statistics.median(rest), "ms")
    figure(f"GetStats {name}: slowest of {repeats} (target {TARGET_MS:.0f} ms)", max(rest), "ms")


if __name__ == "__main__":
    main()
