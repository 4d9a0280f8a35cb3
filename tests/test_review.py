"""core/review.py: the desk's data layer on a real fixture store (keyset queue, items, grade events, desk state)."""

from __future__ import annotations

import json

import pytest

from core import review
from core.errors import UserError
from core.review import Filters, GradeChange
from core.store import open_store
from tests.fixtures_store import build_fixture_store


@pytest.fixture
def env(tmp_path):
    info = build_fixture_store(tmp_path / "store.db")
    store = open_store(info.path, create=False)
    run = review.run_info(store, info.run_id)
    yield store, run, info
    store.close()


def _events(store, grader="alice"):
    return store.query("SELECT * FROM human_grades WHERE grader = ? ORDER BY id", (grader,))


def test_run_info_and_shown_answers(env):
    store, run, info = env
    assert run.primary_budget == 2000 and run.order_seed == 7 and run.rubric_version == "rubric-1"
    assert review.count_shown(store, run) == 2 * len(info.question_pks)  # raw + bundle@2000, not bundle@1000


def test_primary_budget_falls_back_to_the_largest_answered(env):
    store, run, info = env
    with store.transaction():
        store.conn.execute("UPDATE runs SET primary_budget = NULL")
    assert review.run_info(store, info.run_id).primary_budget == 2000


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
    review.record_grade(store, raw1, "alice", GradeChange(grade="wrong"))
    rows = lambda f: review.queue_page(store, run, "alice", f, limit=1000)  # noqa: E731
    assert [r.answer_id for r in rows(Filters(status="graded"))] == [raw1]
    assert raw1 not in [r.answer_id for r in rows(Filters(status="ungraded"))]
    machine = review.machine_grade(store, raw1).grade
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


def test_bad_filters_are_user_errors_and_stale_saved_ones_are_dropped():
    with pytest.raises(UserError, match="status"):
        Filters(status="maybe")
    assert Filters.from_dict({"grade": "excellent", "junk": 1}) == Filters()
    assert Filters.from_dict(Filters(method="raw", max_confidence=0.7).to_dict()) == Filters(method="raw",
                                                                                              max_confidence=0.7)


def test_load_item_has_both_answers_with_evidence_and_machine_source(env):
    store, run, info = env
    item = review.load_item(store, run, "alice", info.question_pks[2])
    raw, bundle = item.answers["raw"], item.answers["bundle"]
    assert bundle.budget == 2000 and len(bundle.bundle.snippets) == 3
    assert bundle.bundle.coverage_notes and bundle.bundle.snippets[0].evidence_role == "definition"
    assert len(raw.evidence) == 3 and raw.evidence[0].file_path and raw.evidence[0].retrieval_method == "bm25"
    # question index 2 is graded by the rule grader in the fixture: it is named so, never "judge"
    assert raw.machine.kind == "rule" and raw.machine.source == "rule grader (rules/1)"
    item0 = review.load_item(store, run, "alice", info.question_pks[0])
    assert item0.answers["raw"].machine.source == "judge (gpt-4o-mini)"
    assert item.at("left").method == item.left_method


def test_evidence_of_any_shape_is_shown_robustly():
    snippets, problem = review.parse_evidence(json.dumps([{"path": "a.py", "start": "3", "end": 9, "score": 0.5,
                                                           "content": "x = 1", "custom": [1]}, "plain text"]))
    assert problem is None
    assert (snippets[0].file_path, snippets[0].start_line, snippets[0].relevance_score, snippets[0].text) == \
        ("a.py", 3, 0.5, "x = 1")
    assert snippets[0].extra == {"custom": [1]} and snippets[1].text == "plain text"
    assert review.parse_evidence("{not json")[1].startswith("evidence is not JSON")
    assert review.parse_evidence(json.dumps({"hits": [{"text": "t"}]}))[0][0].text == "t"
    assert review.parse_evidence(None) == ([], None)


