"""Work between keys (tui/idle_work.py) runs however late the event loop is."""

from __future__ import annotations

import itertools
import time

import pytest

from tests.fixtures.desk import running, settle

pytestmark = pytest.mark.anyio


async def test_work_between_keys_runs_when_the_loop_is_late(fixture_store, monkeypatch):
    """A Textual timer whose task reads the clock later than its delay after starting skips its only tick: work
    scheduled on one never ran, and the desk never went idle (a loaded machine did this now and then)."""
    async with running(fixture_store.path) as (app, pilot):
        late = itertools.count()
        monkeypatch.setattr("textual.timer._time.get_time", lambda: time.monotonic() + 0.001 * next(late))
        ran: list[int] = []
        steps = iter(range(3))

        def step() -> bool:
            ran.append(next(steps))
            return len(ran) < 3

        app.screen._ahead.idle.add(step)
        await pilot.pause(0.2)
        await settle(pilot)
        assert ran == [0, 1, 2]
