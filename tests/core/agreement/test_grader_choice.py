"""Whom `agree` compares people with: by default the machine grader on the desk when each grade was saved, so a judge
run afterwards changes nothing; `--grader` (GraderChoice) picks another, and the report names it."""

from __future__ import annotations

import pytest

from gradedesk.core.agreement.grade_pairs import GraderChoice
from gradedesk.core.agreement.report import Settings, agreement_report
from gradedesk.core.errors import UserError
from gradedesk.core.grading.human_grades import GradeChange, record_grade
from gradedesk.core.store.grades import MachineOnDesk
from gradedesk.core.grading.vocabulary import GRADES
from gradedesk.core.store.connection import open_store
from tests.fixtures.agreement import add_auto, add_rubric
from tests.fixtures.grading import add_question, add_raw_answer, add_run

FAST = Settings(boot=0)
FC, PC, UN, WR = GRADES
PEOPLE = [FC, PC, WR, FC, UN, WR]
FIRST = [FC, PC, WR, WR, UN, FC]  # judge-a, on the desk while alice graded: agrees on 4 of 6
SECOND = [FC, FC, FC, FC, FC, FC]  # judge-b, run afterwards: agrees on 2 of 6
RULES = [WR, PC, WR, FC, UN, WR]  # the rule grader: agrees on 5 of 6


@pytest.fixture
def store(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        add_rubric(store, "r1", "2024-01-01T00:00:00+00:00")
        run = add_run(store)
        for i, (person, first, rule) in enumerate(zip(PEOPLE, FIRST, RULES)):
            answer = add_raw_answer(store, run, add_question(store, f"q{i}", "q?", "g"), "x", [])
            add_auto(store, answer, first, model="judge-a", rubric="r1")
            add_auto(store, answer, rule, kind="rule", model="rules/1")
            record_grade(store, answer, "alice", GradeChange(grade=person), rubric_version="r1",
                         machine=MachineOnDesk("judge", "judge-a", "r1"))
            add_auto(store, answer, SECOND[i], model="judge-b", rubric="r1")  # the desk now shows judge-b
        store.run = run
        yield store


def agreement(report: dict) -> float:
    return report["four_level"]["percent_agreement"]["value"]


def test_default_is_the_grader_on_the_desk_even_after_another_judge_ran(store):
    rep = agreement_report(store, store.run, FAST)
    assert rep["machine"]["label"] == "judge (judge-a)" and rep["pairs"] == 6
    assert agreement(rep) == pytest.approx(4 / 6)
    assert rep["compared_with"] == "the machine grader on the desk when each grade was saved"
    [arm] = rep["corrected_pass_rates"]["arms"]
    assert arm["judge_passed"] == FIRST.count(FC)  # the corrected rates correct the same grader's pass rate


@pytest.mark.parametrize("text,label,share", [("judge:judge-b", "judge (judge-b)", 2 / 6),
                                               ("judge:judge-a", "judge (judge-a)", 4 / 6),
                                               ("rules", "rule grader (rules/1)", 5 / 6)])
def test_grader_picks_another(store, text, label, share):
    rep = agreement_report(store, store.run, FAST, GraderChoice.parse(text))
    assert rep["machine"]["label"] == label and rep["compared_with"] == text
    assert rep["pairs"] == 6 and agreement(rep) == pytest.approx(share)


def test_a_grader_that_graded_nothing_is_named_not_replaced(store):
    rep = agreement_report(store, store.run, FAST, GraderChoice.parse("imported:their-log.jsonl"))
    assert rep["pairs"] == 0 and rep["machine"]["label"] == "imported grades (their-log.jsonl)"
    assert any("have no grade by imported:their-log.jsonl" in n for n in rep["notes"])


@pytest.mark.parametrize("text", ["gpt", "judges:x", ""])
def test_a_bad_grader_is_one_clear_line(text):
    with pytest.raises(UserError, match="--grader: .* is not judge:MODEL, rules or imported:NAME"):
        GraderChoice.parse(text)
