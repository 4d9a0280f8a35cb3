"""`agree` and `summary` break people's grades and preferences down by budget (issue 29): bundled answers graded at
1,000 and 2,000 tokens, raw answers graded beside either, preferences compared at each (end to end, real store)."""

from __future__ import annotations

import json

from tests.fixtures.agreement import graded_at_two_budgets
from tests.fixtures.cli import cli
from gradedesk.core.grading.human_grades import GradeChange, record_grade
from gradedesk.core.review.flags import flag_item
from gradedesk.core.review.item import load_item
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.run_records import run_info


def test_agree_json_splits_peoples_grades_and_preferences_by_budget(tmp_path, capsys):
    path = tmp_path / "store.db"
    graded_at_two_budgets(path)
    code, out, _ = cli(capsys, "agree", "1", "--store", path, "--json", "--bootstrap", "50")
    assert code == 0
    by_budget = json.loads(out)["by_budget"]
    grades = {g["method"]: g for g in by_budget["people"]["grades"]}
    assert [(m, g["graded"], g["passed"]) for m, g in grades.items()] == [
        ("raw", 6, 0), ("bundle@1000", 3, 1), ("bundle@2000", 3, 3)]
    assert grades["raw"]["beside"] == {"1000": 3, "2000": 3}  # one raw answer each, graded beside either
    assert grades["bundle@1000"]["pass_rate"]["value"] == 1 / 3
    prefs = {p["budget"]: p for p in by_budget["people"]["preferences"]}
    assert [(b, p["raw"], p["bundle"], p["tie"]) for b, p in prefs.items()] == [(1000, 3, 0, 0), (2000, 0, 3, 1)]
    assert prefs[2000]["bundle_preferred"]["value"] == 1.0
    points = {p["method"]: p for p in by_budget["points"]}
    assert list(points) == ["raw", "bundle@1000", "bundle@2000"]
    assert points["bundle@2000"]["people"]["value"] == 1.0 and points["bundle@2000"]["machine"]["n"] == 4  # the judge's (2 rule grades apart)
    assert points["bundle@1000"]["machine"]["value"] is None  # the judge graded no 1,000-token answer
    code, out, _ = cli(capsys, "agree", "1", "--store", path, "--bootstrap", "50")
    assert "Pass rate by budget" in out and "Preferences by budget" in out


def test_summary_json_splits_peoples_grades_and_preferences_by_budget(tmp_path, capsys):
    path = tmp_path / "store.db"
    graded_at_two_budgets(path)
    code, out, _ = cli(capsys, "summary", "1", "--store", path, "--json")
    assert code == 0
    people = json.loads(out)["by_budget"]
    assert [(g["method"], g["graded"], g["passed"]) for g in people["grades"]] == [
        ("raw", 6, 0), ("bundle@1000", 3, 1), ("bundle@2000", 3, 3)]
    assert [(p["budget"], p["preferences"]) for p in people["preferences"]] == [(1000, 3), (2000, 4)]  # 3 and a tie
    code, out, _ = cli(capsys, "summary", "1", "--store", path)
    assert "people by budget" in out and "bundle preferred (ties left out)" in out


def test_a_flagged_item_is_left_out_of_the_figures_by_budget_at_every_budget(tmp_path, capsys):
    path = tmp_path / "store.db"
    graded_at_two_budgets(path)
    with open_store(path) as store:
        run = run_info(store, 1)
        first = min(r["id"] for r in store._query("SELECT id FROM questions"))
        # the first question is graded and compared at both budgets (alice graded it at 1,000, and prefers a tie at
        # 2,000): its 2,000-token answer graded too
        item = load_item(store, run.showing(2000), "alice", first)
        record_grade(store, item.answers["bundle"].id, "alice", GradeChange(grade="fully_correct"), budget=2000)
        flag_item(store, 1, first, "bob", "bad_gold", None, judge_visible=False)
    for command in ("agree", "summary"):
        code, out, _ = cli(capsys, command, "1", "--store", path, "--json", *(
            ("--bootstrap", "50") if command == "agree" else ()))
        assert code == 0
        report = json.loads(out)
        by_budget = report["by_budget"]
        people = by_budget["people"] if command == "agree" else by_budget
        assert [(g["method"], g["graded"], g["passed"]) for g in people["grades"]] == [
            ("raw", 5, 0), ("bundle@1000", 2, 0), ("bundle@2000", 3, 3)], command
        assert [(p["budget"], p["raw"], p["bundle"], p["tie"]) for p in people["preferences"]] == [
            (1000, 2, 0, 0), (2000, 0, 3, 0)], command
        if command == "agree":
            assert report["flagged_items_excluded"] == 1
            points = {p["method"]: p for p in by_budget["points"]}
            assert points["bundle@2000"]["people"]["n"] == 3 and points["raw"]["people"]["n"] == 5
