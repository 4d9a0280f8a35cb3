"""Flagged items end to end on real stores: `agree` leaves them out and says how many, `export-scores` carries each
flag, `gradedesk questions flags` lists them, and `merge` brings another copy's flags (and their undos) along."""

from __future__ import annotations

import json
import shutil

import pytest
from langfuse.api import CreateScoreRequest
from langfuse.api.core.pydantic_utilities import parse_obj_as

from gradedesk.core.review.flags import flag_item, unflag_item
from gradedesk.core.store.connection import open_store
from tests.fixtures.agreement import build
from tests.fixtures.cli import cli


@pytest.fixture
def flagged(tmp_path):
    """The agreement story's store (16 pairs), with q2 flagged by alice; bob flagged q5 and took it back."""
    path = tmp_path / "store.db"
    store, run, _ids = build(path)
    q2 = store._scalar("SELECT id FROM questions WHERE question_id = 'q2'")
    q5 = store._scalar("SELECT id FROM questions WHERE question_id = 'q5'")
    flag_item(store, run, q2, "alice", "bad_gold", "the gold names the wrong file", judge_visible=True)
    flag_item(store, run, q5, "bob", "ambiguous", None, judge_visible=False)
    unflag_item(store, run, q5, "bob", judge_visible=False)
    store.close()
    return path


def test_agree_leaves_flagged_items_out_and_says_how_many(flagged, capsys):
    _, before, _ = cli(capsys, "agree", "--store", flagged, "--json",
                       "--bootstrap", "0")
    data = json.loads(before)
    # q2's three pairs (alice raw and bundle, bob raw) are left out of the 16
    assert data["pairs"] == 13 and data["flagged_items_excluded"] == 1
    assert any("1 flagged item(s)" in note and "questions flags" in note for note in data["notes"])
    assert data["confusion"]["matrix"] and sum(map(sum, data["confusion"]["matrix"])) == 13
    # and out of the people's own figures: q2 raw was graded by both, and blind before the reveal
    assert data["krippendorff_alpha"]["n"] == 3 and data["switch_rate"]["eligible"] == 13
    code, out, err = cli(capsys, "agree", "--store", flagged, "--bootstrap", "0")
    assert code == 0 and out.startswith("run 1: 13 graded pair(s)")
    assert "note: 1 flagged item(s)" in err


def test_export_scores_carry_each_flag(flagged, capsys):
    code, out, _ = cli(capsys, "export-scores", "--store", flagged)
    assert code == 0
    flags = [r for r in map(json.loads, out.splitlines()) if r["name"] == "flag"]
    assert len(flags) == 1  # bob's was taken back
    [f] = flags
    assert (f["value"], f["data_type"], f["source"], f["grader"], f["comment"]) == \
        ("bad_gold", "CATEGORICAL", "HUMAN", "alice", "the gold names the wrong file")
    assert f["trace_id"].endswith(":q2") and f["question_id"] == "q2" and "observation_id" not in f
    assert f["metadata"] == {"judge_visible": True}
    _, out, _ = cli(capsys, "export-scores", "--store", flagged, "--format", "langfuse")
    [lf] = [r for r in map(json.loads, out.splitlines()) if r["name"] == "flag"]
    parsed = parse_obj_as(CreateScoreRequest, lf)
    assert not parsed.model_extra and parsed.dict().keys() == lf.keys()  # the score API's own record
    assert (lf["value"], lf["dataType"], lf["comment"]) == ("bad_gold", "CATEGORICAL", "the gold names the wrong file")
    assert "observationId" not in lf and lf["metadata"]["question_id"] == "q2"


def test_a_flag_taken_back_is_withdrawn_from_an_earlier_export(flagged, tmp_path, capsys):
    gone = tmp_path / "gone.jsonl"
    cli(capsys, "export-scores", "--store", flagged, "--withdrawn", gone)
    [w] = [r for r in map(json.loads, gone.read_text().splitlines()) if r["name"] == "flag"]
    assert (w["grader"], w["question_id"], w["withdrawn"]) == ("bob", "q5", True)
    # the id is the one bob's flag had when it was exported, before he took it back
    with open_store(flagged) as store:
        q5 = store._scalar("SELECT id FROM questions WHERE question_id = 'q5'")
        flag_item(store, 1, q5, "bob", "ambiguous", None, judge_visible=False)
    _, out, _ = cli(capsys, "export-scores", "--store", flagged, "--format", "langfuse")
    bobs = [r for r in map(json.loads, out.splitlines()) if r["name"] == "flag" and r["metadata"]["grader"] == "bob"]
    _, out, _ = cli(capsys, "export-scores", "--store", flagged)
    assert w["id"] in {r["id"] for r in map(json.loads, out.splitlines())}
    with open_store(flagged) as store:
        unflag_item(store, 1, q5, "bob", judge_visible=False)
    cli(capsys, "export-scores", "--store", flagged, "--format", "langfuse", "--withdrawn", gone)
    assert [r["id"] for r in map(json.loads, gone.read_text().splitlines()) if r["name"] == "flag"] == \
        [bobs[0]["id"]]


def test_questions_flags_lists_them_for_fixing_the_benchmark(flagged, capsys):
    code, out, _ = cli(capsys, "questions", "flags", "--store", flagged, "--json")
    assert code == 0
    [row] = json.loads(out)
    assert {k: row[k] for k in ("run_id", "question_id", "question", "grader", "reason", "note")} == \
        {"run_id": 1, "question_id": "q2", "question": "question q2?", "grader": "alice", "reason": "bad_gold",
         "note": "the gold names the wrong file"}
    assert row["time"]
    code, out, err = cli(capsys, "questions", "flags", "--store", flagged, "--run", "1")
    assert code == 0 and "q2" in out and "bad_gold" in out and "question q2?" in out and "1 flag(s)" in err
    code, out, err = cli(capsys, "questions", "flags", "--store", flagged, "--run", "7")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    code, _, err = cli(capsys, "questions", "flags", "--store", flagged.parent / "none.db")
    assert code == 2 and "no such store" in err and not (flagged.parent / "none.db").exists()


def test_merge_brings_another_copys_flags_and_undos_once(flagged, tmp_path, capsys):
    theirs = tmp_path / "theirs.db"
    shutil.copy(flagged, theirs)
    with open_store(theirs) as store:
        q4 = store._scalar("SELECT id FROM questions WHERE question_id = 'q4'")
        flag_item(store, 1, q4, "carol", "other", "asks two things", judge_visible=False)
    mine = tmp_path / "mine.db"
    build(mine)[0].close()
    code, out, _ = cli(capsys, "merge", theirs, "--store", mine, "--json")
    report = json.loads(out)
    assert code == 0 and (report["flags_added"], report["flags_already_here"], report["unmatched_flags"]) == (4, 0, {})
    _, out, _ = cli(capsys, "merge", theirs, "--store", mine, "--json")
    assert (json.loads(out)["flags_added"], json.loads(out)["flags_already_here"]) == (0, 4)
    _, out, _ = cli(capsys, "questions", "flags", "--store", mine, "--json")
    assert [(r["question_id"], r["grader"]) for r in json.loads(out)] == [("q2", "alice"), ("q4", "carol")]
    _, out, _ = cli(capsys, "merge", theirs, "--store", mine)
    assert "item flags already here" in out
