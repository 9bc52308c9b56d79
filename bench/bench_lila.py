"""lichess's tablebase route on a stored table: `GET /standard?fen=` (lila-tablebase's shape) per position,
through the service layer (the JSON as the lean route writes it, beside the previous paths in the same
run: the dictionaries with python-chess's SAN and push, and every move's position probed board by board)
and over HTTP from a real `nimbase serve` with a keep-alive client (target 2 ms; answered on the event
loop from a kept table), beside the previous path served by a second server in the same run (GET
/standard as the FastAPI route it was, with python-chess's SAN and push) and beside `/healthz`, each with
the server's CPU time per request (read from /proc) and the client's; the machine's load average is
printed before and after (a shared machine's load inflates wall time). GetValue and BestMove of the same
positions are given beside it.

KRvK's table (with KvK's, which its captures reach) is stored in a fresh database first, as a worker's
jobs store it (bench.chess_cache), so the answers read a stored table (`source: "table"`), kept in the
server process after its first request.

    python -m bench.bench_lila

The second server runs the commit before GET /standard was lean (bench.at_commit.BEFORE_LAYOUT), from a
temporary git worktree.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from unittest import mock

import chess
import httpx

from bench.at_commit import BEFORE_LAYOUT, checkout
from bench.bench_mainline import previous_path
from bench.chess_cache import store_tables
from bench.common import (
    ADMIN_TOKEN,
    Server,
    cpu_seconds,
    figure,
    fresh_database,
    latency_figures,
    running_server,
)
from engine.deadline import Deadline
from kinds.chess import answers as chess_answers
from kinds.chess import san as chess_san
from kinds.chess.edge import lila
from kinds.chess.tables import board_of_slot, parse_material
from nimbase.settings import Settings
from service.calls import GetValue
from service.core import Nimbase
from storage.database import create_engine

MATERIAL = "KRvK"
#: GET /standard on a stored table, per position.
TARGET_MS = 2.0
#: What the route answers: lila's JSON as written (the lean route) or as a dictionary (the previous one).
Answer = Callable[[Nimbase, str, Deadline], object]
#: Rounds of the HTTP figures: each round asks every path in turn, so the machine's load falls on all.
ROUNDS = 5


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


def _python_chess_san(
    board: chess.Board, move: chess.Move, _kind: int, _capture: bool, _found: object
) -> str:
    return board.san(move).rstrip("+#")


def _pushed(board: chess.Board, move: chess.Move, _kind: int, _zeroing: bool) -> chess.Board:
    after = board.copy(stack=False)
    after.push(move)
    return after


@contextlib.contextmanager
def python_chess_san() -> Iterator[None]:
    """Each move's SAN as python-chess writes it (the moves generated again per move, and the position
    reached played to tell a check from a mate), and its board python-chess's pushed board, as the
    answers had them before kinds.chess.san and chess_answers.played."""
    with (
        mock.patch.object(chess_san, "written_with_others", _python_chess_san),
        mock.patch.object(chess_answers, "played", _pushed),
    ):
        yield


@contextlib.contextmanager
def previous_server(url: str) -> Iterator[Server]:
    """A second server answering GET /standard by the previous path (the FastAPI route it was, python-chess's
    SAN and push): that commit's `bench_lila --serve-previous`, run from a temporary worktree of it."""
    with checkout(BEFORE_LAYOUT) as tree:
        start = (
            f"import runpy, sys; sys.path[0] = {str(tree)!r}; sys.argv[1:] = ['--serve-previous']; "
            "runpy.run_module('bench.bench_lila', run_name='__main__', alter_sys=True)"
        )
        with running_server(url, command=["-c", start], settings={"PYTHONPATH": str(tree)}) as server:
            yield server


