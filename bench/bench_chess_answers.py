"""GetValue and BestMove on a stored five-man table, and BatchGetValues over FENs, through the service
layer (service.core, as the servers call it), beside the previous path measured in the same run.

KQRvKR's table is taken from the benches' cache (bench.chess_cache: solved once, minutes of CPU the first
time) and stored in a fresh database as a worker's jobs store it; the service reads it once and keeps it.
Figures: the first answer (its table read from storage), the stored table's reading alone beside the
previous reader (each in a process of its own, with its peak memory: `--read`), the median and p99
latency of GetValue and BestMove over random positions (targets 1 ms and 5 ms), BestMove's previous path
beside it (every move's position probed board by board), and the values a second of BatchGetValues over
the same FENs.

    python -m bench.bench_chess_answers                   # KQRvKR
    python -m bench.bench_chess_answers --material KQvKR  # a four-man table, quicker to solve
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import time
import zlib
from collections.abc import Callable
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from bench.bench_mainline import MATERIAL, previous_path
from bench.chess_cache import FOLDER, solved_bytes, store_tables
from bench.common import ADMIN_TOKEN, figure, fresh_database
from kinds.chess import format as chess_format
from kinds.chess.format import ChessValues
from kinds.chess.tables import board_of_slot, parse_material
from nimbase.settings import Settings
from service.calls import BatchGetValues, BestMove, GetValue
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


def previous_reader(data: bytes) -> ChessValues:
    """ChessValues.from_bytes as it was: the stream inflated whole, its planes widened to 16 bits, then to
    32 to un-zigzag (several copies of the values at once)."""
    header = chess_format._HEADER
    _, _, n, delta, crc = header.unpack_from(data)
    raw = zlib.decompress(data[header.size :])
    if len(raw) != 4 * n or zlib.crc32(raw) != crc:
        raise chess_format.CorruptTable(f"a chess table of {n} slots fails its checksum")
    planes = np.frombuffer(raw, dtype=np.uint8).reshape(4, n).astype(np.uint16)

    def unzigzag(codes: NDArray[np.uint16]) -> NDArray[np.int16]:
        c = codes.astype(np.int32)
        return ((c >> 1) ^ -(c & 1)).astype(np.int16)

    dtm = unzigzag(planes[0] | (planes[1] << 8))
    dtz = unzigzag(planes[2] | (planes[3] << 8))
    if delta:
        dtz = (dtm.astype(np.int32) - dtz).astype(np.int16)
    return ChessValues(dtm, dtz, bool(delta))


def read_once(reader: str, name: str) -> None:
    """`--read`: read `name`'s stored bytes once with the reader named, and print its wall time, CPU time
    and this process's peak memory (bytes) on one line."""
    data = (FOLDER / f"{name}.bin").read_bytes()
    read = ChessValues.from_bytes if reader == "current" else previous_reader
    t0, c0 = time.perf_counter(), time.process_time()
    values = read(data)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert len(values) > 0
    print(wall, cpu, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, flush=True)


def bench_readers(name: str) -> None:
    """The stored table's reading, current and previous reader, each in a fresh process."""
    solved_bytes(name)  # in the benches' cache
    for reader, label in (("current", ""), ("previous", ", previous reader (same run)")):
        command = [sys.executable, "-m", "bench.bench_chess_answers", "--read", reader, "--material", name]
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout.split()
        wall, cpu, peak = (float(x) for x in out[-3:])
        figure(f"chess {name}: stored table read{label}", wall, "s")
        figure(f"chess {name}: stored table read{label}, CPU", cpu, "s")
        figure(f"chess {name}: stored table read{label}, peak memory", peak / 1e6, "MB")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--material", default=MATERIAL)
    parser.add_argument("--read", choices=("current", "previous"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv or [])
    if args.read is not None:
        read_once(args.read, args.material)
        return
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
            if service.get_value(GetValue(game, fens[0])).source != "table":
                raise SystemExit(f"{game} was not answered from its stored table")
            first = time.perf_counter() - started
            figure(f"chess {name}: first answer (table read from storage)", first, "s")
            bench_readers(name)
            for fen in fens[:20]:  # the sub-tables its moves reach, read once
                service.best_move(BestMove(game, fen))
            report(
                f"chess {name}: GetValue", latencies(lambda fen: service.get_value(GetValue(game, fen)), fens)
            )
            figure("chess five-man GetValue target", VALUE_TARGET_MS, "ms")
            report(
                f"chess {name}: BestMove", latencies(lambda fen: service.best_move(BestMove(game, fen)), fens)
            )
            with previous_path():
                slow = latencies(lambda fen: service.best_move(BestMove(game, fen)), fens)
            report(f"chess {name}: BestMove, previous path (same run)", slow)
            figure("chess five-man BestMove target", BEST_MOVE_TARGET_MS, "ms")
            size = min(len(fens), settings.limits.batch_positions)
            best, cpu = float("inf"), float("inf")
            for _ in range(3):
                t0, c0 = time.perf_counter(), time.process_time()
                service.batch_get_values(BatchGetValues(game, fens[:size]))
                best, cpu = min(best, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
            figure(f"chess {name}: BatchGetValues over FENs ({size} a batch)", size / best, "values/s")
            figure(f"chess {name}: BatchGetValues over FENs, per CPU second", size / cpu, "values/s")
        finally:
            engine.dispose()


if __name__ == "__main__":
    main(sys.argv[1:])
