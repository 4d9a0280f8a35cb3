"""core/exchange/merge.py: two copies of one store graded by two people, merged idempotently; what cannot be matched is named."""

from __future__ import annotations

import shutil
import sqlite3
import uuid

import pytest

from tests.fixtures.agreement import add_auto, add_human, build_sampling_run, grade_sampled, sampled_and_team_stores
from gradedesk.core.agreement.report import Settings, agreement_report
from gradedesk.core.errors import UserError
from gradedesk.core.exchange.merge import DIFFERENT_TEXT, UNMATCHED_ANSWER, UNMATCHED_QUESTION, UNMATCHED_RUN, merge_store
from gradedesk.core.store.connection import open_store, utc_now
from tests.fixtures.grading import add_question, add_raw_answer, add_run


def _preference(store, run_id, qpk, grader, preferred="raw") -> str:
    uid = str(uuid.uuid4())
    with store.transaction():
        store._db["human_preferences"].insert({"uuid": uid, "run_id": run_id, "question_pk": qpk, "grader": grader,
                                              "preferred": preferred, "left_method": "raw", "created_at": utc_now()})
    return uid


@pytest.fixture
def copies(tmp_path):
    """store a.db with one run of 4 answers (judge-graded), copied to b.db; returns (a, b, run, answers, questions)."""
    a_path, b_path = tmp_path / "a.db", tmp_path / "b.db"
    with open_store(a_path) as store:
        run = add_run(store)
        qpks = [add_question(store, f"q{i}", f"question {i}?", "gold") for i in range(4)]
        answers = [add_raw_answer(store, run, q, f"answer {i}", []) for i, q in enumerate(qpks)]
        for a in answers:
            add_auto(store, a, "fully_correct")
    shutil.copy(a_path, b_path)
    return a_path, b_path, run, answers, qpks


def test_merge_copies_is_idempotent(copies):
    a_path, b_path, run, answers, qpks = copies
    with open_store(a_path) as a:
        for ans in answers:
            add_human(a, ans, "alice", "fully_correct")
    with open_store(b_path) as b:
        for ans in answers[:3]:
            add_human(b, ans, "bob", "wrong")
        undone = add_human(b, answers[3], "bob", "wrong")
        add_human(b, answers[3], "bob", None, action="undo", undoes=undone)
        _preference(b, run, qpks[0], "bob")
    with open_store(a_path) as a:
        first = merge_store(a, b_path)
        assert (first.grades_added, first.grades_already_here, first.preferences_added) == (5, 0, 1)
        assert first.graders == ["bob"] and first.unmatched_grades == {}
        second = merge_store(a, b_path)
        assert (second.grades_added, second.grades_already_here, second.preferences_already_here) == (0, 5, 1)
        assert merge_store(a, a_path).grades_added == 0  # a store merged into itself adds nothing
        current = a._query("SELECT grader, count(*) AS n FROM current_human_grades GROUP BY grader ORDER BY grader")
        assert current == [{"grader": "alice", "n": 4}, {"grader": "bob", "n": 3}]  # bob's undo came along
        assert a._scalar("SELECT count(*) FROM human_preferences") == 1
        report = agreement_report(a, run, Settings(boot=100))
    assert report["people"] == ["alice", "bob"]
    assert report["krippendorff_alpha"]["n"] == 3


def test_unmatched_reasons(copies):
    a_path, b_path, run, answers, qpks = copies
    with open_store(b_path) as b:
        add_human(b, answers[0], "bob", "wrong")
        b._conn.execute("UPDATE answers SET text = 'another answer' WHERE id = ?", (answers[1],))
        add_human(b, answers[1], "bob", "wrong")
        extra_q = add_question(b, "q-new", "only in b?", "gold")
        extra_answer = add_raw_answer(b, run, extra_q, "new", [])
        add_human(b, extra_answer, "bob", "wrong")
        _preference(b, run, extra_q, "bob")
        other_run = add_run(b, model="another-model")
        stray = add_raw_answer(b, other_run, qpks[0], "x", [])
        add_human(b, stray, "bob", "wrong")
        _preference(b, other_run, qpks[0], "bob")
    with open_store(a_path) as a:
        report = merge_store(a, b_path, dry_run=True)
        assert report.grades_added == 1
        assert report.unmatched_grades == {DIFFERENT_TEXT: 1, UNMATCHED_ANSWER: 1, UNMATCHED_RUN: 1}
        assert report.unmatched_preferences == {UNMATCHED_QUESTION: 1, UNMATCHED_RUN: 1}
        assert a._scalar("SELECT count(*) FROM human_grades") == 0  # dry run wrote nothing
        merge_store(a, b_path)
        assert a._scalar("SELECT count(*) FROM human_grades") == 1


