"""promptfoo results in and back out, checked by promptfoo itself: a real `promptfoo eval` of a tiny config against the
chat stand-in → `import-promptfoo` → graded at the desk → `export-scores --format promptfoo` → `promptfoo import`, and
promptfoo's own export of the eval shows the person's rating as a human grading result with its comment."""

from __future__ import annotations

import json

import pytest

from tests.fixtures.chat_server import ChatServer
from tests.fixtures.cli import cli
from tests.fixtures.desk import keys, rows, running, screen_text
from tests.fixtures.eval_tools import answer, promptfoo, promptfoo_eval, require_promptfoo


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    exe = require_promptfoo()
    work = tmp_path_factory.mktemp("promptfoo")
    with ChatServer(responder=answer) as server:
        return exe, work, promptfoo_eval(exe, server, work)


def human_ratings(exe, work, eval_id) -> list[dict]:
    """The human grading results of the eval as promptfoo's own export shows them."""
    promptfoo(exe, work / "promptfoo-home", work, "export", "eval", eval_id, "--output", "exported.json")
    exported = json.loads((work / "exported.json").read_text())
    return [c for r in exported["results"]["results"] for c in r["gradingResult"]["componentResults"]
            if c["assertion"]["type"] == "human"]


@pytest.mark.anyio
async def test_results_graded_at_the_desk_come_back_as_human_ratings_promptfoo_imports(results, tmp_path, capsys):
    exe, work, results_file = results
    eval_id = json.loads(results_file.read_text())["evalId"]
    db = tmp_path / "store.db"
    code, out, err = cli(capsys, "import-promptfoo", results_file, "--store", db)
    assert code == 0, err
    assert "4 new result(s) as run 1 (2 new question(s), 2 paired, 4 machine grade(s))" in out
    stored = rows(db, "SELECT q.question, q.gold_answer, a.method, a.text, a.tokens_in, a.latency_ms, t.side "
                      "FROM answers a JOIN questions q ON q.id = a.question_pk "
                      "JOIN answer_traces t ON t.answer_id = a.id ORDER BY q.question_id, a.method DESC")
    assert [(r["question"], r["gold_answer"], r["side"], r["text"]) for r in stored] == [
        ("Which function opens the store?", "open_store", "model-a", "open_store opens it."),
        ("Which function opens the store?", "open_store", "model-b", "I could not say."),
        ("What counts tokens?", "count_tokens", "model-a", "count_tokens counts them."),
        ("What counts tokens?", "count_tokens", "model-b", "With tiktoken.")]
    assert all(r["tokens_in"] > 0 and r["latency_ms"] is not None for r in stored)
    grades = rows(db, "SELECT grader_model, grade, reasoning FROM auto_grades ORDER BY id")
    assert {(g["grader_model"], g["grade"]) for g in grades} == {
        ("promptfoo:contains", "fully_correct"), ("promptfoo:contains", "wrong"),
        ("promptfoo:icontains", "fully_correct"), ("promptfoo:icontains", "wrong")}

    # at the desk the panes are titled by the providers' labels
    async with running(db, run_id=1, size=(160, 50)) as (app, pilot):
        shown = screen_text(app)
        assert " — model-a " in shown and " — model-b " in shown
        await keys(pilot, "e", *"cites nothing", "enter", "3")
    (graded,) = rows(db, "SELECT a.text, h.grade, h.note FROM current_human_grades h JOIN answers a ON a.id = h.answer_id")
    assert (graded["grade"], graded["note"]) == ("unsupported", "cites nothing")

    out_file = tmp_path / "graded.json"
    code, _, err = cli(capsys, "export-scores", "--format", "promptfoo", "--out", out_file, "--store", db)
    assert code == 0 and "1 human rating(s) of 1 graded result(s)" in err, err
    promptfoo(exe, work / "promptfoo-home", work, "import", "--force", str(out_file))
    (rating,) = human_ratings(exe, work, eval_id)
    assert (rating["pass"], rating["score"], rating["reason"], rating["comment"]) == (
        False, 0.0, "cites nothing", "cites nothing")
    assert rating["metadata"]["grader"] == "alice" and rating["metadata"]["grade"] == "unsupported"

    # importing again adds nothing; withdrawn at the desk, the next export has no rating (and `import --force` puts it
    # in place of the one promptfoo holds: each promptfoo call takes 10-30 s here, so that is not run again)
    code, out, _ = cli(capsys, "import-promptfoo", results_file, "--store", db)
    assert code == 0 and "0 new result(s) added to run 1" in out and "4 already imported" in out
    async with running(db, run_id=1, size=(160, 50)) as (app, pilot):
        await keys(pilot, "u")
    code, _, err = cli(capsys, "export-scores", "--format", "promptfoo", "--out", out_file, "--store", db)
    assert code == 0 and "0 human rating(s)" in err
    exported = json.loads(out_file.read_text())
    assert exported["evalId"] == eval_id
    assert not [c for r in exported["results"]["results"] for c in r["gradingResult"]["componentResults"]
                if c["assertion"]["type"] == "human"]


def test_a_file_promptfoo_did_not_write_is_one_line_and_stores_nothing(tmp_path, capsys):
    db = tmp_path / "store.db"
    bad = tmp_path / "results.json"
    for text, why in (("{not json", "not JSON"), ('{"results": {"version": 2, "results": []}, "evalId": "e"}',
                                                   "results version 2; gradedesk reads version 3"),
                      ('{"evalId": "e"}', "not a promptfoo results file")):
        bad.write_text(text)
        code, _, err = cli(capsys, "import-promptfoo", bad, "--store", db)
        assert code == 2 and err.startswith(f"gradedesk: error: {bad}: ") and why in err, err
        assert len(err.strip().splitlines()) == 1 and not db.exists()
