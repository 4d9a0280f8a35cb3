"""A person's marks on claims: append-only events with undo on a real store, and the faithfulness and citation
precision they add up to."""

from __future__ import annotations

import pytest

from gradedesk.core.errors import UserError
from gradedesk.core.grading.claim_marks import ClaimFigures, figures, live_marks, record_mark
from gradedesk.core.store.grades import current_marks, undo_last_mark
from gradedesk.core.grading.claim_store import claims_of, save_claims
from gradedesk.core.grading.claims import split_claims
from gradedesk.core.store.connection import open_store
from tests.fixtures.grading import add_bundle_answer, add_question, add_run, hit

CART = "def apply_discount(amount):\n    return amount * 0.9 if amount >= 100 else amount"
ANSWER = ("From the evidence:\n"
          "- apply_discount takes ten percent off orders of 100 or more [Evidence 1].\n"
          "- Cart.total applies it [Evidence 1].\n"
          "- It is logged by audit_discount [Evidence 4].\n"
          "- Prices are cached.")


@pytest.fixture
def answer(tmp_path):
    store = open_store(tmp_path / "s.db")
    q = add_question(store, "q1", "How is the discount applied?", "apply_discount, from Cart.total")
    aid = add_bundle_answer(store, add_run(store), q, ANSWER, [hit("shop/cart.py", "apply_discount", CART, "c1")])
    row = store._query("SELECT * FROM answers WHERE id = ?", (aid,))[0]
    yield store, aid, claims_of(store, row).claims
    store.close()


def test_marks_are_events_and_undo_takes_back_the_newest(answer):
    store, aid, claims = answer
    lead, discount, total, logged, cached = claims
    record_mark(store, aid, "alice", lead, "not_claim")
    record_mark(store, aid, "alice", discount, "unsupported")
    record_mark(store, aid, "alice", discount, "supported", scorers_visible=True)  # changed her mind
    record_mark(store, aid, "bob", discount, "unsupported")
    marks = current_marks(store, aid, "alice")
    assert {i: m.mark for i, m in marks.items()} == {1: "not_claim", 2: "supported"}
    assert marks[2].scorers_visible == 1 and marks[2].claim_text == discount.text
    undone = undo_last_mark(store, aid, "alice")
    assert (undone.claim_index, undone.mark) == (2, "supported")
    assert current_marks(store, aid, "alice")[2].mark == "unsupported"  # the mark before shows again
    assert undo_last_mark(store, aid, "alice").mark == "unsupported"
    assert undo_last_mark(store, aid, "alice").mark == "not_claim"
    assert undo_last_mark(store, aid, "alice") is None
    assert current_marks(store, aid, "bob")[2].mark == "unsupported"  # another person's marks are their own
    rows = store._query("SELECT action, mark FROM claim_marks WHERE grader = 'alice' ORDER BY id")
    assert [r["action"] for r in rows] == ["set"] * 3 + ["undo"] * 3  # nothing deleted


def test_marks_that_do_not_fit_the_claim_are_refused(answer):
    store, aid, claims = answer
    lead, discount, total, logged, cached = claims
    with pytest.raises(UserError, match="cites nothing, so it cannot be miscited"):
        record_mark(store, aid, "alice", cached, "miscited")
    with pytest.raises(UserError, match="cites only what is not in the evidence"):
        record_mark(store, aid, "alice", logged, "supported")
    with pytest.raises(UserError, match="is not one of"):
        record_mark(store, aid, "alice", lead, "maybe")
    save_claims(store, aid, split_claims("Something else entirely.", []))  # the claims were recomputed
    with pytest.raises(UserError, match="no longer makes claim 2 as shown"):
        record_mark(store, aid, "alice", discount, "supported")
    assert store._scalar("SELECT count(*) FROM claim_marks") == 0


def test_figures_faithfulness_and_citation_precision(answer):
    store, aid, claims = answer
    lead, discount, total, logged, cached = claims
    for claim, mark in ((lead, "not_claim"), (discount, "supported"), (total, "miscited"), (logged, "unsupported"),
                        (cached, "supported")):
        record_mark(store, aid, "alice", claim, mark)
    f = figures(claims, live_marks(claims, current_marks(store, aid, "alice")))
    assert f == ClaimFigures(claims=5, marked=5, supported=2, miscited=1, unsupported=1, not_claims=1,
                             cited_factual=3, supported_by_citation=1)
    assert f.complete and f.faithfulness == 3 / 4 and f.citation_precision == 1 / 3
    partial = figures(claims, {2: "supported"})
    assert not partial.complete and partial.faithfulness == 1.0
    assert figures([], {}).complete and figures([], {}).why_undefined() == "the answer makes no claims"
    assert figures(claims[:1], {1: "not_claim"}).faithfulness is None


def test_a_mark_lapses_when_its_claim_changes(answer):
    store, aid, claims = answer
    record_mark(store, aid, "alice", claims[1], "supported")
    changed = split_claims(ANSWER.replace("ten percent", "twenty percent"), [])
    assert live_marks(changed, current_marks(store, aid, "alice")) == {}
    assert live_marks(claims, current_marks(store, aid, "alice")) == {2: "supported"}
