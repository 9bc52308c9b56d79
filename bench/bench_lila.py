"""lichess's tablebase route on a stored table: `GET /standard?fen=` (lila-tablebase's shape) per position,
through the service layer (beside the previous path in the same run: every move's position probed board
by board) and over HTTP from a real `nimbase serve` (target 2 ms; answered on the event loop from a kept
table), with GetValue and BestMove of the same positions beside it (BestMove over HTTP runs in a worker
thread, as /standard did).

KRvK's table (with KvK's, which its captures reach) is stored in a fresh database first, as a worker's
jobs store it (bench.chess_cache), so the answers read a stored table (`source: "table"`), kept in the
server process after its first request.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import time

import httpx

from bench.bench_mainline import previous_path
from bench.chess_cache import store_tables
from bench.common import ADMIN_TOKEN, figure, fresh_database, latency_figures, running_server
from engine.deadline import Deadline
from engine.games.chess_tables import board_of_slot, parse_material
from kinds.chess import lila
from nimbase.settings import Settings
from service.core import Nimbase
from storage.database import create_engine

MATERIAL = "KRvK"
#: GET /standard on a stored table, per position.
TARGET_MS = 2.0


def positions(count: int, seed: int = 5) -> list[str]:
    """FENs of random legal KRvK positions, either side to move."""
    material = parse_material(MATERIAL)
    rng = random.Random(seed)
    fens: list[str] = []
    while len(fens) < count:
        board = board_of_slot(material, rng.randrange(material.slots))
        if board is not None:
            fens.append(board.fen())
    return fens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", type=int, default=1000)
    args = parser.parse_args([])
    fens = positions(args.queries)
    with fresh_database() as url:
        engine = create_engine(url)
        service = Nimbase(Settings(admin_token=ADMIN_TOKEN), engine)
        t0 = time.perf_counter()
        store_tables(engine, service, MATERIAL)
        figure(f"lila: storing the {MATERIAL} table (and KvK)", time.perf_counter() - t0, "s")
        deadline = Deadline.cancellable(time.monotonic() + 60)
        first = lila.standard(service, fens[0], deadline)
        assert first["moves"], "a stored table answers"
        assert service.get_value(f"chess:{MATERIAL}", fens[0]).source == "table"
        for label, path in (("", contextlib.nullcontext()), (" (previous path)", previous_path())):
            with path:
                t0, c0 = time.perf_counter(), time.process_time()
                for fen in fens:
                    lila.standard(service, fen, deadline)
                per, cpu = (time.perf_counter() - t0) / len(fens), (time.process_time() - c0) / len(fens)
            figure(f"lila: /standard, service layer{label}", per * 1e3, "ms")
            figure(f"lila: /standard, service layer{label}, CPU", cpu * 1e3, "ms")
        t0 = time.perf_counter()
        for fen in fens:
            service.get_value(f"chess:{MATERIAL}", fen)
        figure("lila: GetValue beside it, per position", (time.perf_counter() - t0) / len(fens) * 1e3, "ms")
        engine.dispose()

        with running_server(url) as server, httpx.Client(base_url=server.base, timeout=60) as http:
            http.get("/standard", params={"fen": fens[0]}).raise_for_status()  # the table read and kept
            samples: list[float] = []
            for fen in fens:
                started = time.perf_counter()
                response = http.get("/standard", params={"fen": fen.replace(" ", "_")})
                samples.append(time.perf_counter() - started)
                assert response.status_code == 200, response.text
            latency_figures("lila: GET /standard over HTTP (stored KRvK)", samples)
            figure("lila: GET /standard over HTTP, mean", statistics.fmean(samples) * 1e3, "ms")
            beside: list[float] = []
            for fen in fens:
                started = time.perf_counter()
                response = http.get("/v1/best-move", params={"game": f"chess:{MATERIAL}", "position": fen})
                beside.append(time.perf_counter() - started)
                assert response.status_code == 200, response.text
            figure("lila: GET /v1/best-move beside it over HTTP, mean", statistics.fmean(beside) * 1e3, "ms")
    figure("lila: GET /standard target", TARGET_MS, "ms")


if __name__ == "__main__":
    main()