class Timed:
    """Latencies and CPU seconds (the server's, the client's) of one path's requests, over the rounds."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self.server_cpu = 0.0
        self.client_cpu = 0.0

    def run(
        self,
        http: httpx.Client,
        pid: int,
        ask: Callable[[httpx.Client, str], httpx.Response],
        fens: list[str],
    ) -> None:
        server, client = cpu_seconds(pid), time.process_time()
        for fen in fens:
            started = time.perf_counter()
            response = ask(http, fen)
            self.samples.append(time.perf_counter() - started)
            assert response.status_code == 200, response.text
        self.server_cpu += cpu_seconds(pid) - server
        self.client_cpu += time.process_time() - client

    def print(self, name: str) -> None:
        latency_figures(name, self.samples)
        figure(f"{name}: mean", statistics.fmean(self.samples) * 1e3, "ms")
        figure(f"{name}: server CPU per request", self.server_cpu / len(self.samples) * 1e3, "ms")
        figure(f"{name}: client CPU per request", self.client_cpu / len(self.samples) * 1e3, "ms")


def _standard(http: httpx.Client, fen: str) -> httpx.Response:
    return http.get("/standard", params={"fen": fen.replace(" ", "_")})


def _healthz(http: httpx.Client, _fen: str) -> httpx.Response:
    return http.get("/healthz")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", type=int, default=1000)
    args = parser.parse_args(argv or [])
    fens = positions(args.queries)
    print(f"load average (1, 5, 15 min) before: {load()} on {os.cpu_count()} cores", flush=True)
    with fresh_database() as url:
        engine = create_engine(url)
        service = Nimbase(Settings(admin_token=ADMIN_TOKEN), engine)
        t0 = time.perf_counter()
        store_tables(engine, service, MATERIAL)
        figure(f"lila: storing the {MATERIAL} table (and KvK)", time.perf_counter() - t0, "s")
        deadline = Deadline.cancellable(time.monotonic() + 60)
        first = lila.standard(service, fens[0], deadline)
        assert first["moves"], "a stored table answers"
        assert service.get_value(GetValue(f"chess:{MATERIAL}", fens[0])).source == "table"
        paths: tuple[tuple[str, contextlib.AbstractContextManager[None], Answer], ...] = (
            ("", contextlib.nullcontext(), lila.standard_json),
            (" (previous path: python-chess SAN, push)", python_chess_san(), lila.standard),
            (" (previous path: board by board)", previous_path(), lila.standard),
        )
        for label, path, answer in paths:
            with path:
                t0, c0 = time.perf_counter(), time.process_time()
                for fen in fens:
                    answer(service, fen, deadline)
                per, cpu = (time.perf_counter() - t0) / len(fens), (time.process_time() - c0) / len(fens)
            figure(f"lila: /standard, service layer{label}", per * 1e3, "ms")
            figure(f"lila: /standard, service layer{label}, CPU", cpu * 1e3, "ms")
        t0 = time.perf_counter()
        for fen in fens:
            service.get_value(GetValue(f"chess:{MATERIAL}", fen))
        figure("lila: GetValue beside it, per position", (time.perf_counter() - t0) / len(fens) * 1e3, "ms")
        engine.dispose()
        bench_http(url, fens)
    print(f"load average (1, 5, 15 min) after: {load()}", flush=True)
    figure("lila: GET /standard target", TARGET_MS, "ms")


def bench_http(url: str, fens: list[str]) -> None:
    """GET /standard over HTTP, lean and by the previous path, beside /healthz, in rounds."""
    with (
        running_server(url) as server,
        previous_server(url) as previous,
        httpx.Client(base_url=server.base, timeout=60) as http,
        httpx.Client(base_url=previous.base, timeout=60) as old,
    ):
        for client in (http, old):  # the table read and kept, the connection open
            _standard(client, fens[0]).raise_for_status()
        lean, before, health = Timed(), Timed(), Timed()
        share = max(1, len(fens) // ROUNDS)
        for k in range(ROUNDS):
            part = fens[k * share : (k + 1) * share]
            lean.run(http, server.pid, _standard, part)
            before.run(old, previous.pid, _standard, part)
            health.run(http, server.pid, _healthz, part)
        lean.print("lila: GET /standard over HTTP (stored KRvK)")
        before.print("lila: GET /standard over HTTP, previous path")
        health.print("lila: GET /healthz beside it")
        beside: list[float] = []
        for fen in fens:
            started = time.perf_counter()
            response = http.get("/v1/best-move", params={"game": f"chess:{MATERIAL}", "position": fen})
            beside.append(time.perf_counter() - started)
            assert response.status_code == 200, response.text
        figure("lila: GET /v1/best-move beside it over HTTP, mean", statistics.fmean(beside) * 1e3, "ms")


if __name__ == "__main__":
    main(sys.argv[1:])
