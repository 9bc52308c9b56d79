"""Jobs of games defined by their rules, run by `nimbase worker`: rules that break the interface (a tier
going the wrong way) fail their tier's job with a message naming the position, and nothing is stored for
it; the tiers it waited for, solved from sound positions, are.

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

from engine.games import registry
from engine.games.registry import parse_game_id, plan_stored
from engine.rules import plugins
from storage.jobs import JobQueue
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


@pytest.fixture
def broken_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The plugin's directory on a PYTHONPATH for the worker, and its family registered here."""
    (tmp_path / "broken_rules_plugin.py").write_text(PLUGIN)
    meta = tmp_path / "broken_rules_plugin-0.1.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-rules-plugin\nVersion: 0.1\n")
    (meta / "entry_points.txt").write_text("[nimbase.games]\nbroken-rules = broken_rules_plugin:FAMILY\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "FAMILIES", dict(registry.FAMILIES))
    point = EntryPoint("broken-rules", "broken_rules_plugin:FAMILY", plugins.GROUP)
    registry.add_plugins(plugins.load([point], taken=registry.FAMILIES))
    return os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])


def test_rules_breaking_the_interface_fail_their_job_naming_the_position(
    clean_db: sa.Engine, database_url: str, broken_plugin: str, tmp_path: Path
) -> None:
    game = parse_game_id("broken-rules")
    queue = JobQueue(clean_db)
    job = queue.submit_plan(game.plan_job(0), plan_stored)
    assert job.family == "tier:5"
    worker = start_worker(database_url, tmp_path / "worker.log", PYTHONPATH=broken_plugin)
    try:
        deadline = time.monotonic() + 120
        while (failed := queue.get(job.id)) is not None and failed.status in ("queued", "running"):
            assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()
            time.sleep(0.3)
    finally:
        stop(worker)
    assert failed is not None and failed.status == "failed", failed
    assert failed.error is not None and "position '5'" in failed.error and "tier" in failed.error
    store = SequenceStore(clean_db)
    broken = store.info("broken-rules", "tier:5")
    assert broken is None or broken.computed_upto == 0  # nothing stored for it
    assert all(store.info("broken-rules", f"tier:{t}") is not None for t in (0, 1, 2))
