"""Chess tables served from blocks (kinds.chess.blocks) against the same tables stored whole, as tables
were stored before blocks, in the same run: one `nimbase serve` process per figure set, on loopback,
over REST.

- the first GetValue on a stored table in a fresh server process (the whole form reads and inflates the
  whole table first);
- GetValue p50 with a cold block (a server keeping no block and no storage chunk: every answer reads its
  block from the database) and warm (positions asked again);
- BestMove p50 over random positions (the blocks their moves reach read as they come);
- the server's resident memory after answering random positions across every stored material;
- GetValue (cold block: its bytes read from the database, by their range alone where the table is
  stored as plain words; its block inflated again from storage chunks kept in memory; warm) and
  BestMove (first asked, again) in the service layer itself, in this process, without the transport's
  cost.

The material is a four-man one by default (KQvKR and the tables it reads): a five-man table and its
sub-tables take far longer than a bench run to solve on a loaded machine. `--material KQRvKR` measures a
five-man one (solved once and kept on disk by bench.chess_cache).

    python -m bench.bench_chess_blocks [--material KQvKR] [--queries 300]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

import httpx

from bench.bench_chess_answers import latencies, positions
from bench.chess_cache import solved_bytes, store_tables
from bench.common import (
    ADMIN_TOKEN,
    Server,
    figure,
    fresh_database,
    pids_resident,
    process_tree,
    running_server,
)
from kinds.chess.blocks import to_blocks
from kinds.chess.format import ChessValues
from kinds.chess.kind import TABLE
from kinds.chess.material import parse_material, solve_order
from nimbase.settings import Settings
from service.calls import BestMove, GetValue
from service.core import Nimbase
from storage.database import create_engine
from storage.packing import CHUNK_VALUES

MATERIAL = "KQvKR"
#: Targets (issue 33), in ms, and MiB for the resident memory of a server answering across the set.
FIRST_MS = 50.0
COLD_MS = 2.0
WARM_MS = 0.2
BEST_MOVE_MS = 10.0
RESIDENT_MIB = 1024.0
#: How long a server may take to be ready on a loaded machine (it loads every kind's kernels first).
READY_SECONDS = 600.0
#: A server that keeps no block and no storage chunk: every GetValue reads its block from storage.
COLD = {"NIMBASE_CACHE_CHESS_BLOCK_BYTES": "1", "NIMBASE_CACHE_CHUNK_BYTES": "1"}


def blocked(data: bytes) -> bytes:
    """A table stored whole (the bench's kept bytes) stored by blocks instead: the same values."""
    return to_blocks(ChessValues.from_bytes(data))


def bench_settings(variables: dict[str, str] | None = None) -> Settings:
    """The service's settings from the environment and `variables` (NIMBASE_*), long requests allowed."""
    saved = dict(os.environ)
    os.environ.update(variables or {})
    try:
        found = Settings.from_env()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return found.model_copy(
        update={"admin_token": ADMIN_TOKEN, "limits": replace(found.limits, request_seconds=3600.0)}
    )


@contextmanager
def stored(name: str, encode: Callable[[bytes], bytes] | None) -> Iterator[str]:
    """A fresh database holding `name`'s table and the tables it reads, in the form `encode` gives."""
    settings = bench_settings()
    with fresh_database(settings) as url:
        engine = create_engine(url)
        try:
            store_tables(engine, Nimbase(settings, engine), name, encode)
        finally:
            engine.dispose()
        yield url


@contextmanager
def serving(url: str, settings: dict[str, str] | None = None) -> Iterator[tuple[Server, httpx.Client]]:
    """A fresh one-process server on the database `url`, and a REST client of it."""
    with (
        running_server(url, 1, settings, ready_seconds=READY_SECONDS) as server,
        httpx.Client(base_url=server.base, timeout=600) as client,
    ):
        yield server, client


def timed(client: httpx.Client, path: str, game: str, fen: str) -> float:
    """One REST call's wall time (s); SystemExit when it is not answered from a stored table."""
    started = time.perf_counter()
    answer = client.get(path, params={"game": game, "position": fen})
    took = time.perf_counter() - started
    if answer.status_code != 200 or answer.json().get("source") != "table":
        raise SystemExit(f"{path} of {fen} in {game}: {answer.status_code} {answer.text[:200]}")
    return took


def p50_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3


def resident_mib(server: Server) -> float:
    """VmRSS of the server's processes together (MiB)."""
    return pids_resident(process_tree(server.pid)) / 2**20


def measure(url: str, name: str, fens: list[str], spread: list[tuple[str, str]]) -> dict[str, float]:
    """The figures of one stored form: first GetValue, GetValue warm, BestMove, resident memory."""
    game = f"chess:{name}"
    out: dict[str, float] = {}
    with serving(url) as (server, client):
        out["idle"] = resident_mib(server)
        out["first"] = timed(client, "/v1/value", game, fens[0]) * 1e3
        other, fen = spread[0]  # another table's first answer: the kernels are loaded by now
        out["second"] = timed(client, "/v1/value", f"chess:{other}", fen) * 1e3
        out["best"] = p50_ms([timed(client, "/v1/best-move", game, fen) for fen in fens])
        for fen in fens:  # every block these positions fall in read once
            timed(client, "/v1/value", game, fen)
        out["warm"] = p50_ms([timed(client, "/v1/value", game, fen) for fen in fens])
        for material, fen in spread:
            timed(client, "/v1/value", f"chess:{material}", fen)
        out["resident"] = resident_mib(server)
    return out


def cold(url: str, name: str, fens: list[str]) -> float:
    """GetValue p50 (ms) on a server keeping no block and no storage chunk (the table's index is kept)."""
    game = f"chess:{name}"
    with serving(url, COLD) as (_, client):
        timed(client, "/v1/value", game, fens[0])
        return p50_ms([timed(client, "/v1/value", game, fen) for fen in fens])


def in_process(url: str, name: str, fens: list[str]) -> dict[str, float]:
    """The service layer's own figures (no transport), each service fresh: GetValue with a cold block (a
    service keeping no block and no storage chunk) and warm, BestMove first asked and asked again (ms)."""
    game, out = f"chess:{name}", {}
    engine = create_engine(url)
    try:
        cold = Nimbase(bench_settings(COLD), engine)
        cold.get_value(GetValue(game, fens[0]))  # the table's index, and the kernels, read once
        out["cold"] = p50_ms(latencies(lambda fen: cold.get_value(GetValue(game, fen)), fens)[0])
        unkept = Nimbase(bench_settings({"NIMBASE_CACHE_CHESS_BLOCK_BYTES": "1"}), engine)
        # Its storage chunks read whole and kept (as a whole reader keeps them): a block's range is read
        # from them, no longer from the database (which reads a block's range alone, not its chunk).
        for index in range(-(-unkept.tables.stored_size(game, TABLE) // CHUNK_VALUES)):
            unkept.tables.chunk(game, index, TABLE)
        latencies(lambda fen: unkept.get_value(GetValue(game, fen)), fens)
        out["inflate"] = p50_ms(latencies(lambda fen: unkept.get_value(GetValue(game, fen)), fens)[0])
        service = Nimbase(bench_settings(), engine)
        out["best first"] = p50_ms(latencies(lambda fen: service.best_move(BestMove(game, fen)), fens)[0])
        out["best"] = p50_ms(latencies(lambda fen: service.best_move(BestMove(game, fen)), fens)[0])
        out["warm"] = p50_ms(latencies(lambda fen: service.get_value(GetValue(game, fen)), fens)[0])
    finally:
        engine.dispose()
    return out


def row(what: str, new: float, target: float, old: float | None, unit: str) -> None:
    figure(f"chess blocks: {what}", new, unit)
    figure(f"chess blocks: {what}: target", target, unit)
    if old is not None:
        figure(f"chess blocks: {what}: stored whole (this run)", old, unit)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--material", default=MATERIAL)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args(argv or [])
    name = parse_material(args.material).name
    for material in solve_order([parse_material(name)]):
        solved_bytes(material.name)  # solved once, kept on disk, before anything is timed
    fens = positions(name, args.queries)
    rng = random.Random(5)
    materials = [m.name for m in solve_order([parse_material(name)]) if m.men > 2]
    spread = [(m, fen) for m in materials for fen in positions(m, args.queries, rng.randrange(1 << 30))]
    rng.shuffle(spread)
    print(f"chess blocks: {name} ({len(fens)} positions) and the tables it reads: {', '.join(materials)}")
    with stored(name, blocked) as url:
        new = measure(url, name, fens, spread)
        new_cold = cold(url, name, fens)
        layer = in_process(url, name, fens)
    with stored(name, None) as url:
        old = measure(url, name, fens, spread)
        old_layer = in_process(url, name, fens)
    row(f"{name} first GetValue in a fresh server", new["first"], FIRST_MS, old["first"], "ms")
    row("first GetValue on another stored table, same server", new["second"], FIRST_MS, old["second"], "ms")
    row(f"{name} GetValue p50 over REST, cold block", new_cold, COLD_MS, None, "ms")
    row(f"{name} GetValue p50 over REST, warm", new["warm"], WARM_MS, old["warm"], "ms")
    row(f"{name} BestMove p50 over REST (first asked)", new["best"], BEST_MOVE_MS, old["best"], "ms")
    row(f"{name} GetValue p50 in the service, cold block", layer["cold"], COLD_MS, old_layer["cold"], "ms")
    row(f"{name} GetValue p50 in the service, block inflated again", layer["inflate"], COLD_MS, None, "ms")
    row(f"{name} GetValue p50 in the service, warm", layer["warm"], WARM_MS, old_layer["warm"], "ms")
    first, again = layer["best first"], layer["best"]
    row(
        f"{name} BestMove p50 in the service, first asked", first, BEST_MOVE_MS, old_layer["best first"], "ms"
    )
    row(f"{name} BestMove p50 in the service, asked again", again, BEST_MOVE_MS, old_layer["best"], "ms")
    figure("chess blocks: resident memory of a fresh server, blocks (no table read yet)", new["idle"], "MiB")
    figure("chess blocks: resident memory of a fresh server, stored whole (this run)", old["idle"], "MiB")
    row(
        f"server resident memory after {len(spread)} positions of {len(materials)} materials",
        new["resident"],
        RESIDENT_MIB,
        old["resident"],
        "MiB",
    )


if __name__ == "__main__":
    main(sys.argv[1:])