def test_grade_events_carry_state_and_revisions(env):
    store, run, info = env
    aid = info.answer_ids[(info.question_pks[0], "raw")]
    with pytest.raises(UserError, match="grade the answer first"):
        review.record_grade(store, aid, "alice", GradeChange(note="x"))
    first = review.record_grade(store, aid, "alice", GradeChange(grade="wrong"), rubric_version="rubric-1")
    assert (first.is_revision, first.judge_visible, first.mode) == (0, 0, "blind")
    labelled = review.record_grade(store, aid, "alice", GradeChange(failure_label="hallucination",
                                                                    scores={"correctness": 2}), judge_visible=True)
    assert labelled.grade == "wrong" and labelled.failure_label == "hallucination" and labelled.correctness == 2
    assert labelled.is_revision == 1  # a change after the judge was revealed
    passed = review.record_grade(store, aid, "alice", GradeChange(grade="fully_correct", note="fine"),
                                 judge_visible=True)
    assert passed.failure_label is None and passed.correctness == 2 and passed.note == "fine"
    assert review.current_grade(store, aid, "alice").uuid == passed.uuid
    with pytest.raises(UserError):
        review.record_grade(store, aid, "alice", GradeChange(scores={"correctness": 9}))
    with pytest.raises(UserError):
        review.record_grade(store, aid, "alice", GradeChange(grade="great"))
    assert len(_events(store)) == 3  # the rejected changes wrote nothing


def test_undo_is_a_new_event_and_restores_the_previous_grade(env):
    store, run, info = env
    aid = info.answer_ids[(info.question_pks[0], "raw")]
    a = review.record_grade(store, aid, "alice", GradeChange(grade="wrong"))
    b = review.record_grade(store, aid, "alice", GradeChange(grade="unsupported"), judge_visible=True)
    assert review.undo_last(store, run.id, "alice").uuid == b.uuid
    assert review.current_grade(store, aid, "alice").uuid == a.uuid
    assert review.undo_last(store, run.id, "alice").uuid == a.uuid
    assert review.current_grade(store, aid, "alice") is None
    assert review.undo_last(store, run.id, "alice") is None
    events = _events(store)
    assert [e["action"] for e in events] == ["set", "set", "undo", "undo"]
    assert events[2]["undoes_uuid"] == b.uuid and events[3]["undoes_uuid"] == a.uuid


def test_recheck_events_do_not_replace_the_grade(env):
    store, run, info = env
    pks = info.question_pks
    for pk in pks[:4]:
        review.record_grade(store, info.answer_ids[(pk, "raw")], "alice", GradeChange(grade="wrong"))
    sample = review.recheck_sample(store, run, "alice", 0.5)
    assert len(sample) == 2 and set(sample) <= set(pks[:4])
    assert sample == review.recheck_sample(store, run, "alice", 0.5)  # seeded
    aid = info.answer_ids[(pks[0], "raw")]
    again = review.record_grade(store, aid, "alice", GradeChange(grade="fully_correct"), mode="recheck")
    assert again.mode == "recheck" and again.is_revision == 0
    assert review.current_grade(store, aid, "alice").grade == "wrong"
    assert review.current_grade(store, aid, "alice", recheck=True).grade == "fully_correct"
    assert review.recheck_sample(store, run, "bob", 0.5) == []
    with pytest.raises(UserError):
        review.recheck_sample(store, run, "alice", 1.5)


def test_progress_counts_and_agreement(env):
    store, run, info = env
    total = review.count_shown(store, run)
    assert review.progress(store, run, "alice", total).graded == 0
    agreed = 0
    for pk in info.question_pks[:3]:
        for method in ("raw", "bundle"):
            aid = info.answer_ids[(pk, method)]
            machine = review.machine_grade(store, aid).grade
            mine = machine if method == "raw" else ("wrong" if machine != "wrong" else "fully_correct")
            agreed += mine == machine
            review.record_grade(store, aid, "alice", GradeChange(grade=mine))
    p = review.progress(store, run, "alice", total)
    assert (p.graded, p.total, p.compared, p.agreed) == (6, total, 6, agreed)
    assert p.judge_compared == 4  # question index 2 has rule grades
    assert "judge (4) and rule/imported graders (2)" in p.describe() and f"{agreed}/6" in p.describe()


def test_preferences_and_desk_state(env):
    store, run, info = env
    pk = info.question_pks[1]
    review.record_preference(store, run.id, pk, "alice", "bundle", "raw")
    review.record_preference(store, run.id, pk, "alice", "tie", "raw")
    assert review.load_item(store, run, "alice", pk).preference == "tie"
    assert review.load_item(store, run, "bob", pk).preference is None
    with pytest.raises(UserError):
        review.record_preference(store, run.id, pk, "alice", "left", "raw")
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


def test_default_grader_prefers_the_environment(monkeypatch):
    monkeypatch.setenv("GRADEDESK_GRADER", "carol")
    assert review.default_grader() == "carol"
    monkeypatch.delenv("GRADEDESK_GRADER")
    assert review.default_grader()
