"""Main line timing: plies of best play through the service layer (service.core, as the servers call it)
from a stored five-man endgame table, beside the previous path measured in the same run.

KQRvKR's table (and the tables its moves lead to) is solved once into the benches' cache
(bench.chess_cache, minutes of CPU the first time) and stored in a fresh database as a worker's jobs
store it; the service then answers from the table, kept in memory after its first read. The figure is the
time of 100 plies, from lines out of long wins found among random positions (a line ends at mate, so
several lines make up the plies), against the target (<= 50 ms per 100 plies). Beside it, the previous
path: each ply valued as BestMove values it, every move with its SAN, FEN and probe board by board
(`ChessGame.slow_line_moves`, BestMove's batched probes turned off).

    python -m bench.bench_mainline                      # KQRvKR
    python -m bench.bench_mainline --material KQvKR     # a four-man table, quicker to solve
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from unittest import mock

from bench.chess_cache import store_tables
from bench.common import ADMIN_TOKEN, figure, fresh_database
from kinds.chess import kind as chess_kind
from kinds.chess.kind import ChessGame
from kinds.chess.tables import board_of_slot, parse_material
from nimbase.settings import Settings
from service.calls import GetValue, Mainline
from service.core import Nimbase
from storage.database import create_engine

#: The stored five-man material.
MATERIAL = "KQRvKR"
#: Plies the figure is given for, and the target for a five-man table.
PLIES = 100
TARGET_MS = 50.0
#: Times each set of lines is timed (the best is kept: the machine may be busy).
REPEATS = 3
#: Random positions looked at for long wins to start lines from.
SAMPLES = 400


@contextmanager
def previous_path() -> Iterator[None]:
    """The main line and BestMove as they were: each step from BestMove's whole answer, every move's
    position probed board by board."""
    with (
        mock.patch.object(ChessGame, "line_moves", ChessGame.slow_line_moves),
        mock.patch.object(chess_kind, "child_probes", lambda *_args: None),
    ):
        yield


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--material", default=MATERIAL)
    args = parser.parse_args(argv or [])
    found = Settings.from_env()  # the database server: DATABASE_URL, else the embedded one (make: ./var/)
    settings = found.model_copy(
        update={"admin_token": ADMIN_TOKEN, "limits": replace(found.limits, request_seconds=3600.0)}
    )
    with fresh_database(settings) as url:
        engine = create_engine(url)
        try:
            service = Nimbase(settings, engine)
            started = time.perf_counter()
            store_tables(engine, service, args.material)
            stored = time.perf_counter() - started
            figure(f"chess {args.material}: stored (kept bytes, with its sub-tables)", stored, "s")
            bench_lines(Nimbase(settings, engine), args.material)
        finally:
            engine.dispose()


def long_wins(service: Nimbase, name: str, count: int) -> list[str]:
    """FENs of the longest wins among SAMPLES random positions, longest first."""
    material, rng = parse_material(name), random.Random(7)
    found: list[tuple[int, str]] = []
    while len(found) < SAMPLES:
        board = board_of_slot(material, rng.randrange(material.slots))
        if board is None:
            continue
        value = service.get_value(GetValue(f"chess:{name}", board.fen()))
        if value.outcome == "N" and value.remoteness is not None:
            found.append((value.remoteness, board.fen()))
    return [fen for _, fen in sorted(found, reverse=True)[:count]]


def line_starts(service: Nimbase, game: str, fens: list[str]) -> list[str]:
    """Positions of the game's material on the lines out of `fens` whose lines hold PLIES plies in all
    (a capture leaves the material: the line goes on in another table, not a start of this game)."""
    starts: list[str] = []
    plies = 0
    for fen in fens:
        line = service.mainline(Mainline(game, fen, PLIES))
        positions = [fen, *(move.value.position for move in line.moves if move.value.game == game)]
        for i, start in enumerate(positions[: len(line.moves)]):
            if plies >= PLIES:
                return starts
            starts.append(start)
            plies += len(line.moves) - i
    return starts


def time_lines(service: Nimbase, game: str, starts: list[str]) -> tuple[float, float]:
    """The best time of PLIES plies of main lines from `starts`, in ms: wall time, and this process's
    CPU time (which other processes' load on a shared machine inflates far less)."""
    best, cpu = float("inf"), float("inf")
    for _ in range(REPEATS):
        t0, c0 = time.perf_counter(), time.process_time()
        timed = sum(len(service.mainline(Mainline(game, fen, PLIES)).moves) for fen in starts)
        best, cpu = min(best, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
    return best / timed * PLIES * 1e3, cpu / timed * PLIES * 1e3


def bench_lines(service: Nimbase, name: str) -> None:
    game = f"chess:{name}"
    first = time.perf_counter()
    service.get_value(GetValue(game, ChessGame(parse_material(name)).info().examples[0]))
    figure(f"chess {name}: first answer (table read from storage)", (time.perf_counter() - first) * 1e3, "ms")
    wins = long_wins(service, name, 3)
    line = service.mainline(Mainline(game, wins[0], PLIES))
    if line.source != "table":
        raise SystemExit(f"the main line of {wins[0]!r} came from {line.source!r}, not the stored table")
    figure(f"chess {name}: longest sampled win's main line", float(len(line.moves)), "plies")
    starts = line_starts(service, game, wins)
    fast = time_lines(service, game, starts)
    with previous_path():
        slow = time_lines(service, game, starts)
    figure(f"chess {name}: main line, per {PLIES} plies (stored table)", fast[0], "ms")
    figure(f"chess {name}: previous path, per {PLIES} plies (same run)", slow[0], "ms")
    figure(f"chess {name}: main line, CPU per {PLIES} plies", fast[1], "ms")
    figure(f"chess {name}: previous path, CPU per {PLIES} plies", slow[1], "ms")
    figure(f"chess five-man main line target, per {PLIES} plies", TARGET_MS, "ms")


if __name__ == "__main__":
    main(sys.argv[1:])
