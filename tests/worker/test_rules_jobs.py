"""Jobs of games defined by their rules, run by `nimbase worker`: rules that break the interface (a tier
going the wrong way, an encoding that does not round-trip) fail their tier's job with a message naming
the position, and nothing is stored for it; the tiers it waited for, solved from sound positions, are.

The broken game is a plugin found through the entry-point group at start-up, as any other: a module and
its distribution's metadata in a directory on the worker's PYTHONPATH (a worker process of its own: the
computing processes of a worker started earlier in this process would not find a plugin added since)."""

from __future__ import annotations

import os
import time
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
import sqlalchemy as sa

from engine import registry
from engine.registry import parse_game_id, plan_stored
from kinds.rules import plugins
from storage.jobs import Job, JobQueue
from storage.sequences import SequenceStore
from tests.e2e.processes import start_worker, stop

PLUGIN = '''
from nimbase_rules import LOSS, Family, Move, Rules


class Broken(Rules):
    """Take one token; the tier (the tokens left, said to shrink) grows from 3 tokens on."""

    game_id = "broken-rules"
    size = 6
    tier_order = -1
    name = description = position_syntax = "broken"
    examples = ("5",)

    def initial(self):
        return 5

    def parse(self, text):
        return int(text)

    def format(self, code):
        return str(code)

    def moves(self, code):
        return [Move("-1", code - 1)] if code else []

    def end(self, code):
        return LOSS

    def tier(self, code):
        return code if code < 3 else 10 - code


FAMILY = Family("broken-rules", lambda params: Broken())
'''


ROUND_TRIP = '''
from nimbase_rules import LOSS, Family, Move, Rules


class Misspelt(Rules):
    """Take one or two of 999 tokens, without tiers; every seventh count is written one too many, so its
    text parses to another position (the solve alone would not notice: it never writes a position)."""

    game_id = "misspelt-rules"
    size = 1000
    name = description = position_syntax = "misspelt"
    examples = ("999",)

    def initial(self):
        return 999

    def parse(self, text):
        return int(text)

    def format(self, code):
        return str(code + 1 if code % 7 == 0 else code)

    def moves(self, code):
        return [Move(f"-{k}", code - k) for k in (1, 2) if k <= code]

    def end(self, code):
        return LOSS


FAMILY = Family("misspelt-rules", lambda params: Misspelt())
'''


def install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, source: str, game: str) -> str:
    """A plugin's module and its distribution's metadata in a directory on a PYTHONPATH for the worker,
    and its family registered here."""
    (tmp_path / f"{module}.py").write_text(source)
    meta = tmp_path / f"{module}-0.1.dist-info"
    meta.mkdir()
    dist = module.replace("_", "-")
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    (meta / "entry_points.txt").write_text(f"[nimbase.games]\n{game} = {module}:FAMILY\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "FAMILIES", dict(registry.FAMILIES))
    point = EntryPoint(game, f"{module}:FAMILY", plugins.GROUP)
    registry.add(plugins.load([point], taken=registry.FAMILIES))
    return os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])


@pytest.fixture
def broken_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    return install(tmp_path, monkeypatch, "broken_rules_plugin", PLUGIN, "broken-rules")


@pytest.fixture
def misspelt_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    return install(tmp_path, monkeypatch, "misspelt_rules_plugin", ROUND_TRIP, "misspelt-rules")


def run_to_end(queue: JobQueue, job_id: int, database_url: str, pythonpath: str, tmp_path: Path) -> Job:
    """The job once a worker (a process of its own, finding the plugin) has run it to its end."""
    worker = start_worker(database_url, tmp_path / "worker.log", PYTHONPATH=pythonpath)
    try:
        deadline = time.monotonic() + 120
        while (ended := queue.get(job_id)) is not None and ended.status in ("queued", "running"):
            assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()
            time.sleep(0.3)
    finally:
        stop(worker)
    assert ended is not None
    return ended


def test_rules_breaking_the_interface_fail_their_job_naming_the_position(
    clean_db: sa.Engine, database_url: str, broken_plugin: str, tmp_path: Path
) -> None:
    game = parse_game_id("broken-rules")
    queue = JobQueue(clean_db)
    job = queue.submit_plan(game.plan_job(0), plan_stored)
    assert job.family == "tier:5"
    failed = run_to_end(queue, job.id, database_url, broken_plugin, tmp_path)
    assert failed.status == "failed", failed
    assert failed.error is not None and "position '5'" in failed.error and "tier" in failed.error
    store = SequenceStore(clean_db)
    broken = store.info("broken-rules", "tier:5")
    assert broken is None or broken.computed_upto == 0  # nothing stored for it
    assert all(store.info("broken-rules", f"tier:{t}") is not None for t in (0, 1, 2))


def test_an_encoding_that_does_not_round_trip_fails_its_job_naming_the_position(
    clean_db: sa.Engine, database_url: str, misspelt_plugin: str, tmp_path: Path
) -> None:
    game = parse_game_id("misspelt-rules")
    queue = JobQueue(clean_db)
    job = queue.submit_plan(game.plan_job(0), plan_stored)
    assert job.family == "tier:0"
    failed = run_to_end(queue, job.id, database_url, misspelt_plugin, tmp_path)
    assert failed.status == "failed", failed
    assert failed.error is not None
    assert "position '1' (code 0, tier 0) does not round-trip" in failed.error, failed.error
    assert "parses to code 1" in failed.error
    info = SequenceStore(clean_db).info("misspelt-rules", "tier:0")
    assert info is None or info.computed_upto == 0  # nothing stored
