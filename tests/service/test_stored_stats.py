"""GetStats of stored tables from the statistics their workers stored beside them, over REST and gRPC
against a real Nimbase: the same answer as the one computed from the tables (what GetStats gave before
statistics were stored, and still gives for a table stored without them), and given with the tables
themselves gone from the database, so it reads no table."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import sqlalchemy as sa

from nimbase.client import NimbaseClient
from nimbase.settings import Settings
from service.calls import SubmitJob
from service.core import Nimbase
from storage.schema import sequence_chunks, sequences
from tests.servers import running_server
from worker.runner import Worker

TOKEN = "stored-stats-token"
#: A heap table (rare/common figures, P-positions counted), an endgame table and its sub-table, and
#: every tier of a rules game.
JOBS = [("octal:0.6", 1 << 17), ("grundy", 40_000), ("chess:KRvK", 0), ("connect4:4x3", 0)]


@contextmanager
def serving(engine: sa.Engine) -> Iterator[tuple[httpx.Client, NimbaseClient]]:
    """A fresh Nimbase (nothing cached) behind both servers, and a client of each."""
    service = Nimbase(Settings(admin_token=TOKEN), engine)
    with (
        running_server(service) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=60) as http,
        NimbaseClient(f"127.0.0.1:{ports.grpc}", token=TOKEN, timeout=60) as client,
    ):
        yield http, client


def stats_over_rest(http: httpx.Client, game: str) -> dict[str, Any]:
    response = http.get("/v1/stats", params={"game": game})
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    found.pop("pending", None)
    return found


def test_stats_of_stored_tables_come_from_their_stored_statistics(clean_db: sa.Engine) -> None:
    service = Nimbase(Settings(admin_token=TOKEN), clean_db)
    for game, upto in JOBS:
        service.submit_job(SubmitJob(game, upto, token=TOKEN))
    Worker(clean_db, worker_id="stored-stats-worker", poll_seconds=0).run_until_idle(threading.Event())
    games = [game for game, _ in JOBS]
    with clean_db.begin() as conn:
        rows = conn.execute(sa.select(sequences.c.game_id, sequences.c.family, sequences.c.stats)).all()
        assert rows and all(row.stats is not None for row in rows), rows
        conn.execute(sequences.update().values(stats=None, stats_upto=None))  # as stored before them
    with serving(clean_db) as (http, _):
        from_tables = {game: stats_over_rest(http, game) for game in games}
    assert from_tables["octal:0.6"]["computed_upto"] == 1 << 17 and from_tables["chess:KRvK"]["wins"] > 0
    with clean_db.begin() as conn:
        for row in rows:
            conn.execute(
                sequences.update()
                .where(sequences.c.game_id == row.game_id, sequences.c.family == row.family)
                .values(stats=row.stats, stats_upto=sequences.c.computed_upto)
            )
        conn.execute(sequence_chunks.delete())  # every table gone
    with serving(clean_db) as (http, client):
        for game in games:
            stored = stats_over_rest(http, game)
            assert stored == from_tables[game], game
            over_grpc = dict(client.get_stats(game))
            over_grpc.pop("pending", None)
            assert over_grpc == stored, game
