"""GetStats of a stored table is answered by the server process from the statistics stored beside it
(read once, then kept in its memory), not by a live process (issue 32: GetStats within 100 ms). Before,
every GetStats went to a live process, a hop each time and the statistics read in that process."""

from __future__ import annotations

import threading

import sqlalchemy as sa

from nimbase.settings import Settings
from service.calls import GetStats, SubmitJob
from service.core import Nimbase
from service.pooled import PooledService
from worker.runner import Worker

TOKEN = "stats-in-process"
#: A heap table, an endgame table, a rules game's tiers, Wythoff's table and a bicolor Nim family.
JOBS = [("octal:0.6", 20_000), ("chess:KRvK", 0), ("connect4:4x3", 0), ("wythoff", 512)]


class NoPool:
    """A pool that must not be called."""

    size = 1

    def __init__(self) -> None:
        self.calls: list[str] = []

    def call(self, method: str, args: tuple[object, ...], deadline: object) -> object:
        self.calls.append(method)
        raise AssertionError(f"{method} went to a live process")


def test_stats_of_a_stored_table_are_answered_in_this_process(clean_db: sa.Engine) -> None:
    local = Nimbase(Settings(admin_token=TOKEN), clean_db)
    for game, upto in JOBS:
        local.submit_job(SubmitJob(game, upto, token=TOKEN))
    Worker(clean_db, worker_id=TOKEN, poll_seconds=0).run_until_idle(threading.Event())
    pool = NoPool()
    service = PooledService(local, pool)  # type: ignore[arg-type]
    for game, _ in JOBS:
        first = service.get_stats(GetStats(game))
        assert service.get_stats(GetStats(game)) == first, game
    assert pool.calls == []
    stats = service.get_stats(GetStats("octal:0.6"))
    assert stats["source"] == "table" and stats["computed_upto"] == 20_000
