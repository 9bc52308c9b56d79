"""Broken plugins installed beside the service: `nimbase serve` and `nimbase worker` start with them on
their path, report each at start-up by name in their logs and leave it out; the server answers /healthz
and ListGames (over both transports, without them), and the worker solves a shipped game's job.

Three distributions register under the entry-point group `nimbase.games`: one whose module raises on
import, one whose rules object is malformed (a Rules subclass lacking its moves, so no game can be made),
and one whose entry point names something that is not a Family."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .processes import REPO, Server, start_server, start_worker, stop

pytestmark = pytest.mark.e2e

MODULES = {
    "raising_plugin": 'raise RuntimeError("this plugin cannot be imported")\n',
    "malformed_plugin": '''
from nimbase_rules import Family, Rules


class Malformed(Rules):
    """Declares no moves nor end: not a rules object one can make."""

    game_id = "malformed-rules"
    size = 3

    def initial(self):
        return 0


FAMILY = Family("malformed-rules", lambda params: Malformed())
''',
    "not_a_family_plugin": "FAMILY = {'name': 'not-a-family'}\n",
}
#: Entry-point name -> object, one distribution each.
POINTS = {
    "raising-rules": "raising_plugin:FAMILY",
    "malformed-rules": "malformed_plugin:FAMILY",
    "not-a-family": "not_a_family_plugin:FAMILY",
}


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    site = tmp_path_factory.mktemp("broken-plugins")
    for module, source in MODULES.items():
        (site / f"{module}.py").write_text(source)
    for name, value in POINTS.items():
        dist = name.replace("-", "_")
        info = site / f"nimbase_test_{dist}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: nimbase-test-{name}\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text(f"[nimbase.games]\n{name} = {value}\n")
    return os.pathsep.join([str(site), os.environ.get("PYTHONPATH", str(REPO))])


@pytest.fixture(scope="module")
def server(database_url: str, plugin_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    logs = tmp_path_factory.mktemp("broken-plugins-server")
    # One live process (it loads the plugins too): the server is ready sooner on a busy machine.
    running = start_server(
        database_url, logs / "server.log", PYTHONPATH=plugin_path, NIMBASE_LIMITS_LIVE_PROCESSES="1"
    )
    yield running
    stop(running.process)


def named_in(log: str) -> dict[str, bool]:
    return {name: f"game plugin {name!r}" in log for name in POINTS}


def test_the_server_starts_answers_and_names_each_broken_plugin(server: Server) -> None:
    with server.http() as http, server.client() as client:
        health = http.get("/healthz")
        assert health.status_code == 200, health.text
        listed = http.get("/v1/games")
        assert listed.status_code == 200
        games = [g["id"] for g in listed.json()["games"]]
        assert client.list_games() == listed.json()
    assert "tictactoe" in games and "connect4:4x4" in games
    assert not [g for g in games if g.split(":")[0] in POINTS]
    with server.http() as http:
        missing = http.get("/v1/value", params={"game": "malformed-rules", "position": "0"})
        assert missing.status_code == 404
        shipped = http.get("/v1/value", params={"game": "tictactoe", "position": ".../.../..."})
        assert shipped.status_code == 200, shipped.text
    log = server.log()
    assert named_in(log) == dict.fromkeys(POINTS, True), log
    assert "this plugin cannot be imported" in log and "not a nimbase_rules.Family" in log


def test_a_worker_starts_names_them_and_solves_a_shipped_game(
    server: Server, database_url: str, plugin_path: str, tmp_path: Path
) -> None:
    log_path = tmp_path / "worker.log"
    worker = start_worker(database_url, log_path, PYTHONPATH=plugin_path)
    try:
        with server.client() as client:
            job = client.submit_job("tictactoe", 0)
            deadline = time.monotonic() + 180
            while (status := client.get_job(job["id"])["status"]) != "done":
                assert status in ("queued", "running"), client.get_job(job["id"])
                assert worker.poll() is None, log_path.read_text()
                assert time.monotonic() < deadline, log_path.read_text()
                time.sleep(0.5)
    finally:
        stop(worker)
    log = log_path.read_text(errors="replace")
    assert named_in(log) == dict.fromkeys(POINTS, True), log
