"""A run judged under two rubrics (through align, against the chat stand-in): the agreement report puts them side by
side on the items both graded, says the headline mixes them, and probes the machine grader for bias."""

from __future__ import annotations

import pytest

from gradedesk.core.agreement.judge_alignment import AlignSettings, align
from gradedesk.core.agreement.report import Settings, agreement_report
from gradedesk.core.agreement.tables import report_tables
from gradedesk.core.grading.rubric_format import builtin_rubric
from gradedesk.core.providers.openai_compat import OpenAICompatibleProvider
from gradedesk.core.store.connection import open_store
from tests.fixtures.alignment import build_graded_run, example_following_judge


def test_two_rubrics_side_by_side_on_the_items_both_graded(tmp_path, chat_server):
    chat_server.responder = example_following_judge
    store = open_store(tmp_path / "s.db")
    run, grades = build_graded_run(store, 12)
    judge = OpenAICompatibleProvider("judge-model", base_url=chat_server.base_url, max_retries=0, timeout=5)
    r = align(store, run, builtin_rubric(), judge, AlignSettings(seed=2, boot=200))
    report = agreement_report(store, run, Settings(boot=200))
    jr = report["judge_rubrics"]
    assert [(v["model"], v["rubric_version"], v["n"]) for v in jr["versions"]] == [
        ("judge-model", r["base"]["version"], 24), ("judge-model", r["new"]["version"], r["test"]["n"])]
    assert jr["common_items"] == r["test"]["n"]  # only the test answers were judged under both
    base, new = jr["versions"]
    measures = r["test"]["measures"]
    assert base["common"]["percent_agreement"]["value"] == pytest.approx(measures["percent_agreement"]["base"]["value"])
    assert new["common"]["percent_agreement"]["value"] == pytest.approx(measures["percent_agreement"]["new"]["value"])
    assert any("under 2 rubric versions" in n for n in report["notes"])
    # the machine grade the headline uses: the new rubric's on test answers, the base's on train answers
    pairs = report["pairs"]
    inflation = report["bias"]["grade_inflation"]
    passed_by_people = sum(g == "fully_correct" for g in grades.values())
    assert pairs == 24 and inflation["person_pass_rate"]["value"] == pytest.approx(passed_by_people / 24)
    judged_pass = store._scalar("SELECT count(*) FROM machine_grades m JOIN answers a ON a.id = m.answer_id "
                               "WHERE a.run_id = ? AND m.grade = 'fully_correct'", (run,))
    assert inflation["judge_pass_rate"]["value"] == pytest.approx(judged_pass / 24)
    assert sum(t["n"] for t in report["bias"]["verbosity"]) == 24
    titles = [t.title for t in report_tables(report, [])]
    assert any(t.startswith("Per judge rubric version") for t in titles)
    assert any(t.startswith("Biases of the machine grader") for t in titles)
