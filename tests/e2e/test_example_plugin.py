"""A game from a package outside the repository (examples/take_away): installed into a directory of its
own (`pip install --target`) put on the processes' PYTHONPATH, `nimbase serve` lists it, refuses it past
the live limit naming its job, `nimbase worker` solves it tier by tier, and both transports answer it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .processes import REPO, Server, start_server, start_worker, stop

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    target = tmp_path_factory.mktemp("plugin") / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(REPO / "examples" / "take_away"),
        ],
        check=True,
        capture_output=True,
    )
    assert any(p.name.startswith("nimbase_take_away") for p in target.iterdir())
    return os.pathsep.join([str(target), os.environ.get("PYTHONPATH", str(REPO))])


@pytest.fixture(scope="module")
def server(database_url: str, plugin_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    logs = tmp_path_factory.mktemp("plugin-server")
    # One live process (of the default two; it loads the plugin too): the refusal past the live limit
    # is still the pool's.
    running = start_server(
        database_url,
        logs / "server.log",
        PYTHONPATH=plugin_path,
        NIMBASE_LIMITS_RULES_LIVE_CODES_PLAIN="4",
        NIMBASE_LIMITS_LIVE_PROCESSES="1",
    )
    yield running
    stop(running.process)


def test_an_installed_plugin_is_listed_solved_and_answered(
    server: Server, database_url: str, plugin_path: str, tmp_path: Path
) -> None:
    with server.http() as http, server.client() as client:
        games = [g["id"] for g in http.get("/v1/games").json()["games"]]
        assert "take-away:10" in games
        refused = http.get("/v1/value", params={"game": "take-away:10", "position": "10"})
        assert refused.status_code == 422 and "take-away:10" in refused.json()["error"]["message"]
        job = client.submit_job("take-away:10", 0)
        assert job["family"] == "tier:10"
        worker = start_worker(database_url, tmp_path / "worker.log", PYTHONPATH=plugin_path)
        try:
            deadline = time.monotonic() + 180
            while client.get_job(job["id"])["status"] != "done":
                assert client.get_job(job["id"])["status"] in ("queued", "running"), client.get_job(job["id"])
                assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()
                time.sleep(0.5)
        finally:
            stop(worker)
        deadline = time.monotonic() + 30
        while True:  # the server looks at storage again within seconds
            value = http.get("/v1/value", params={"game": "take-away:10", "position": "10"}).json()
            if value.get("source") == "table" or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert value == {
            "game": "take-away:10",
            "position": "10",
            "outcome": "N",
            "remoteness": 7,
            "source": "table",
        }
        assert client.get_value("take-away:10", "10") == value
        best = client.best_move("take-away:10", "10")
        assert best["best_move"]["move"] == "-1" and best["best_move"]["position"] == "9"
        assert http.get("/v1/best-move", params={"game": "take-away:10", "position": "10"}).json() == best
        assert client.get_value("take-away:10", "9")["outcome"] == "P"
