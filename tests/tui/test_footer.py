"""The footer as a person meets it at the sizes terminals open at: each state's keys with `? help` and `^q quit`
uncut, and Ctrl-C leaves the desk as it was (no "Press ctrl+q to quit" notice: the footer says how to quit)."""

from __future__ import annotations

import pytest

from tests.fixtures.claims_store import build_claims_store
from tests.fixtures.desk import keys, running, screen_text

pytestmark = pytest.mark.anyio

SIZES = [(80, 24), (100, 30)]


def _footer(app) -> str:
    return screen_text(app).splitlines()[-1]


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "100x30"])
async def test_grading_and_queue_footers_end_with_help_and_quit(fixture_store, size):
    async with running(fixture_store.path, size=size) as (app, pilot):
        grading = _footer(app)
        assert "1-4 grade" in grading and "? help" in grading and "^q quit" in grading
        await keys(pilot, "q")
        queue = _footer(app)
        assert "open item" in queue and "? help" in queue and "^q quit" in queue


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "100x30"])
async def test_claim_mode_footer_ends_with_help_and_quit(tmp_path, size):
    info = build_claims_store(tmp_path / "store.db")
    async with running(info.path, size=size) as (app, pilot):
        await keys(pilot, "h" if info.bundle_side == "left" else "l", "c")
        footer = _footer(app)
        assert "s supported" in footer and "? help" in footer and "^q quit" in footer


async def test_ctrl_c_prints_nothing_and_the_desk_stays(fixture_store):
    async with running(fixture_store.path, size=(80, 24)) as (app, pilot):
        await keys(pilot, "ctrl+c")
        await pilot.pause()
        assert not any("quit" in str(n.message) for n in app._notifications)
        assert "to quit" not in screen_text(app)
        assert app.is_running and app.screen.query("#progress")
