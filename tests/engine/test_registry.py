"""Game ids: canonical parsing, the errors bad ids get, ListGames, adding a family, and the families
found through the entry points (every kind's, none named by the registry)."""

from __future__ import annotations

import logging
import sys
import types
from collections.abc import Iterator
from importlib.metadata import EntryPoint, distribution

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import registry
from engine.errors import InvalidGameId, UnknownGame
from engine.families import GROUP, FamilySource, Found
from engine.registry import MAX_GAME_ID_CHARS, Family, list_games, parse_game_id
from kinds.heaps.nim import NimGame
from kinds.heaps.subtraction import SubtractionGame


@pytest.mark.parametrize(
    ("text", "canonical", "misere"),
    [
        ("nim", "nim", False),
        ("nim:misere", "nim:misere", True),
        ("subtraction:1,3,4", "subtraction:1,3,4", False),
        ("subtraction:4,3,1,3", "subtraction:1,3,4", False),
        ("subtraction:01,2", "subtraction:1,2", False),
        ("subtraction:1,3,4:misere", "subtraction:1,3,4:misere", True),
        ("subtraction:1000000", "subtraction:1000000", False),
    ],
)
def test_valid_ids(text: str, canonical: str, misere: bool) -> None:
    game = parse_game_id(text)
    assert game.game_id == canonical
    assert game.misere == misere
    assert parse_game_id(canonical).game_id == canonical


@given(st.sets(st.integers(min_value=1, max_value=10**6), min_size=1, max_size=64), st.booleans())
def test_subtraction_ids_round_trip(moves: set[int], misere: bool) -> None:
    shuffled = ",".join(map(str, moves)) + (":misere" if misere else "")
    game = parse_game_id("subtraction:" + shuffled)
    assert isinstance(game, SubtractionGame)
    assert game.moves == tuple(sorted(moves))
    assert parse_game_id(game.game_id).game_id == game.game_id


@pytest.mark.parametrize(
    "text",
    [
        "",
        ":nim",
        "Nim x",
        "subtraction",
        "subtraction:",
        "subtraction:0,2",
        "subtraction:1.5",
        "subtraction:1,,2",
        "subtraction:1,",
        "subtraction:-1",
        "subtraction:+1",
        "subtraction: 1",
        "subtraction:1,2:misery",
        "subtraction:1,2:misere:misere",
        "nim:foo",
        "nim:",
        "nim:misere:x",
    ],
)
def test_invalid_ids_quote_the_text(text: str) -> None:
    with pytest.raises(InvalidGameId) as info:
        parse_game_id(text)
    assert repr(text) in str(info.value)
    assert info.value.code == "INVALID_ARGUMENT"


def test_set_limits_are_named() -> None:
    with pytest.raises(InvalidGameId, match="limit of 64"):
        parse_game_id("subtraction:" + ",".join(map(str, range(1, 66))))
    with pytest.raises(InvalidGameId, match="limit of 1000000"):
        parse_game_id("subtraction:1,1000001")
    with pytest.raises(InvalidGameId, match=f"limit of {MAX_GAME_ID_CHARS}"):
        parse_game_id("subtraction:" + "1," * 2000 + "1")
    assert parse_game_id("subtraction:" + "1," * 100 + "2").game_id == "subtraction:1,2"


@pytest.mark.parametrize("text", ["go:9x9", "foo", "octopus:0.7"])
def test_unknown_families(text: str) -> None:
    with pytest.raises(UnknownGame) as info:
        parse_game_id(text)
    assert repr(text) in str(info.value)
    assert info.value.code == "NOT_FOUND"


def test_list_games() -> None:
    games = list_games()
    assert [g.id for g in games] == [
        "nim",
        "subtraction:1,2,3",
        "octal:0.77",
        "octal:0.07",
        "octal:0.137",
        "octal:0.6",
        "octal:0.16",
        "octal:0.56",
        "grundy",
        "wythoff",
        "bicolor-nim",
        "lights-out:5x5",
        "lights-out:5x5:torus",
        "graph:NAME",
        "chess:KRvK",
        # the games shipped as plugins of the rules interface (entry-point group nimbase.games)
        "tictactoe",
        "tictactoe:misere",
        "connect4:4x4",
        "dots-and-boxes:2x2",
        "rules-nim:3,4,5",
        "rules-kayles:8",
    ]
    for info in games:
        assert info.name and info.description and info.position_syntax and info.examples
        kind = parse_game_id(info.id)
        if kind.graph_name is None:  # `graph:NAME` names an uploaded graph: the entry is the family's
            assert kind.info() == info
    assert "misere" in games[0].description and "misere" in games[1].description


def test_a_family_is_one_table_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    def parse_fake(params: str | None, text: str) -> NimGame:
        if params is not None:
            raise InvalidGameId(f"game id {text!r}: no parameters")
        return NimGame(False)

    families = dict(registry.FAMILIES)
    families["fake"] = Family(parse=parse_fake, info=lambda: NimGame(False).info())
    monkeypatch.setattr(registry, "FAMILIES", families)
    assert isinstance(parse_game_id("fake"), NimGame)
    # octal lists its six classics, lights-out two shapes, tic-tac-toe two
    assert len(list_games()) == len(list(registry.FAMILIES.values())) + 6 + 1
    with pytest.raises(InvalidGameId, match="'fake:x'"):
        parse_game_id("fake:x")


def test_the_kinds_shipped_are_entry_points_listed_in_their_order() -> None:
    declared = {ep.name for ep in distribution("nimbase").entry_points.select(group=GROUP)}
    kinds = [
        "nim",
        "subtraction",
        "octal",
        "grundy",
        "wythoff",
        "bicolor-nim",
        "lights-out",
        "graph",
        "chess",
    ]
    assert set(kinds) <= declared
    assert list(registry.FAMILIES)[: len(kinds)] == kinds
    assert registry.BROKEN_PLUGINS == {}


def _nim(params: str | None, text: str) -> NimGame:
    return NimGame(False)


@pytest.fixture
def fake_kinds(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A module of registry entries, as a kind's package declares them, and an empty registry."""
    module = types.ModuleType("fake_kinds")
    info = NimGame(False).info
    module.LATE = Family(parse=_nim, info=info, order=2)  # type: ignore[attr-defined]
    module.EARLY = Family(parse=_nim, info=info, order=1)  # type: ignore[attr-defined]
    found = Found({"from-source": Family(parse=_nim, info=info)}, {"bad-plugin": "ValueError: no"})
    module.SOURCE = FamilySource(find=lambda taken: found)  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    monkeypatch.setattr(registry, "FAMILIES", {})
    monkeypatch.setattr(registry, "BROKEN_PLUGINS", {})
    yield module.__name__
    del sys.modules[module.__name__]


def test_entry_points_register_the_kinds_by_order_then_the_sources(
    fake_kinds: str, caplog: pytest.LogCaptureFixture
) -> None:
    points = [
        EntryPoint("late", f"{fake_kinds}:LATE", GROUP),
        EntryPoint("source", f"{fake_kinds}:SOURCE", GROUP),
        EntryPoint("early", f"{fake_kinds}:EARLY", GROUP),
        EntryPoint("missing", "no_such_module_anywhere:ENTRY", GROUP),
    ]
    with caplog.at_level(logging.ERROR):
        registry.register(points)
    assert list(registry.FAMILIES) == ["early", "late", "from-source"]
    assert set(registry.BROKEN_PLUGINS) == {"bad-plugin", "missing"}
    assert "ModuleNotFoundError" in registry.BROKEN_PLUGINS["missing"] and "'missing'" in caplog.text
    assert isinstance(parse_game_id("early"), NimGame)
