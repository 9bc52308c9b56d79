"""Routes a kind declares outside engine/ (service.kind_plugins): its registry entry names its package,
the REST app mounts the routes its `PLUGIN` gives, in the OpenAPI document like the others, without
service/ naming the kind; a plugin that does not load stops the start-up, named."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient

from engine import registry
from service import kind_plugins
from service.rest.app import create_app
from tests.service.fake_service import FakeService
from tests.service.toy_kind import toy_family


@pytest.fixture
def plugged() -> Iterator[pytest.MonkeyPatch]:
    with pytest.MonkeyPatch.context() as patch:
        kind_plugins.kind_plugins.cache_clear()
        yield patch
    kind_plugins.kind_plugins.cache_clear()


def test_a_kinds_routes_are_mounted_and_documented(plugged: pytest.MonkeyPatch) -> None:
    plugged.setitem(registry.FAMILIES, "toy", replace(toy_family(), plugin="tests.service.toy_plugin"))
    app = create_app(FakeService())
    answer = TestClient(app).get("/toy/games")
    assert answer.status_code == 200 and answer.json()["games"] >= 1
    assert "/toy/games" in app.openapi()["paths"]


def test_chess_declares_lilas_routes_outside_the_document() -> None:
    app = create_app(FakeService())
    paths = {getattr(route, "path", None) for route in app.routes}
    assert {"/standard", "/standard/mainline"} <= paths
    assert "/standard" not in app.openapi()["paths"]  # lila's shape is lichess's to document


@pytest.mark.parametrize("name", ["tests.service.no_such_plugin", "tests.service.toy_kind"])
def test_a_plugin_that_does_not_load_is_named(plugged: pytest.MonkeyPatch, name: str) -> None:
    plugged.setitem(registry.FAMILIES, "toy", replace(toy_family(), plugin=name))
    with pytest.raises(kind_plugins.BrokenPlugin, match=name):
        create_app(FakeService())
