"""The desk never drops a typed grade: with another connection holding the store's write lock past the busy timeout,
`1 j 2` waits (the status line says why), and once the lock goes both grades are stored, on the right answers, in
order, and the status line says they waited."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from gradedesk.core.store import connection
from tests.fixtures.desk import running, settle
from tests.tui.test_desk import events

pytestmark = pytest.mark.anyio


async def test_grades_typed_while_the_store_is_locked_are_stored_in_order(fixture_store, monkeypatch):
    info = fixture_store
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_MS", 300)
    async with running(info.path) as (app, pilot):
        first = app.screen.focused_answer().id
        holder = sqlite3.connect(info.path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            for key in ("1", "j", "2"):
                await pilot.press(key)
            for _ in range(100):  # the first grade's write is refused for now and retried
                await pilot.pause(0.05)
                if app.last_status.startswith("not saved yet: retrying"):
                    break
            assert app.last_status.startswith("not saved yet: retrying") and "another process" in app.last_status
            assert events(info.path) == []
            await asyncio.sleep(1.0)  # longer than the busy timeout: still waiting, nothing dropped
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        await settle(pilot, timeout=30)
        second = app.screen.focused_answer().id
        stored = [(e["answer_id"], e["grade"]) for e in events(info.path)]
        assert stored == [(first, "fully_correct"), (second, "partially_correct")] and first != second
        assert app.last_status == "saved: partially correct (after waiting for the store)"
