"""core/review/ and the desk's store queries: the desk's data layer on a real fixture store (keyset queue, items, grade events, desk state)."""

from __future__ import annotations

import pytest

from gradedesk.core.grading import human_grades
from gradedesk.core.agreement.report import agreement_report
from gradedesk.core.review import queue as review
from gradedesk.core.review import item as review_item
from gradedesk.core.errors import UserError
from gradedesk.core.grading.human_grades import GradeChange
from gradedesk.core.review.queue import Filters
from gradedesk.core.store.run_records import run_info


def test_run_info_and_shown_answers(env):
    store, run, info = env
    assert run.primary_budget == 2000 and run.order_seed == 7 and run.rubric_version == "rubric-1"
    assert review.count_shown(store, run) == 2 * len(info.question_pks)  # raw + bundle@2000, not bundle@1000


def test_primary_budget_falls_back_to_the_largest_answered(env):
    store, run, info = env
    with store.transaction():
        store._conn.execute("UPDATE runs SET primary_budget = NULL")
    assert run_info(store, info.run_id).primary_budget == 2000


def test_queue_pages_follow_keys_without_gaps(env):
    store, run, info = env
    whole = review.queue_page(store, run, "alice", Filters(), limit=1000)
    paged, after = [], None
    while True:
        page = review.queue_page(store, run, "alice", Filters(), after=after, limit=5)
        paged += page
        if len(page) < 5:
            break
        after = page[-1].key
    assert [r.answer_id for r in paged] == [r.answer_id for r in whole]
    assert len(whole) == 12 and {r.method for r in whole} == {"raw", "bundle"}
    assert all(r.side == ("left" if review.left_method(7, r.question_pk) == r.method else "right") for r in whole)


def test_left_right_shuffle_is_seeded_and_mixed():
    sides = [review.left_method(7, pk) for pk in range(1, 101)]
    assert sides == [review.left_method(7, pk) for pk in range(1, 101)]
    assert 30 < sides.count("raw") < 70
    assert sides != [review.left_method(8, pk) for pk in range(1, 101)]


def test_filters(env):
    store, run, info = env
    q1, q2 = info.question_pks[:2]
    raw1 = info.answer_ids[(q1, "raw")]
    human_grades.record_grade(store, raw1, "alice", GradeChange(grade="wrong"))
    rows = lambda f: review.queue_page(store, run, "alice", f, limit=1000)  # noqa: E731
    assert [r.answer_id for r in rows(Filters(status="graded"))] == [raw1]
    assert raw1 not in [r.answer_id for r in rows(Filters(status="ungraded"))]
    machine = review_item.machine_grade(store, raw1).grade
    assert [r.answer_id for r in rows(Filters(status="disagreeing"))] == ([raw1] if machine != "wrong" else [])
    assert {r.method for r in rows(Filters(method="bundle"))} == {"bundle"}
    assert {r.category for r in rows(Filters(category="explanation"))} == {"explanation"}
    assert all(r.confidence is not None and r.confidence <= 0.6 for r in rows(Filters(max_confidence=0.6)))
    assert {r.machine_grade for r in rows(Filters(judge_grade="wrong"))} == {"wrong"}
    assert review.neighbour(store, run, "alice", Filters(status="graded"), None) == q1
    assert review.neighbour(store, run, "alice", Filters(status="graded"), q1) is None
    assert review.neighbour(store, run, "alice", Filters(), q2, forward=False) == q1
    # another grader's grades are not this grader's
    assert rows(Filters(status="graded")) and not review.queue_page(store, run, "bob", Filters(status="graded"))
    # an unusable judge reply (stored as unsupported, grading_error) is no verdict: it does not disagree
    store._conn.execute("UPDATE auto_grades SET grade = 'unsupported', failure_label = 'grading_error' "
                       "WHERE answer_id = ?", (raw1,))
    assert raw1 not in [r.answer_id for r in rows(Filters(status="disagreeing"))]
    assert raw1 not in [r.answer_id for r in rows(Filters(judge_grade="unsupported"))]


