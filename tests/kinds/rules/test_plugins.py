"""Plugins through the entry-point group `nimbase.games` (kinds.rules.plugins): found and registered,
the broken ones reported by name and left out, the shipped games declared as the installed package's
metadata (pyproject.toml's entry points, as `make test` installs them) says."""

from __future__ import annotations

import logging
import sys
import types
from collections.abc import Iterator
from importlib.metadata import EntryPoint, distribution

import pytest

from engine import registry
from engine.registry import list_games, parse_game_id
from kinds.rules import plugins
from nimbase_rules import Family
from nimbase_rules.games.tictactoe import TicTacToe


def test_shipped_games_are_the_entry_points_of_the_package() -> None:
    declared = distribution("nimbase").entry_points.select(group=plugins.GROUP)
    games = {ep.name: ep.value for ep in declared if ep.value.startswith("nimbase_rules.")}
    assert games == plugins.SHIPPED
    assert {ep.name for ep in plugins.installed()} >= set(plugins.SHIPPED)


@pytest.fixture
def fake_plugins() -> Iterator[str]:
    """A module of plugins, good and broken, importable by entry points."""
    module = types.ModuleType("fake_game_plugins")

    def crash(params: str | None) -> TicTacToe:
        raise RuntimeError("cannot make it")

    module.GOOD = Family("good-ttt", lambda params: _renamed(TicTacToe(), "good-ttt"))  # type: ignore[attr-defined]
    module.CRASHING = Family("crashing", crash)  # type: ignore[attr-defined]
    module.NOT_A_FAMILY = 42  # type: ignore[attr-defined]
    module.TAKEN = Family("nim", lambda params: TicTacToe())  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    yield module.__name__
    del sys.modules[module.__name__]


def _renamed(rules: TicTacToe, game_id: str) -> TicTacToe:
    rules.game_id = game_id
    return rules


def test_broken_plugins_are_reported_by_name_and_left_out(
    fake_plugins: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    points = [
        EntryPoint("good-ttt", f"{fake_plugins}:GOOD", plugins.GROUP),
        EntryPoint("crashing", f"{fake_plugins}:CRASHING", plugins.GROUP),
        EntryPoint("not-a-family", f"{fake_plugins}:NOT_A_FAMILY", plugins.GROUP),
        EntryPoint("missing", "no_such_module_anywhere:FAMILY", plugins.GROUP),
        EntryPoint("nim", f"{fake_plugins}:TAKEN", plugins.GROUP),
    ]
    with caplog.at_level(logging.ERROR):
        loaded = plugins.load(points, taken=registry.FAMILIES)
    assert set(loaded.families) == {"good-ttt"}
    assert set(loaded.broken) == {"crashing", "not-a-family", "missing", "nim"}
    assert "cannot make it" in loaded.broken["crashing"] and "taken" in loaded.broken["nim"]
    for name in loaded.broken:
        assert repr(name) in caplog.text
    monkeypatch.setattr(registry, "FAMILIES", dict(registry.FAMILIES))
    monkeypatch.setattr(registry, "BROKEN_PLUGINS", {})
    registry.add(loaded)
    assert parse_game_id("good-ttt").game_id == "good-ttt"
    assert "good-ttt" in [g.id for g in list_games()]
    assert set(registry.BROKEN_PLUGINS) == set(loaded.broken)
