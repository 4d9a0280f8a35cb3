"""The answer pane's text, drawn from a real item (no Pilot: pane_blocks is a function of what the pane shows)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from rich.console import Group

from gradedesk.core.review.item import load_item
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.run_records import run_info
from gradedesk.core.store.traces import AnswerTrace
from gradedesk.tui.widgets.answer_pane import PaneView, pane_blocks
from tests.fixtures.desk import rendered_text
from tests.fixtures.desk_store import build_fixture_store


@pytest.mark.parametrize(("source", "endpoint", "hint"), [
    ("phoenix", "http://127.0.0.1:6006", True),  # a trace on a server: `t` copies its URL
    ("langfuse", None, False),  # read from an export file: no URL, so no hint of one
    ("inspect", "/logs/eval.json", False),  # an eval log is a file
])
def test_the_copy_url_hint_shows_only_on_answers_with_a_trace_url(tmp_path, source, endpoint, hint):
    info = build_fixture_store(tmp_path / "store.db")
    with open_store(info.path) as store:
        item = load_item(store, run_info(store, info.run_id), "alice", info.question_pks[0])
    trace = AnswerTrace(0, source, endpoint, "proj", "rag-v2", "trace-1", "span-1")
    answer = replace(item.at("left"), origin=trace)
    text = rendered_text(Group(*pane_blocks(PaneView(answer, "Answer A", False, False))))
    assert f"from {source} proj · trace trace-1" in text
    assert ("(t: copy URL)" in text) == hint
