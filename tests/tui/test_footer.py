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
async def test_grading_queue_and_claim_mode_footers_end_with_help_and_quit_and_ctrl_c_prints_nothing(tmp_path, size):
    """One desk per size (on the claims store, a fixture store whose first answers have claims): Ctrl-C, then the
    grading screen's footer, the queue's, and claim mode's."""
    info = build_claims_store(tmp_path / "store.db")
    async with running(info.path, size=size) as (app, pilot):
        await keys(pilot, "ctrl+c")
        await pilot.pause()
        assert not any("quit" in str(n.message) for n in app._notifications)
        assert "to quit" not in screen_text(app)
        assert app.is_running and app.screen.query("#progress")
        grading = _footer(app)
        assert "1-4 grade" in grading and "? help" in grading and "^q quit" in grading
        await keys(pilot, "q")
        queue = _footer(app)
        assert "open item" in queue and "? help" in queue and "^q quit" in queue
        await keys(pilot, "escape", "h" if info.bundle_side == "left" else "l", "c")
        footer = _footer(app)
        assert "s supported" in footer and "? help" in footer and "^q quit" in footer
