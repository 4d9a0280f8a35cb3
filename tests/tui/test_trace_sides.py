"""A run read from two-sided traces at the desk: a preference names the side it chose by its label (the variant), as
the panes' titles do, not as raw or bundled (a desk session and what the screen draws of it; no Pilot)."""

from __future__ import annotations

from gradedesk.core.store.connection import open_store
from gradedesk.tui.screens.grading import view
from tests.fixtures.desk import rows
from tests.fixtures.pairwise import import_two_sided
from tests.fixtures.session import act, opened


def test_a_preference_on_a_trace_run_names_the_chosen_side_by_its_label(tmp_path, capsys):
    path = import_two_sided(capsys, tmp_path)
    with open_store(path) as store:
        session = opened(store, 1)
        item = session.item
        right = "bundle" if item.left_method == "raw" else "raw"
        label = {"raw": "baseline", "bundle": "rag-v2"}[right]
        named = lambda item, preferred: view.preference_text(item, preferred, session.methods_visible())  # noqa: E731
        landed = act(store, session, session.prefer("right", named))  # as the ] key names it
    [pref] = rows(path, "SELECT preferred FROM human_preferences")
    assert pref["preferred"] == right
    shown = view.question_text(session.item, session.methods_visible(), None).plain
    assert f"preferred: Answer B ({label})" in shown
    assert f"Answer B — {label}" in view.pane_view(session, "right").title
    assert landed.message == f"preference saved: Answer B ({label})"  # not "right", the key's own word
