"""Inspect AI logs in and back out, checked by inspect-ai itself: a tiny task run by inspect-ai against the chat
stand-in (two models, two epochs) → `import-inspect` → graded at the desk → `export-scores --format inspect` → the
copy read back with inspect-ai's `read_eval_log`, the person's grade there as a score edit with its author and note."""

from __future__ import annotations

import sys

import pytest

from tests.fixtures.chat_server import ChatServer
from tests.fixtures.cli import cli
from tests.fixtures.desk import keys, pane_text, rows, running, screen_text
from tests.fixtures.eval_tools import INSPECT_PROVIDER as PROVIDER
from tests.fixtures.eval_tools import ANSWERS, answer, inspect_logs, require_inspect

@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    require_inspect()
    with ChatServer(responder=answer) as server:
        return inspect_logs(server, tmp_path_factory.mktemp("inspect"), ["model-a", "model-b"], epochs=2)


def read(path):
    from inspect_ai.log import read_eval_log

    return read_eval_log(str(path))


def score_edits(path) -> list[tuple]:
    """(sample id, epoch, edit) of every edit someone made to the includes scores of a log, as inspect-ai reads it
    (the history also keeps the scorer's own value, which has no provenance)."""
    return [(s.id, s.epoch, e) for s in read(path).samples for e in s.scores["includes"].history if e.provenance]


@pytest.mark.anyio
async def test_two_logs_graded_at_the_desk_come_back_as_score_edits_inspect_reads(logs, tmp_path, capsys):
    db = tmp_path / "store.db"
    code, out, err = cli(capsys, "import-inspect", logs[0], logs[1], "--store", db)
    assert code == 0, err
    assert "8 new sample(s) as run 1 (4 new question(s), 4 paired, 8 machine grade(s))" in out
    stored = rows(db, "SELECT q.question_id, q.question, q.gold_answer, a.method, a.text, a.tokens_in, t.side, "
                      "t.trace_id FROM answers a JOIN questions q ON q.id = a.question_pk "
                      "JOIN answer_traces t ON t.answer_id = a.id ORDER BY q.question_id, a.method DESC")
    first = stored[0]
    assert (first["question_id"], first["question"], first["gold_answer"]) == (
        "sample=q1 epoch 1", "Which function opens the store?", "open_store")
    assert (first["method"], first["side"], first["text"]) == ("raw", PROVIDER + "model-a", "open_store opens it.")
    assert first["tokens_in"] > 0 and first["trace_id"].endswith("/q1/1")
    assert [r["side"] for r in stored[:2]] == [PROVIDER + "model-a", PROVIDER + "model-b"]
    assert {r["question_id"] for r in stored} == {"sample=q1 epoch 1", "sample=q1 epoch 2", "sample=q2 epoch 1",
                                                  "sample=q2 epoch 2"}
    grades = rows(db, "SELECT grader_kind, grader_model, grade FROM auto_grades ORDER BY id")
    assert grades[0] == {"grader_kind": "imported", "grader_model": "inspect:includes", "grade": "fully_correct"}
    assert {g["grade"] for g in grades} == {"fully_correct", "wrong"}  # model-b missed both

    # at the desk the panes are titled by the models, as traces' are by their projects
    async with running(db, run_id=1, size=(160, 50)) as (app, pilot):
        shown = screen_text(app)
        assert f" — {PROVIDER}model-a " in shown and f" — {PROVIDER}model-b " in shown
        assert "Gold: open_store" in shown
        assert "/q1/1" in pane_text(app, app.screen.side)  # the pane says which sample it came from
        await keys(pilot, "e")
        await pilot.press(*"sure of it")
        await keys(pilot, "enter", "2")
    (grade,) = rows(db, "SELECT a.text, h.grade, h.note FROM current_human_grades h JOIN answers a ON a.id = h.answer_id")
    assert (grade["grade"], grade["note"]) == ("partially_correct", "sure of it")
    graded_model = "model-a" if grade["text"] in ANSWERS["model-a"].values() else "model-b"

    out_log = tmp_path / "graded.eval"
    code, _, err = cli(capsys, "export-scores", "--format", "inspect", "--out", out_log, "--store", db)
    assert code == 0, err
    assert "1 score edit(s) from 1 graded sample(s)" in err
    copies = {m: tmp_path / f"graded.{PROVIDER.replace('/', '-')}{m}.eval" for m in ANSWERS}
    edits = score_edits(copies[graded_model])
    assert len(edits) == 1
    sample_id, epoch, edit = edits[0]
    assert (sample_id, epoch) == ("q1", 1)
    assert edit.value == "P" and edit.explanation == "sure of it"
    assert edit.provenance.author == "alice" and edit.provenance.reason == "sure of it"
    assert edit.provenance.metadata["grade"] == "partially_correct"
    other = "model-b" if graded_model == "model-a" else "model-a"
    assert not score_edits(copies[other]) and not score_edits(logs[0])  # the original untouched

    # importing again adds nothing; a log rewritten under a graded sample is said
    code, out, err = cli(capsys, "import-inspect", logs[0], logs[1], "--store", db)
    assert code == 0 and "0 new sample(s) added to run 1" in out and "8 already imported" in out
    assert "read otherwise" not in err
    from inspect_ai.log import write_eval_log

    changed = read(logs[0] if graded_model == "model-a" else logs[1])
    for s in changed.samples:
        s.output.completion = "rewritten"
    write_eval_log(changed, str(tmp_path / "changed.eval"))
    pair = [tmp_path / "changed.eval", logs[1]] if graded_model == "model-a" else [logs[0], tmp_path / "changed.eval"]
    code, out, err = cli(capsys, "import-inspect", *pair, "--store", db)
    assert code == 0 and "4 sample(s) imported before now read otherwise in the file (1 of them graded" in err

    # withdrawn at the desk: the next export carries no edit
    async with running(db, run_id=1, size=(160, 50)) as (app, pilot):
        await keys(pilot, "u")
    code, _, err = cli(capsys, "export-scores", "--format", "inspect", "--out", out_log, "--store", db)
    assert code == 0 and "0 score edit(s) from 0 graded sample(s)" in err
    assert not score_edits(copies[graded_model])


