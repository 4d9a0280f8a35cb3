"""Three desks grade one run at once: two browser sessions of `gradedesk serve` (Debian's chromium through selenium,
as tests/tui/test_browser.py drives one) and a terminal desk driven by Pilot, each typing grade keys, j and tab at a
person's pace for GRADEDESK_THREE_DESKS_SECONDS (default 15; 60 is the issue's figure, run by hand), counted from when
both browsers' desks are up. Every desk logs what it showed when each key acted (GRADEDESK_KEY_LOG, tui/key_log.py).
Afterwards: PRAGMA integrity_check is ok, and each person's grade events, in order, are exactly their logged grade keys
on the answers their desk showed."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sqlite3
import threading
import time

import pytest

from gradedesk.core.review.team import assign_run
from gradedesk.core.store.connection import open_store
from tests.fixtures.desk import make_app, rows, settle
from tests.fixtures.desk_store import build_fixture_store
from tests.fixtures.served import Served
from tests.tui.test_browser import ANSI, _until, chromium

pytestmark = pytest.mark.anyio
SECONDS = float(os.environ.get("GRADEDESK_THREE_DESKS_SECONDS", "15"))
KEYS = "1234" * 3 + "jj\t"  # mostly grades, sometimes the next item or the other answer
GRADE_KEYS = {f"desk.grade.{g}": g for g in ("fully_correct", "partially_correct", "unsupported", "wrong")}


@pytest.fixture
def browsers(tmp_path):
    """Two separate browsers (each its own profile)."""
    with chromium(tmp_path / "profile-1") as first, chromium(tmp_path / "profile-2") as second:
        yield first, second


BROWSERS_UP = 60.0  # seconds the browsers may take to show their desks (a loaded machine starts them slowly)


def _type_in_browser(driver, url: str, name: str, up: threading.Event, go: threading.Event, seed: int,
                     errors: list) -> None:
    """Open the desk as `name`, say it is up, and once both browsers' desks are (`go`) type for SECONDS."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    try:
        driver.get(url)

        def shown() -> str:
            return ANSI.sub("", driver.execute_script("return window.__desk") or "")
        _until("the name screen", lambda: "Enter to start grading" in shown(), 30)
        page = driver.find_element(By.CSS_SELECTOR, "textarea")
        page.send_keys(name, Keys.ENTER)
        _until("the grading desk", lambda: f"grader {name}" in shown() and "press 1-4" in shown(), 30)
        up.set()
        if not go.wait(BROWSERS_UP):
            raise AssertionError("the other browser's desk never came up")
        until = time.monotonic() + SECONDS
        rng = random.Random(seed)
        while time.monotonic() < until:
            key = rng.choice(KEYS)
            page.send_keys(Keys.TAB if key == "\t" else key)
            time.sleep(rng.uniform(0.1, 0.4))
    except Exception as exc:  # reported by the test
        errors.append(f"{name}: {exc!r}")


async def test_two_browsers_and_a_terminal_desk_grade_one_run_at_once(tmp_path, monkeypatch, browsers):
    info = build_fixture_store(tmp_path / "store.db", questions=12)
    with open_store(info.path) as store:
        assign_run(store, info.run_id, ["ann", "bob", "cy"], 2)
    log = tmp_path / "keys.jsonl"
    monkeypatch.setenv("GRADEDESK_KEY_LOG", str(log))
    errors: list[str] = []
    with Served(info.path) as served:
        up, go = (threading.Event(), threading.Event()), threading.Event()
        threads = [threading.Thread(target=_type_in_browser, args=(d, served.url, name, ready, go, seed, errors))
                   for d, name, ready, seed in ((browsers[0], "ann", up[0], 1), (browsers[1], "bob", up[1], 2))]
        for t in threads:
            t.start()
        app = make_app(info.path, grader="cy")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            deadline = time.monotonic() + BROWSERS_UP  # no fixed head start: the three type once both browsers are up
            while not all(e.is_set() for e in up) and not errors and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            go.set()
            assert not errors, errors
            assert all(e.is_set() for e in up), "a browser's desk never came up"
            until = time.monotonic() + SECONDS
            rng = random.Random(3)
            pressed = 0
            while time.monotonic() < until:
                key = rng.choice(KEYS)
                await pilot.press("tab" if key == "\t" else key)
                pressed += 1
                await asyncio.sleep(rng.uniform(0.1, 0.4))
            await settle(pilot, timeout=30)
        for t in threads:
            t.join(timeout=60)
        assert not errors, errors

        def logged(grader: str) -> list[tuple[int, str]]:
            lines = [json.loads(line) for line in log.read_text().splitlines()]
            return [(e["answer_id"], GRADE_KEYS[e["key"]]) for e in lines
                    if e["grader"] == grader and e["key"] in GRADE_KEYS and e["answer_id"] is not None]

        def stored(grader: str) -> list[tuple[int, str]]:
            return [(r["answer_id"], r["grade"]) for r in rows(
                info.path, "SELECT answer_id, grade FROM human_grades WHERE grader = ? AND action = 'set' "
                           "ORDER BY id", (grader,))]
        for grader in ("ann", "bob"):  # the served desks may still be saving their last keys
            _until(f"{grader}'s keys in the store", lambda g=grader: len(stored(g)) >= len(logged(g)), 30)
        for driver in browsers:  # end the sessions: the server then stops at once
            driver.get("about:blank")
    for grader in ("ann", "bob", "cy"):
        assert logged(grader) and stored(grader) == logged(grader), grader
    conn = sqlite3.connect(info.path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    counts = {g: len(logged(g)) for g in ("ann", "bob", "cy")}
    print(f"three desks for {SECONDS:g} s: grade keys per desk {counts}, cy pressed {pressed} keys")
