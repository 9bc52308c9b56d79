"""The heap games' view of a misère game: its misère quotient's multiplication table, the products in the
P-portion marked, against GetStats' quotient; and the table gone for a game played normally."""

from __future__ import annotations

import httpx
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from tests.web.browser import javascript_errors, need, open_page, text, wait_for

GAME = "octal:0.75:misere"


def test_a_misere_game_shows_its_quotients_table_with_the_p_portion_marked(
    chromium: WebDriver | str, base_url: str, api: httpx.Client
) -> None:
    browser = need(chromium)
    open_page(browser, base_url, f"#game={GAME}&position=2+3")
    quotient = api.get("/v1/stats", params={"game": GAME}).json()["quotient"]
    names = quotient["presentation"]["elements"]
    order, table, in_p = quotient["order"], quotient["table"], set(quotient["p_portion"])
    section = browser.find_element(By.ID, "misere-quotient")
    wait_for(browser, lambda b: section.is_displayed(), "the quotient's table")
    rows = browser.find_elements(By.CSS_SELECTOR, "#quotient-table tr")
    assert len(rows) == order + 1
    heads = [th.text for th in rows[0].find_elements(By.TAG_NAME, "th")]
    assert heads == ["×"] + [names[str(x)] for x in range(order)]
    for x, row in enumerate(rows[1:]):
        assert row.find_element(By.TAG_NAME, "th").text == names[str(x)]
        cells = row.find_elements(By.TAG_NAME, "td")
        assert [c.text for c in cells] == [names[str(table[x][y])] for y in range(order)]
        marked = ["in-p" in (c.get_attribute("class") or "") for c in cells]
        assert marked == [table[x][y] in in_p for y in range(order)]
    summary = text(browser, "quotient-summary")
    assert f"order {order}" in summary and f"P-portion of {len(in_p)}" in summary
    assert "certified" in summary  # 0.75's quotient is certified for every heap
    heaps = text(browser, "quotient-heaps")
    assert heaps.startswith("heap → element: 1:" + names[str(quotient["pretending_function"][1])])

    # A game played normally has no quotient: the section is hidden.
    open_page(browser, base_url, "#game=octal:0.75&position=2+3")
    assert not browser.find_element(By.ID, "misere-quotient").is_displayed()
    assert javascript_errors(browser) == []
