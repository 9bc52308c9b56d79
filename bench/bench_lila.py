"""lichess's tablebase route on a stored table: `GET /standard?fen=` (lila-tablebase's shape) per position,
through the service layer and over HTTP from a real `nimbase serve` (target 2 ms), with GetValue and
BestMove of the same positions beside it.

A worker's job stores KRvK's table in a fresh database first, so the answers read a stored table
(`source: "table"`), kept in the server process after its first request.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import httpx

from bench.common import ADMIN_TOKEN, figure, fresh_database, latency_figures, running_server
from engine.deadline import Deadline
from engine.games.chess_tables import board_of_slot, parse_material
from kinds.chess import lila
from nimbase.settings import Settings
from service.core import Nimbase
from storage.database import create_engine
from worker.runner import Worker

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
        service.submit_job(ADMIN_TOKEN, f"chess:{MATERIAL}", 0)
        t0 = time.perf_counter()
        Worker(engine).run_once()
        figure(f"lila: storing the {MATERIAL} table (a worker's job)", time.perf_counter() - t0, "s")
        deadline = Deadline.cancellable(time.monotonic() + 60)
        first = lila.standard(service, fens[0], deadline)
        assert first["moves"], "a stored table answers"
        assert service.get_value(f"chess:{MATERIAL}", fens[0]).source == "table"
        t0 = time.perf_counter()
        for fen in fens:
            lila.standard(service, fen, deadline)
        per = (time.perf_counter() - t0) / len(fens)
        figure("lila: /standard in the service layer, per position", per * 1e3, "ms")
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