def test_bad_logs_and_a_missing_inspect_are_one_line_and_store_nothing(logs, tmp_path, capsys, monkeypatch):
    db = tmp_path / "store.db"
    bad = tmp_path / "notes.eval"
    bad.write_text("not a log\n")
    code, _, err = cli(capsys, "import-inspect", bad, "--store", db)
    assert code == 2 and err.startswith(f"gradedesk: error: {bad}: not an Inspect log inspect-ai can read")
    assert len(err.strip().splitlines()) == 1 and not db.exists()
    code, _, err = cli(capsys, "import-inspect", logs[0], logs[0], "--store", db)
    assert code == 2 and "the same log as side A" in err and not db.exists()

    # a copy is never written over the log it came from
    assert cli(capsys, "import-inspect", logs[0], "--store", db)[0] == 0
    code, _, err = cli(capsys, "export-scores", "--format", "inspect", "--out", logs[0], "--store", db)
    assert code == 2 and f"--out: {logs[0]} is a file this command reads" in err
    code, _, err = cli(capsys, "export-scores", "--format", "inspect", "--store", db)
    assert code == 2 and "--out" in err

    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # as if the extra were not installed
    code, _, err = cli(capsys, "import-inspect", logs[0], "--store", tmp_path / "other.db")
    assert (code, err.strip()) == (2, "gradedesk: error: import-inspect needs the inspect extra: "
                                      "pip install 'gradedesk[inspect]'")


def test_two_people_on_a_sample_without_a_pass_fail_score_become_edits_of_a_new_gradedesk_score(logs, tmp_path, capsys):
    from inspect_ai.log import write_eval_log

    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.grades import add_grade

    log = read(logs[0])
    for s in log.samples:
        s.scores = {}
    unscored = tmp_path / "unscored.eval"
    write_eval_log(log, str(unscored))
    db = tmp_path / "store.db"
    code, out, err = cli(capsys, "import-inspect", unscored, "--store", db)
    assert code == 0 and "0 machine grade(s)" in out, err
    with open_store(db) as store:  # two people's grades of the first sample, as the desk stores them
        for person, grade in (("ann", "fully_correct"), ("bob", "wrong")):
            add_grade(store, 1, person, {"grade": grade, "note": f"{person}'s note"}, judge_visible=False,
                      mode="blind", is_revision=False, rubric_version=None, selection=None,
                      selection_probability=None, machine=None)
    out_log = tmp_path / "graded.eval"
    code, _, err = cli(capsys, "export-scores", "--format", "inspect", "--out", out_log, "--store", db)
    assert code == 0 and "2 score edit(s) from 1 graded sample(s)" in err, err
    (sample,) = [s for s in read(out_log).samples if s.scores]
    edits = [e for e in sample.scores["gradedesk"].history if e.provenance]
    assert [(e.provenance.author, e.value, e.provenance.reason) for e in edits] == [
        ("ann", "C", "ann's note"), ("bob", "I", "bob's note")]
    assert sample.scores["gradedesk"].value == "I"  # the newest person's grade is the score's value now
