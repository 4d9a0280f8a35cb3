"""A run read from two-sided traces at the desk: a preference names the side it chose by its label (the variant), as
the panes' titles do, not as raw or bundled."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from tests.fixtures.desk import keys, rendered_text, rows, running
from tests.fixtures.pairwise import import_two_sided

pytestmark = pytest.mark.anyio


async def test_a_preference_on_a_trace_run_names_the_chosen_side_by_its_label(tmp_path, capsys):
    path = import_two_sided(capsys, tmp_path)
    async with running(path) as (app, pilot):
        item = app.screen.session.item
        right = "bundle" if item.left_method == "raw" else "raw"
        label = {"raw": "baseline", "bundle": "rag-v2"}[right]
        await keys(pilot, "right_square_bracket")
        [pref] = rows(path, "SELECT preferred FROM human_preferences")
        assert pref["preferred"] == right
        shown = rendered_text(app.screen.query_one("#question", Static).content)
        assert f"preferred: Answer B ({label})" in shown
        assert f"Answer B — {label}" in app.screen.pane_title("right")
        assert app.last_status == f"preference saved: Answer B ({label})"  # not "right", the key's own word
