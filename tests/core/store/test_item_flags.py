"""core/store/flags.py: flags on items as append-only events (set, undo), the current flag, what `agree`'s readers leave
out; and an older store (schema 8, 9 or 10) upgraded to hold them."""

from __future__ import annotations

import sqlite3

import pytest

from gradedesk.core.errors import UserError
from gradedesk.core.review.flags import flag_item, unflag_item
from gradedesk.core.store.connection import open_store, schema_version
from gradedesk.core.store.flags import current_flag, flag_listing, flagged_questions, person_flags
from tests.fixtures.grading import add_question, add_raw_answer, add_run
from tests.fixtures.old_stores import without_item_flags


@pytest.mark.parametrize("old_version", [8, 9, 10])
def test_an_older_store_gets_item_flags_and_keeps_its_rows(tmp_path, old_version):
    db = tmp_path / "old.db"
    with open_store(db) as store:
        run = add_run(store)
        qpk = add_question(store, "q1", "What opens the store?", "open_store")
        add_raw_answer(store, run, qpk, "open_store does", [])
    conn = sqlite3.connect(db)
    without_item_flags(conn)
    conn.execute(f"PRAGMA user_version = {old_version}")
    conn.commit()
    conn.close()
    with open_store(db) as store:
        assert store.schema_version == schema_version() >= 11
        assert store._scalar("SELECT count(*) FROM answers") == 1
        flag_item(store, run, qpk, "alice", "bad_gold", None, judge_visible=False)
        assert flagged_questions(store, run) == {qpk}


def test_flags_are_events_and_unflag_takes_back_every_live_flag(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        run = add_run(store)
        q1, q2 = (add_question(store, f"q{i}", f"question {i}?", "gold") for i in (1, 2))
        first = flag_item(store, run, q1, "alice", "ambiguous", "  ", judge_visible=True)
        assert (first.reason, first.note, first.judge_visible) == ("ambiguous", None, 1)  # a blank note is none
        second = flag_item(store, run, q1, "alice", "other", "two answers fit", judge_visible=False)  # a merged copy
        flag_item(store, run, q1, "bob", "bad_gold", None, judge_visible=False)
        assert current_flag(store, run, q1, "alice") == second
        assert person_flags(store, run, "alice", [q1, q2]) == {q1: "other"}
        assert unflag_item(store, run, q1, "alice", judge_visible=True) == second
        assert current_flag(store, run, q1, "alice") is None  # the older live flag was taken back too
        assert unflag_item(store, run, q1, "alice", judge_visible=True) is None
        assert flagged_questions(store, run) == {q1}  # bob's stands
        assert [(f.question_id, f.flag.grader) for f in flag_listing(store, run)] == [("q1", "bob")]
        events = store._query("SELECT action, undoes_uuid, reason FROM item_flags WHERE grader = 'alice' ORDER BY id")
        assert events == [{"action": "set", "undoes_uuid": None, "reason": "ambiguous"},
                          {"action": "set", "undoes_uuid": None, "reason": "other"},
                          {"action": "undo", "undoes_uuid": second.uuid, "reason": "other"},
                          {"action": "undo", "undoes_uuid": first.uuid, "reason": "ambiguous"}]


def test_a_flag_needs_a_known_reason_and_other_a_note(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        run = add_run(store)
        qpk = add_question(store, "q1", "question?", "gold")
        with pytest.raises(UserError, match="not one of bad_gold, ambiguous, other"):
            flag_item(store, run, qpk, "alice", "typo", None, judge_visible=False)
        with pytest.raises(UserError, match="say why in the note"):
            flag_item(store, run, qpk, "alice", "other", "", judge_visible=False)
        assert store._scalar("SELECT count(*) FROM item_flags") == 0
