"""core/priority.py: the next most useful items for the desk."""

from __future__ import annotations

from tests.fixtures.agreement import add_auto, add_human
from gradedesk.core.agreement.priority import most_useful_order
from gradedesk.core.store.connection import open_store
from tests.fixtures.grading import add_bundle_answer, add_question, add_raw_answer, add_run

SNIPPET = {"chunk_id": "c", "text": "t", "file_path": "m.py", "start_line": 1, "end_line": 1, "symbol_name": None}


def test_fewest_in_column_then_least_confident(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        run = add_run(store, primary_budget=2000)
        ids = {}
        plan = [("q1", "fully_correct", 0.9), ("q2", "fully_correct", 0.2), ("q3", "wrong", 0.95),
                ("q4", "wrong", None), ("q5", "fully_correct", 0.5)]
        for qid, grade, conf in plan:
            qpk = add_question(store, qid, "q?", "g")
            ids[qid] = add_raw_answer(store, run, qpk, "t", [])
            add_auto(store, ids[qid], grade, confidence=conf)
        small = add_bundle_answer(store, run, qpk, "t", [SNIPPET], budget=1000)  # not shown in the desk
        add_auto(store, small, "wrong", confidence=0.0)
        ungraded_by_machine = add_raw_answer(store, run, add_question(store, "q6", "q?", "g"), "t", [])
        # two fully_correct judgements already have a person's grade: the 'wrong' column is emptier
        add_human(store, ids["q1"], "bob", "fully_correct")
        add_human(store, ids["q5"], "alice", "fully_correct")
        order = most_useful_order(store, run, "alice", limit=10)
        assert order == [ids["q4"], ids["q3"], ids["q2"], ids["q1"]]
        assert ungraded_by_machine not in order and small not in order
        assert most_useful_order(store, run, "alice", limit=2) == [ids["q4"], ids["q3"]]
        assert most_useful_order(store, run, "bob", limit=10)[:2] == [ids["q4"], ids["q3"]]