def test_bad_filters_are_user_errors_and_stale_saved_ones_are_dropped():
    with pytest.raises(UserError, match="status"):
        Filters(status="maybe")
    assert Filters.from_dict({"grade": "excellent", "junk": 1}) == Filters()
    assert Filters.from_dict(Filters(method="raw", max_confidence=0.7).to_dict()) == Filters(method="raw",
                                                                                              max_confidence=0.7)


def test_progress_counts_and_agreement(env):
    store, run, info = env
    total = review.count_shown(store, run)
    assert review.progress(store, run, "alice", total).graded == 0
    agreed = 0
    for pk in info.question_pks[:3]:
        for method in ("raw", "bundle"):
            aid = info.answer_ids[(pk, method)]
            machine = review_item.machine_grade(store, aid)
            mine = machine.grade if method == "raw" else ("wrong" if machine.grade != "wrong" else "fully_correct")
            agreed += mine == machine.grade and machine.kind == "judge"
            human_grades.record_grade(store, aid, "alice", GradeChange(grade=mine))
    p = review.progress(store, run, "alice", total)
    # question index 2 has rule grades: agree compares the judge only, and leaves those out; so does the status line
    assert (p.graded, p.total, p.kind, p.compared, p.agreed, p.other) == (6, total, "judge", 4, agreed, 2)
    assert p.compared == agreement_report(store, run.id).pairs
    assert f"agreement with judge {agreed}/4" in p.describe() and "2 beside another kind of grader" in p.describe()


def test_preferences_and_desk_state(env):
    store, run, info = env
    pk = info.question_pks[1]
    human_grades.record_preference(store, run.id, pk, "alice", "bundle", "raw")
    human_grades.record_preference(store, run.id, pk, "alice", "tie", "raw")
    assert review_item.load_item(store, run, "alice", pk).preference == "tie"
    assert review_item.load_item(store, run, "bob", pk).preference is None
    with pytest.raises(UserError):
        human_grades.record_preference(store, run.id, pk, "alice", "left", "raw")
    assert review.load_desk_state(store, "alice", run.id) is None
    review.save_desk_state(store, "alice", run.id, pk, {"filters": Filters(status="ungraded").to_dict()})
    review.save_desk_state(store, "alice", run.id, pk + 1, {"show_judge": True})
    state = review.load_desk_state(store, "alice", run.id)
    assert state.question_pk == pk + 1 and state.settings == {"show_judge": True}
    assert review.load_desk_state(store, "bob", run.id) is None


def test_find_question_by_benchmark_id_or_row(env):
    store, run, info = env
    assert review.find_question(store, run, " q-tokens ") == info.question_pks[1]
    assert review.find_question(store, run, str(info.question_pks[3])) == info.question_pks[3]
    assert review.find_question(store, run, "nope") is None


def test_progress_compares_the_kind_agree_compares_even_when_it_is_someone_elses(env):
    store, run, info = env
    q0, q2 = info.question_pks[0], info.question_pks[2]  # the judge graded question 0, the rule grader question 2
    for method in ("raw", "bundle"):
        human_grades.record_grade(store, info.answer_ids[(q2, method)], "alice", GradeChange(grade="wrong"))
    total = review.count_shown(store, run)
    alone = review.progress(store, run, "alice", total)
    assert (alone.kind, alone.compared, alone.other) == ("rule", 2, 0)
    human_grades.record_grade(store, info.answer_ids[(q0, "raw")], "bob", GradeChange(grade="wrong"))
    beside_bob = review.progress(store, run, "alice", total)  # agree now compares the judge: alice's are left out
    assert (beside_bob.kind, beside_bob.compared, beside_bob.other) == ("judge", 0, 2)
    report = agreement_report(store, run.id)
    assert report.machine.kind == "judge" and report.pairs == 1 and report.people == ["alice", "bob"]
