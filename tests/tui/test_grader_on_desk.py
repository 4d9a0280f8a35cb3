"""Each grade saved at the desk names the machine grader the desk had for the answer, shown or still hidden; `agree`
then compares with that grader even after another judge has graded the run (through the desk session)."""

from __future__ import annotations

import sqlite3

from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.agreement.report import Settings, agreement_report
from gradedesk.core.review.queue import left_method
from gradedesk.core.store.connection import open_store
from tests.fixtures.agreement import add_auto
from tests.fixtures.session import act, opened


def test_grades_name_the_grader_on_the_desk(fixture_store):
    info = fixture_store
    with open_store(info.path) as store:  # questions 1 (judge graded) and 3 (rule graded, in the fixture)
        session = opened(store, info)
        act(store, session, session.grade(session.answer_at("left"), GradeChange(grade="fully_correct")))
        act(store, session, session.step(1))
        act(store, session, session.step(1))
        act(store, session, session.grade(session.answer_at("left"), GradeChange(grade="wrong")))
    conn = sqlite3.connect(info.path)
    recorded = conn.execute("SELECT answer_id, machine_kind, machine_model, machine_rubric FROM human_grades "
                            "ORDER BY id").fetchall()
    conn.close()
    first, third = (info.answer_ids[(pk, left_method(7, pk))] for pk in (info.question_pks[0], info.question_pks[2]))
    assert recorded == [(first, "judge", "gpt-4o-mini", "rubric-1"), (third, "rule", "rules/1", "rubric-1")]
    with open_store(info.path) as store:
        add_auto(store, first, "wrong", model="gpt-5", rubric="rubric-1")  # a second judge, after the grading
        report = agreement_report(store, info.run_id, Settings(boot=0))
    assert report["machine"]["label"] == "judge (gpt-4o-mini)" and report["pairs"] == 1
