"""Debian's chromium, headless, driven by selenium through Debian's chromedriver, as a pytest fixture.

`make test` installs both (deploy/lib.sh); a test that needs a browser uses `browser` with `live_server`.
"""

import shutil
from collections.abc import Iterator

import pytest
from django.db import DEFAULT_DB_ALIAS, connections

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# Nothing leaves the machine: no updates, no sync, no background requests.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
    "--lang=en",
)


@pytest.fixture(scope="session")
def chromium_session() -> Iterator[object]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        pytest.fail(f"{CHROMIUM} and {CHROMEDRIVER} are needed: apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"intl.accept_languages": "en"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture
def browser(chromium_session, live_server) -> Iterator[object]:
    """The session's browser for one test; afterwards it leaves the page, so nothing polls a server that is gone.

    The live server answers each request in a thread of its own: with persistent connections those threads
    would leave theirs open and keep the test database from being dropped, so they close after each request.
    """
    options = connections.settings[DEFAULT_DB_ALIAS]
    kept, options["CONN_MAX_AGE"] = options["CONN_MAX_AGE"], 0
    yield chromium_session
    chromium_session.get("about:blank")
    options["CONN_MAX_AGE"] = kept
