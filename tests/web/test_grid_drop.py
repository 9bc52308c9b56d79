"""The grid view (web/views/grid.js) of a game whose pieces drop, Connect Four 4 x 4, in headless Chromium:
the board drawn from the position, the cell each column's drop fills marked by its move's value, a click
anywhere in a column playing its drop, and the ranked moves shown as the service ranks them."""

from __future__ import annotations

import httpx
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from tests.web.browser import javascript_errors, need, open_page, settled, shown_position, wait_for

GAME = "connect4:4x4"
#: o to move (x moved first), winning in 13 plies.
POSITION = "..../..../..../.xxo"


def cells_shown(browser: WebDriver) -> list[str]:
    return [c.text for c in browser.find_elements(By.CSS_SELECTOR, "#grid-cells .grid-cell")]


def test_a_connect4_drop_is_played_by_clicking_its_column(
    chromium: WebDriver | str, base_url: str, api: httpx.Client
) -> None:
    browser = need(chromium)
    open_page(browser, base_url, f"#game={GAME}&position={POSITION}")
    assert browser.find_element(By.ID, "grid-board").is_displayed()
    assert cells_shown(browser) == [""] * 13 + ["x", "x", "o"]
    ranked = api.get("/v1/best-move", params={"game": GAME, "position": POSITION}).json()
    assert sorted(m["move"] for m in ranked["moves"]) == ["1", "2", "3", "4"]
    # The ranked moves, in the service's order, in the panel's table.
    buttons = browser.find_elements(By.CSS_SELECTOR, "#moves button.move")
    assert [b.text for b in buttons] == [m["move"] for m in ranked["moves"]]
    # Each column's drop fills its lowest empty cell, coloured by the value it leads to.
    reach = {
        c.get_attribute("data-cell"): "win" in (c.get_attribute("class") or "").split()
        for c in browser.find_elements(By.CSS_SELECTOR, "#grid-cells .grid-cell.reach")
    }
    lands = {"1": "3,0", "2": "2,1", "3": "2,2", "4": "2,3"}
    assert reach == {lands[m["move"]]: m["outcome"] == "P" for m in ranked["moves"]}
    assert any(reach.values())  # o wins: some drop leads to a P-position
    # A click on the top cell of the first column plays that column's drop: o lands at its bottom.
    top = browser.find_element(By.CSS_SELECTOR, '#grid-cells .grid-cell[data-cell="0,0"]')
    assert top.text == "" and top.get_attribute("title") == "play 1"
    top.click()
    played = "..../..../..../oxxo"
    reply = api.get("/v1/best-move", params={"game": GAME, "position": played}).json()["best_move"]
    wait_for(
        browser, lambda b: shown_position(b, reply["position"])(b) or shown_position(b, played)(b), "the drop"
    )
    settled(browser)
    shown = cells_shown(browser)
    assert shown[12] == "o" and shown[:4] == [""] * 4
    assert not javascript_errors(browser)
