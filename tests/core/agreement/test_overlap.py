"""`agree` on a run graded by a team (gradedesk assign, grade --adjudicate): people vs people on the overlap items
(alpha with its interval, kappa per pair) and the settled grade vs the judge, in --json and as text."""

from __future__ import annotations

import json

from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.review.adjudication import decide_grade
from gradedesk.core.review.team import assign_run
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.run_records import run_info

from tests.fixtures.agreement import add_human
from tests.fixtures.cli import cli
from tests.fixtures.desk_store import build_fixture_store

OTHER = {"fully_correct": "wrong", "partially_correct": "wrong", "unsupported": "wrong", "wrong": "fully_correct"}


def test_agree_json_reports_people_vs_people_and_the_settled_grade_vs_the_judge(tmp_path, capsys):
    info = build_fixture_store(tmp_path / "store.db", questions=6)
    q = info.question_pks
    with open_store(info.path) as store:
        assign_run(store, info.run_id, ["ann", "bob"], 2)
        judge = {pk: store._scalar("SELECT grade FROM machine_grades WHERE answer_id = ?",
                                   (info.answer_ids[(pk, "raw")],)) for pk in q}
        # ann grades as the judge did; bob agrees on q0 and q3, not on q1 and q4; q2, q5 (rule-graded) not graded
        for i in (0, 1, 3, 4):
            add_human(store, info.answer_ids[(q[i], "raw")], "ann", judge[q[i]])
            add_human(store, info.answer_ids[(q[i], "raw")], "bob", judge[q[i]] if i in (0, 3) else OTHER[judge[q[i]]])
        add_human(store, info.answer_ids[(q[0], "raw")], "dan", "wrong")  # not assigned: in no overlap figure
        decide_grade(store, run_info(store, info.run_id), q[1], "raw", 0, "lead", GradeChange(grade=judge[q[1]]),
                     judge_visible=True)
    code, out, err = cli(capsys, "agree", "--store", info.path, "--json")
    assert code == 0, err
    report = json.loads(out)
    overlap = report["overlap"]
    assert overlap["overlap_answers"] == 4 and overlap["alpha"]["n"] == 4
    assert overlap["alpha"]["low"] is not None and overlap["alpha"]["value"] < 1
    assert [(k["people"], k["n"]) for k in overlap["pairwise_kappa"]] == [("ann-bob", 4)]
    assert (overlap["adjudicated"], overlap["undecided"], overlap["reference_pairs"]) == (1, 1, 3)
    assert overlap["reference_vs_machine"]["percent_agreement"]["value"] == 1.0
    assert "lead" not in report["people"]  # a decision is not a person's grade
    code, out, _ = cli(capsys, "agree", "--store", info.path)
    assert "Cohen's kappa ann-bob" in out and "a lead's decision on 1 answers" in out
