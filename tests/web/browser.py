"""Driving the web page in headless Chromium: what the page tests share (the browser's fixture is in
conftest.py). Debian's `chromium` and its `chromedriver`, through Selenium; without them a test fails
saying what to install, rather than skip."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

#: The admin token of the server the page is tested on (for submitting jobs and uploading graphs).
TOKEN = "web-page-token"
BROWSER_PACKAGES = "chromium chromium-driver"
#: Seconds a page may take to show what a step asked for (live computations included).
WAIT_S = 30.0

T = TypeVar("T")


def missing_browser(path: str | None = None) -> str | None:
    """What to install when `chromium` or `chromedriver` is not on `path` (default: PATH), else None."""
    absent = [name for name in ("chromium", "chromedriver") if shutil.which(name, path=path) is None]
    if not absent:
        return None
    return (
        f"the browser test needs {' and '.join(absent)}: install Debian's {BROWSER_PACKAGES} "
        f"(`make browser`, which `make test` runs, or `apt-get install -y {BROWSER_PACKAGES}`)"
    )


def need(chromium: WebDriver | str) -> WebDriver:
    """The browser, or this test's failure naming what to install: a missing browser never skips, and
    fails in the test itself (not as a fixture error)."""
    if isinstance(chromium, str):
        pytest.fail(chromium, pytrace=False)
    chromium.get_log("browser")  # drop what earlier tests logged
    return chromium


def wait_for(browser: WebDriver, condition: Callable[[WebDriver], T], what: str) -> T:
    """`condition` once it holds; an element the page redrew while it was read (the job list redraws
    every 1.5 s) only means: not yet."""
    wait = WebDriverWait(
        browser, WAIT_S, poll_frequency=0.1, ignored_exceptions=(StaleElementReferenceException,)
    )
    result: T = wait.until(condition, f"waited for {what}")
    return result


def text(browser: WebDriver, element_id: str) -> str:
    return str(browser.find_element(By.ID, element_id).text)


def open_page(browser: WebDriver, base_url: str, fragment: str = "") -> None:
    """Loads the page and waits until its first lookup is shown."""
    browser.get("about:blank")  # a new document even when only the fragment differs
    browser.get(f"{base_url}/{fragment}")
    wait_for(browser, lambda b: b.find_element(By.TAG_NAME, "body").get_attribute("data-ready"), "the page")
    settled(browser)


def settled(browser: WebDriver) -> None:
    wait_for(
        browser, lambda b: b.find_element(By.ID, "play").get_attribute("data-busy") == "false", "lookups"
    )


def shown_position(browser: WebDriver, position: str) -> Callable[[WebDriver], bool]:
    shown = position or "(empty)"
    return lambda b: (
        text(b, "value-position") == shown
        and b.find_element(By.ID, "play").get_attribute("data-busy") == "false"
    )


def assert_value_shown(browser: WebDriver, expected: dict[str, Any]) -> None:
    assert text(browser, "value-position") == (expected["position"] or "(empty)")
    assert text(browser, "value-outcome") == expected["outcome"]
    assert text(browser, "value-grundy") == str(expected["grundy"])
    assert text(browser, "value-source") == expected["source"]
    assert text(browser, "value-remoteness") == str(expected.get("remoteness", "—"))


def type_into(browser: WebDriver, element_id: str, value: str) -> None:
    field = browser.find_element(By.ID, element_id)
    field.clear()
    field.send_keys(value)


def javascript_errors(browser: WebDriver) -> list[str]:
    return [e["message"] for e in browser.get_log("browser") if e.get("source") == "javascript"]


def screenshot(browser: WebDriver, path: Path, element_id: str | None = None) -> None:
    """A PNG of the whole page, or of one element (the window stretched to the page's height)."""
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1400, int(height) + 120)
    try:
        if element_id is None:
            assert browser.save_screenshot(str(path))
        else:
            assert browser.find_element(By.ID, element_id).screenshot(str(path))
    finally:
        browser.set_window_size(1400, 1000)
    assert path.stat().st_size > 10_000
