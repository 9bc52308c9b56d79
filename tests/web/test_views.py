"""The kinds' views of the web page: one module per family, web/views/<family>.js, and the generic
view for a family without one (a new kind works on the page before it has a view of its own)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from engine.registry import FAMILIES
from tests.web.browser import (
    javascript_errors,
    need,
    open_page,
    shown_position,
    text,
    wait_for,
)

VIEWS = Path(__file__).resolve().parents[2] / "web" / "views"
#: Views no family is named after: the generic one, and those several families' modules re-export (the
#: heap games', the grid games').
SHARED_VIEWS = {"generic", "heap", "grid"}


def test_views_are_named_after_the_service_families() -> None:
    """A view's file name is the family it shows: one named otherwise would never be loaded."""
    named = {path.stem for path in VIEWS.glob("*.js")} - SHARED_VIEWS
    assert named - set(FAMILIES) == set()


@pytest.fixture
def without_view(chromium: WebDriver | str) -> Iterator[str]:
    """The subtraction games' view kept from the browser, as for a kind that has none yet."""
    browser = need(chromium)
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/static/views/subtraction.js"]})
    try:
        yield "subtraction:1,3,4"
    finally:
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        browser.execute_cdp_cmd("Network.disable", {})


def test_a_kind_without_a_view_is_shown_by_the_generic_one(
    without_view: str, chromium: WebDriver | str, base_url: str, api: httpx.Client
) -> None:
    browser = need(chromium)
    game = without_view
    open_page(browser, base_url, f"#game={game}&position=10")
    assert browser.find_element(By.ID, "game").get_attribute("value") == game
    value = api.get("/v1/value", params={"game": game, "position": "10"}).json()
    shown = [text(browser, f"value-{field}") for field in ("position", "outcome", "grundy", "remoteness")]
    assert shown == [
        value["position"],
        value["outcome"],
        str(value["grundy"]),
        str(value.get("remoteness", "—")),
    ]
    ranked = api.get("/v1/best-move", params={"game": game, "position": "10"}).json()
    buttons = browser.find_elements(By.CSS_SELECTOR, "#moves button.move")
    assert [b.text for b in buttons] == [m["move"] for m in ranked["moves"]]
    heads = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#moves-head th")]
    assert heads == ["#", "move", "leads to", "outcome", "grundy", "remoteness"]
    assert text(browser, "turn").startswith("Your move")

    # Play by a click, and the service answers.
    best = ranked["best_move"]
    buttons[0].click()
    reply = api.get("/v1/best-move", params={"game": game, "position": best["position"]}).json()["best_move"]
    wait_for(browser, shown_position(browser, reply["position"]), "the service's reply")
    history = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#history li")]
    assert history == [
        f"you: {best['move']} → {best['position']}",
        f"nimbase: {reply['move']} → {reply['position']}",
    ]

    # No kind's section is shown, and the plot keeps to what it showed (a kind it knows nothing of may
    # have no sequences): Kayles, as for a page opened on a game without them.
    sections = ("wythoff-board", "lights-out", "bicolor-heaps", "chess", "graph-game")
    assert not any(browser.find_element(By.ID, section).is_displayed() for section in sections)
    assert browser.find_element(By.ID, "plot-game").get_attribute("value") == "octal:0.77"
    assert javascript_errors(browser) == []
