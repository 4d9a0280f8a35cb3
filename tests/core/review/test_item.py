"""core/review/item.py: one item loaded whole."""

from __future__ import annotations

from gradedesk.core.review import item as review_item


def test_load_item_has_both_answers_with_evidence_and_machine_source(env):
    store, run, info = env
    item = review_item.load_item(store, run, "alice", info.question_pks[2])
    raw, bundle = item.answers["raw"], item.answers["bundle"]
    assert bundle.budget == 2000 and len(bundle.bundle.snippets) == 3
    assert bundle.bundle.coverage_notes and bundle.bundle.snippets[0].evidence_role == "definition"
    assert len(raw.evidence) == 3 and raw.evidence[0].file_path and raw.evidence[0].retrieval_method == "bm25"
    # question index 2 is graded by the rule grader in the fixture: it is named so, never "judge"
    assert raw.machine.kind == "rule" and raw.machine.source == "rule grader (rules/1)"
    item0 = review_item.load_item(store, run, "alice", info.question_pks[0])
    assert item0.answers["raw"].machine.source == "judge (gpt-4o-mini)"
    assert item.at("left").method == item.left_method
