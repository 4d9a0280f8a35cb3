"""`gradedesk agree`, `gradedesk merge`, `gradedesk export-scores` end to end on real stores."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.fixtures.agreement import add_human, build, sampled_and_team_stores
from tests.fixtures.claims_store import add_marked_answer
from tests.fixtures.grading import add_question
from gradedesk.core.cli import main


@pytest.fixture
def store_path(tmp_path):
    path = tmp_path / "store.db"
    store, _run, _ids = build(path)
    store.close()
    return path


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_agree_tables(store_path, capsys):
    code, out, err = run_cli(capsys, "agree", "--store", str(store_path), "--bootstrap", "200")
    assert code == 0
    assert out.startswith("run 1: 16 graded pair(s), alice, bob vs judge (judge-model)")
    for title in ("Agreement (95% bootstrap intervals", "Confusion matrix", "By category", "By method", "By label",
                  "Each person vs the machine", "Corrected pass rates (Rogan-Gladen", "Switch rate", "Self-consistency",
                  "Per rubric version (current: r2)", "re-grade: q4 raw (alice, rubric r1)", "budget sweep"):
        assert title in out
    assert "By mode" not in out
    assert "Cohen's kappa" in out and "Gwet's AC1" in out and "Krippendorff" in out
    assert "note:" in err and "note:" not in out  # diagnostics on stderr
    code, out, _ = run_cli(capsys, "agree", "1", "--store", str(store_path), "--by", "mode", "--bootstrap", "0")
    assert "By mode" in out and "By category" not in out


def test_agree_json_is_stable(store_path, capsys):
    _, first, _ = run_cli(capsys, "agree", "--store", str(store_path), "--json", "--bootstrap", "100")
    _, second, _ = run_cli(capsys, "agree", "--store", str(store_path), "--json", "--bootstrap", "100")
    assert first == second  # seeded
    data = json.loads(first)
    assert data["machine"]["kind"] == "judge" and data["pairs"] == 16
    assert "NaN" not in first


def test_agree_grader_picks_whom_to_compare_with(store_path, capsys):
    code, out, _ = run_cli(capsys, "agree", "--store", str(store_path), "--bootstrap", "0", "--grader", "rules")
    assert code == 0 and out.startswith("run 1: 9 graded pair(s), alice, bob vs rule grader (rules/1)")
    assert "compared with: rules" in out
    _, out, _ = run_cli(capsys, "agree", "--store", str(store_path), "--bootstrap", "0")
    assert "compared with: the machine grader on the desk when each grade was saved" in out


@pytest.mark.parametrize("argv,message", [
    (["agree", "--grader", "gpt-4o"], "--grader: 'gpt-4o' is not judge:MODEL, rules or imported:NAME"),
    (["agree", "99"], "no run 99"),
    (["agree", "x1"], "not a run id"),
    (["agree", "--bootstrap", "-1"], "--bootstrap"),
    (["export-scores", "7"], "no run 7"),
])
def test_bad_input_is_one_line_exit_2(store_path, capsys, argv, message):
    code, out, err = run_cli(capsys, *argv, "--store", str(store_path))
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_missing_store(tmp_path, capsys):
    code, _, err = run_cli(capsys, "agree", "--store", str(tmp_path / "none.db"))
    assert code == 2 and "no such store" in err
    assert not (tmp_path / "none.db").exists()


def test_merge_command(store_path, tmp_path, capsys):
    other = tmp_path / "other.db"
    shutil.copy(store_path, other)
    from gradedesk.core.store.connection import open_store
    with open_store(other) as store:
        add_human(store, 1, "carol", "wrong")
    code, out, _ = run_cli(capsys, "merge", str(other), "--store", str(store_path), "--dry-run")
    assert code == 0 and "would add" in out
    code, out, _ = run_cli(capsys, "merge", str(other), "--store", str(store_path), "--json")
    data = json.loads(out)
    assert data["grades_added"] == 1 and data["graders"] == ["carol"] and data["grades_already_here"] > 0
    code, out, _ = run_cli(capsys, "merge", str(other), "--store", str(store_path), "--json")
    assert json.loads(out)["grades_added"] == 0
    code, _, err = run_cli(capsys, "merge", str(tmp_path / "nope.db"), "--store", str(store_path))
    assert code == 2 and "no such store to merge" in err


def test_export_scores(store_path, tmp_path, capsys):
    code, out, err = run_cli(capsys, "export-scores", "--store", str(store_path))
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert {r["source"] for r in records} == {"HUMAN", "EVAL"}
    assert f"{len(records)} score record(s)" in err
    target = tmp_path / "scores.jsonl"
    code, out, _ = run_cli(capsys, "export-scores", "1", "--store", str(store_path), "--out", str(target))
    assert code == 0 and out == ""
    assert len(target.read_text().splitlines()) == len(records)


def test_merged_sampled_grades_keep_their_weighted_figures(tmp_path, capsys):
    """After `merge`, a person's sampled grades weigh in `agree` as in their own store: repeat draws count again."""
    carol, team = sampled_and_team_stores(tmp_path)

    def weighted(store) -> tuple[dict, list]:
        code, out, err = run_cli(capsys, "agree", "--store", str(store), "--json", "--bootstrap", "300")
        assert code == 0, err
        samples = json.loads(out)["samples"]
        return samples["sampled"], samples["pass_rates"]

    sampled, pass_rates = weighted(carol)
    assert sampled["draws"] > 8 and sampled["four_level"]["cohen_kappa"]["value"] is not None
    code, out, _ = run_cli(capsys, "merge", str(carol), "--store", str(team), "--json")
    assert code == 0 and json.loads(out)["draws_added"] == sampled["draws"]
    assert weighted(team) == (sampled, pass_rates)
    code, out, _ = run_cli(capsys, "merge", str(carol), "--store", str(team))
    assert code == 0 and "sampler draws added" in out
    assert weighted(team) == (sampled, pass_rates)  # merging again adds nothing


def test_export_scores_carries_claim_marks(store_path, capsys):
    from gradedesk.core.store.connection import open_store

    with open_store(store_path) as store:
        answer = add_marked_answer(store, 1, add_question(store, "q-claims", "how is the discount applied?", "g"))
    for fmt in ("gradedesk", "langfuse", "phoenix"):
        code, out, err = run_cli(capsys, "export-scores", "--store", str(store_path), "--format", fmt)
        assert code == 0 and f"{len(out.splitlines())} score record(s)" in err
        names = [r["name"] for r in map(json.loads, out.splitlines())
                 if (r.get("answer_id") or r["metadata"]["answer_id"]) == answer]
        assert names == ["claim_mark"] * 5 + ["faithfulness", "citation_precision", "claim_mark"]
