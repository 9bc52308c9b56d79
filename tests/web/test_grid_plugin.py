"""A grid declared by a plugin nimbase does not ship (tests/web/grid_plugin.py, installed as its own
distribution on the server's path): ListGames names its view "grid" on both transports, and the page
draws its board from the position, colours the winning cell and plays a clicked one, in headless
Chromium, with no module of its own in web/."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from nimbase_rules.testkit import check_rules
from tests.e2e.processes import REPO, Server, start_server, stop
from tests.web.browser import javascript_errors, need, open_page, shown_position, wait_for
from tests.web.grid_plugin import FAMILY

GAME = "claim:2x3"


@pytest.fixture(scope="module")
def server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server process that finds the plugin through its entry point (a distribution on its path)."""
    site = tmp_path_factory.mktemp("grid-plugin")
    info = site / "nimbase_test_claim-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: nimbase-test-claim\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[nimbase.games]\nclaim = tests.web.grid_plugin:FAMILY\n")
    running = start_server(
        database_url,
        site / "server.log",
        PYTHONPATH=os.pathsep.join([str(site), os.environ.get("PYTHONPATH", str(REPO))]),
        # The plugin's game is solved in the server's own process: live processes (their isolation is
        # tested in tests/service) would each load every kind's kernels at start.
        NIMBASE_LIMITS_LIVE_PROCESSES="0",
    )
    try:
        # The server loads its kernels in the background (seconds on a loaded machine): the page's first
        # lookup must not be the one that waits for them.
        deadline = time.monotonic() + 240
        while True:
            with running.http() as http:
                reply = http.get("/v1/value", params={"game": GAME, "position": "/".join(["..."] * 2)})
            if reply.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(1)
        assert reply.status_code == 200, reply.text
        yield running
    finally:
        stop(running.process)


def test_the_plugin_keeps_its_rules() -> None:
    assert check_rules(FAMILY.make("2x3")) > 100


def test_listgames_names_the_grid_view(server: Server) -> None:
    with server.http() as http, server.client() as client:
        listed = {g["id"]: g for g in http.get("/v1/games").json()["games"]}
        by_grpc = {g["id"]: g for g in client.list_games()["games"]}
    for games in (listed, by_grpc):
        assert games[GAME]["view"] == "grid"
        assert games["tictactoe"]["view"] == "grid"
        assert "view" not in games["nim"]


def test_the_page_draws_and_plays_the_plugins_grid(server: Server, chromium: WebDriver | str) -> None:
    browser = need(chromium)
    position = "xo./x.."
    open_page(browser, server.http_url, f"#game={GAME}&position={position}")
    board = browser.find_element(By.ID, "grid-board")
    assert board.is_displayed()
    cells = browser.find_elements(By.CSS_SELECTOR, "#grid-cells .grid-cell")
    assert [c.text for c in cells] == ["x", "o", "", "x", "", ""]
    winning = browser.find_elements(By.CSS_SELECTOR, "#grid-cells .grid-cell.reach.win")
    assert [c.get_attribute("data-cell") for c in winning] == ["0,2"]  # o fills the first row
    with httpx.Client(base_url=server.http_url, timeout=30) as api:
        ranked = api.get("/v1/best-move", params={"game": GAME, "position": position}).json()
        assert ranked["best_move"]["move"] == "c1"
        browser.find_element(By.CSS_SELECTOR, '#grid-cells .grid-cell[data-cell="1,2"]').click()
        played = "xo./x.o"
        reply = api.get("/v1/best-move", params={"game": GAME, "position": played}).json()["best_move"]
    wait_for(
        browser, lambda b: shown_position(b, reply["position"])(b) or shown_position(b, played)(b), "the move"
    )
    shown = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "#grid-cells .grid-cell")]
    assert shown[5] == "o"
    assert not javascript_errors(browser)


def test_no_module_in_web_names_a_grid_game() -> None:
    views = Path(REPO, "web", "views")
    assert not (views / "claim.js").exists()
    assert not (views / "tictactoe.js").exists() and not (views / "connect4.js").exists()
