"""An imported harness log at the desk: its evidence files show as evidence, focus starts where an answer is, a key on
an empty pane says why nothing happened, no "bundle @ 0 tokens", and the header names the question by its own id and
its place in the run (not a database id)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from gradedesk.core.exchange.runlog_import import import_runlog
from gradedesk.core.store.connection import open_store
from tests.fixtures.desk import keys, running, screen_text
from tests.fixtures.desk_store import build_fixture_store

pytestmark = pytest.mark.anyio

# harness lines as another team's harness writes them: one answer a line, evidence as file names only
LINES = [
    {"question_id": "h-parse", "question": "Where are questions parsed?", "category": "code_lookup",
     "answer": "In core/runs/questions.py.", "evidence_files": ["core/runs/questions.py", "core/jsonl.py"],
     "grade": "fully_correct"},
    {"question_id": "h-parse", "question": "Where are questions parsed?", "category": "code_lookup", "method": "bundle",
     "answer": "parse_questions in core/runs/questions.py.", "evidence_files": ["core/runs/questions.py"],
     "grade": "partially_correct"},
    {"question_id": "h-store", "question": "What opens the store?", "category": "code_lookup",
     "answer": "open_store.", "evidence_files": ["core/store/connection.py"], "grade": "wrong"},
    {"question_id": "h-desk", "question": "Who draws the panes?", "category": "architecture",
     "answer": "AnswerPane.", "evidence_files": ["tui/widgets/answer_pane.py"]},
]


@pytest.fixture
def imported(tmp_path):
    """A store with the fixture run (so the imported questions' row ids are not 1, 2, 3) and the harness log as run 2."""
    info = build_fixture_store(tmp_path / "store.db")
    log = tmp_path / "harness.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in LINES), encoding="utf-8")
    with open_store(info.path) as store:
        report = import_runlog(store, log)
    return info.path, report.run_id


async def test_imported_harness_log_looks_right(imported):
    path, run_id = imported
    async with running(path, run_id=run_id, size=(160, 50)) as (app, pilot):
        screen = app.screen
        shown = screen_text(app)
        assert "h-parse" in shown and "question 1 of 3" in shown
        assert "@ 0 tokens" not in shown and "— bundle" in shown and "raw top-k" in shown
        assert "Evidence files (2)" in shown and "core/jsonl.py" in shown and "text not recorded" in shown
        assert "No evidence stored" not in shown
        await keys(pilot, "j")
        assert screen.session.item.question_id == "h-store" and "question 2 of 3" in screen_text(app)
        focused = screen.side
        assert screen.answer_at(focused) is not None  # only a raw answer: focus is on it, wherever it sits
        await keys(pilot, "1")
        await keys(pilot, "tab", "2")  # the empty pane: nothing stored, and the desk says why
        assert "nothing to grade here" in app.last_status
        conn = sqlite3.connect(path)
        graded = conn.execute("SELECT a.method, h.grade FROM human_grades h JOIN answers a ON a.id = h.answer_id "
                              "WHERE a.run_id = ?", (run_id,)).fetchall()
        conn.close()
        assert graded == [("raw", "fully_correct")]
