"""The server and the browser the web page's tests share: one real server (REST and gRPC on loopback) over
the emptied test database, and one headless Chromium, for the whole package."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import httpx
import pytest
import sqlalchemy as sa
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver

from nimbase.settings import Settings
from service.core import Nimbase
from tests.database import empty_data_tables
from tests.servers import running_server
from tests.web.browser import TOKEN, WAIT_S, missing_browser


@pytest.fixture(scope="package")
def base_url(db_engine: sa.Engine) -> Iterator[str]:
    """A real server over the emptied test database, with the admin token for submitting jobs."""
    empty_data_tables(db_engine)
    settings = Settings(admin_token=TOKEN)
    try:
        with running_server(Nimbase(settings, db_engine), settings.limits) as ports:
            yield f"http://127.0.0.1:{ports.http}"
    finally:
        empty_data_tables(db_engine)


@pytest.fixture(scope="package")
def api(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=WAIT_S) as client:
        yield client


@pytest.fixture(scope="package")
def chromium() -> Iterator[WebDriver | str]:
    """One headless Chromium for the package, or why there is none (each test then fails saying so)."""
    missing = missing_browser()
    if missing is not None:
        yield missing
        return
    options = webdriver.ChromeOptions()
    options.binary_location = str(shutil.which("chromium"))
    for argument in (
        "--headless=new",
        "--no-sandbox",  # as root, Chromium refuses to start with its sandbox
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1400,1000",
        "--lang=en-US",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        driver = webdriver.Chrome(service=Service(str(shutil.which("chromedriver"))), options=options)
    except WebDriverException as exc:
        yield f"headless Chromium did not start: {exc.msg}"
        return
    try:
        yield driver
    finally:
        driver.quit()