def test_merge_refuses_what_is_not_a_store(tmp_path, copies):
    a_path = copies[0]
    foreign = tmp_path / "foreign.db"
    sqlite3.connect(foreign).execute("CREATE TABLE t (x)").connection.commit()
    (tmp_path / "text.db").write_text("not sqlite at all " * 100)
    with open_store(a_path) as a:
        with pytest.raises(UserError, match="no such store"):
            merge_store(a, tmp_path / "missing.db")
        with pytest.raises(UserError, match="not a gradedesk store"):
            merge_store(a, foreign)
        with pytest.raises(UserError, match="not a gradedesk store"):
            merge_store(a, tmp_path / "text.db")


def test_other_path_with_uri_characters(copies, tmp_path):
    a_path, b_path, _run, answers, _ = copies
    with open_store(b_path) as b:
        add_human(b, answers[0], "bob", "wrong")
    odd = tmp_path / "copy #1?mode=rw%20.db"
    shutil.copy(b_path, odd)
    with open_store(a_path) as a:
        assert merge_store(a, odd).grades_added == 1


def test_claim_marks_merge_with_their_undo_events_and_only_onto_the_same_answer_text(copies):
    from gradedesk.core.grading.claim_marks import record_mark
    from gradedesk.core.store.grades import current_marks, undo_last_mark
    from gradedesk.core.grading.claim_store import claims_of

    a_path, b_path, run, answers, qpks = copies
    with open_store(b_path) as b:  # bob marks the claims of two answers in his copy; one answer differs here
        for ans in answers[:2]:
            [claim] = claims_of(b, b._query("SELECT * FROM answers WHERE id = ?", (ans,))[0]).claims
            record_mark(b, ans, "bob", claim, "unsupported")
            record_mark(b, ans, "bob", claim, "not_claim")
        undo_last_mark(b, answers[0], "bob")
    with open_store(a_path) as a:
        a._conn.execute("UPDATE answers SET text = 'answered otherwise' WHERE id = ?", (answers[1],))
        report = merge_store(a, b_path)
        assert (report.claim_marks_added, report.claim_marks_already_here) == (3, 0)
        assert report.unmatched_claim_marks == {DIFFERENT_TEXT: 2} and report.graders == ["bob"]
        assert {m.mark for m in current_marks(a, answers[0], "bob").values()} == {"unsupported"}  # undo came along
        assert merge_store(a, b_path).claim_marks_added == 0


def _draws(store, grader):
    """A person's sampler draws with their run and question named by what they are, not by id."""
    return store._query(
        "SELECT r.model, q.benchmark, q.question_id, d.draw_index, d.probability, d.population, d.uuid "
        "FROM sample_draws d JOIN runs r ON r.id = d.run_id JOIN questions q ON q.id = d.question_pk "
        "WHERE d.grader = ? ORDER BY d.draw_index", (grader,))


def test_sampler_draws_merge_onto_this_stores_ids_once(tmp_path):
    from gradedesk.core.exchange.merge import DRAW_TAKEN

    carol_path, team_path = sampled_and_team_stores(tmp_path)
    with open_store(carol_path) as carol:
        theirs = _draws(carol, "carol")
        graded = carol._scalar("SELECT count(DISTINCT a.question_pk) FROM current_human_grades h "
                              "JOIN answers a ON a.id = h.answer_id")
    assert len(theirs) > graded == 8  # some questions came up again: those draws count again
    with open_store(team_path) as team:
        first = merge_store(team, carol_path)
        assert (first.draws_added, first.draws_already_here, first.unmatched_draws) == (len(theirs), 0, {})
        assert first.graders == ["carol"]
        assert _draws(team, "carol") == theirs
        # ids differ between the stores: the draws point at this store's run and questions
        assert team._scalar("SELECT count(*) FROM sample_draws d JOIN answers a ON a.question_pk = d.question_pk "
                           "AND a.run_id = d.run_id AND a.method = 'raw' JOIN runs r ON r.id = d.run_id "
                           "WHERE r.model = 'answer-model'") == len(theirs)
        assert team._scalar("SELECT min(run_id) FROM sample_draws") == 2
        second = merge_store(team, carol_path)
        assert (second.draws_added, second.draws_already_here) == (0, len(theirs))
        assert team._scalar("SELECT count(*) FROM sample_draws") == len(theirs)
    # carol drew in another copy too: her draw 0 there is kept, the other copy's draw 0 is left out and named
    with open_store(tmp_path / "other.db") as other:
        run, answers = build_sampling_run(other)
        grade_sampled(other, run, answers, "carol", 1)
        report = merge_store(other, carol_path, dry_run=True)
        assert report.unmatched_draws == {DRAW_TAKEN: 1} and report.draws_added == len(theirs) - 1
        assert other._scalar("SELECT count(*) FROM sample_draws") == 1  # dry run wrote nothing
