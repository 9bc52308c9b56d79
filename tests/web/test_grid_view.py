"""The grid view of games defined by their rules (web/views/grid.js) in headless Chromium: tic-tac-toe's
board drawn from the position, a move played by clicking a cell, and the service's reply shown."""

from __future__ import annotations

import httpx
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from tests.web.browser import javascript_errors, need, open_page, shown_position, wait_for


def test_a_tictactoe_move_is_played_on_the_board(
    chromium: WebDriver | str, base_url: str, api: httpx.Client
) -> None:
    browser = need(chromium)
    position = "xx./oo./..."
    open_page(browser, base_url, f"#game=tictactoe&position={position}")
    board = browser.find_element(By.ID, "grid-board")
    assert board.is_displayed()
    cells = browser.find_elements(By.CSS_SELECTOR, "#grid-cells .grid-cell")
    assert [c.text for c in cells] == ["x", "x", "", "o", "o", "", "", "", ""]
    winning = browser.find_elements(By.CSS_SELECTOR, "#grid-cells .grid-cell.reach.win")
    ranked = api.get("/v1/best-move", params={"game": "tictactoe", "position": position}).json()
    assert [c.get_attribute("data-cell") for c in winning] == ["0,2"]  # c1 completes the row
    assert ranked["best_move"]["move"] == "c1"
    browser.find_element(By.CSS_SELECTOR, '#grid-cells .grid-cell[data-cell="2,2"]').click()
    played = "xx./oo./..x"
    reply = api.get("/v1/best-move", params={"game": "tictactoe", "position": played}).json()["best_move"]
    wait_for(
        browser, lambda b: shown_position(b, reply["position"])(b) or shown_position(b, played)(b), "the move"
    )
    shown = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "#grid-cells .grid-cell")]
    assert shown[8] == "x"
    assert not javascript_errors(browser)
