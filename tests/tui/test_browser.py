"""The desk in a real browser: `gradedesk serve` on a free loopback port, Debian's chromium (headless, through
selenium and chromium-driver), a name and a grade key typed into the page, the grade read back from the store.

xterm.js draws the desk in a canvas, so the test reads what the desk showed from the bytes the page received: a
script installed before the page loads copies every websocket message into `window.__desk`. Every wait polls (that
text, or the store) against a deadline. With CI=true a missing browser fails the test; elsewhere it is skipped.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.desk import rows
from tests.fixtures.served import ANSI, Served

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
         # xterm.js draws with WebGL: headless chromium needs its software GL
         "--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--window-size=1280,900"]
# copies what the desk sends (ANSI text) into window.__desk, for the test to wait on
CAPTURE = """
window.__desk = "";
const Native = window.WebSocket;
const decoder = new TextDecoder();
window.WebSocket = function (...args) {
  const ws = new Native(...args);
  ws.addEventListener("message", (e) => {
    if (e.data instanceof ArrayBuffer) window.__desk += decoder.decode(e.data, {stream: true});
    else if (e.data instanceof Blob) e.data.text().then((t) => { window.__desk += t; });
  });
  return ws;
};
window.WebSocket.prototype = Native.prototype;
for (const k of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) window.WebSocket[k] = Native[k];
"""


def _browser_missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    if not (CHROMIUM and DRIVER):
        return "chromium and chromium-driver are not installed (apt-get install -y chromium chromium-driver)"
    return None


def _until(what: str, check: Callable[[], Any], timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"waited {timeout:.0f} s for {what}")


@pytest.fixture
def served(fixture_store) -> Iterator[tuple[str, Any]]:
    with Served(fixture_store.path) as server:
        yield server.url, fixture_store


@contextmanager
def chromium(profile: Path) -> Iterator[Any]:
    """A headless chromium with its own profile directory, capturing what the desk sends (skipped, or in CI failed,
    when there is no browser)."""
    missing = _browser_missing()
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI: the browser test needs a browser: {missing}")
        pytest.skip(missing)
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(DRIVER))
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CAPTURE})
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(tmp_path) -> Iterator[Any]:
    with chromium(tmp_path / "chromium-profile") as driver:
        yield driver


def test_a_person_grades_in_a_browser(served, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    url, info = served
    started = time.monotonic()
    browser.get(url)

    def shown() -> str:
        return ANSI.sub("", browser.execute_script("return window.__desk") or "")

    _until("the name screen", lambda: "Enter to start grading" in shown(), 30)
    page = browser.find_element(By.CSS_SELECTOR, "textarea")  # xterm.js's input
    page.send_keys("ann;echo x", Keys.ENTER)
    _until("the grading desk", lambda: "grader ann;echo x" in shown() and "press 1-4" in shown(), 20)
    page.send_keys("1")
    graded = _until("the grade in the store", lambda: rows(info.path, "SELECT grader, grade FROM human_grades"), 20)
    assert graded == [{"grader": "ann;echo x", "grade": "fully_correct"}]
    assert time.monotonic() - started < 60
