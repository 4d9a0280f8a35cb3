"""Snapshots of the explore screen at 100x30 and 80x24: a question asked at 500 tokens, then one budget step up (marks
against 500), from the explore fixture repository. Update with `--snapshot-update` only after looking at the SVGs."""

from __future__ import annotations

import pytest

from gradedesk.tui.app import DeskApp, DeskConfig
from gradedesk.tui.screens.explore import ExploreScreen
from tests.fixtures.desk import settle
from tests.fixtures.explore_repo import QUESTION, build_explore_store


@pytest.mark.parametrize("size", [(100, 30), (80, 24)])
def test_explore_after_a_budget_step(snap_compare, tmp_path, size):
    path = build_explore_store(tmp_path)
    app = DeskApp(DeskConfig(path, 0, "alice", cursor_blink=False),
                  lambda desk: ExploreScreen(desk, QUESTION, budget=500))

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("plus")
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
