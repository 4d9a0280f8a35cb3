"""core/store/preferences.py: preferences as events (what was on screen, how the question was reached, undo), a store
of schema 8 upgraded to 9 keeping its preferences, and `merge` carrying the new columns."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from gradedesk.core.errors import UserError
from gradedesk.core.exchange.merge import merge_store
from gradedesk.core.grading.human_grades import GradeChange, record_grade, record_preference
from gradedesk.core.review import session
from gradedesk.core.review.item import load_item
from gradedesk.core.review.visibility import Blindness
from gradedesk.core.store import preferences
from gradedesk.core.store.connection import open_store, schema_version


def test_preferences_are_events_undone_newest_first(env):
    store, run, info = env
    pk = info.question_pks[0]
    first = record_preference(store, run.id, pk, "alice", "raw", "raw", selection="sampled",
                              selection_probability=0.25)
    assert (first.judge_visible, first.selection, first.selection_probability) == (0, "sampled", 0.25)
    with pytest.raises(UserError):
        record_preference(store, run.id, pk, "alice", "raw", "raw", selection="sampled")  # no probability
    record_grade(store, info.answer_ids[(pk, "raw")], "alice", GradeChange(grade="wrong"))
    record_preference(store, run.id, pk, "alice", "tie", "raw", judge_visible=True, selection="question_order")
    assert load_item(store, run, "alice", pk).preference == "tie"
    assert [p.preferred for p in preferences.live_preferences(store, run.id)] == ["tie"]
    undone = session.undo(store, run, "alice", Blindness())  # the newest event: the tie, not the grade
    assert undone.what == "preference tie" and undone.answer_id is None
    assert load_item(store, run, "alice", pk).preference == "raw"
    assert [(p.grader, p.preferred, p.left_method, p.budget) for p in preferences.live_preferences(store, run.id)] \
        == [("alice", "raw", "raw", 2000)]  # the run's largest
    assert session.undo(store, run, "alice", Blindness()).what == "wrong"
    assert session.undo(store, run, "alice", Blindness()).what == "preference raw"
    assert load_item(store, run, "alice", pk).preference is None and session.undo(store, run, "alice", Blindness()) \
        is None
    undos = store._query("SELECT * FROM human_preferences WHERE action = 'undo' ORDER BY id")
    # what was on screen as each was taken back: the raw answer's machine grade, seen once graded (undo hides nothing)
    assert [(u["preferred"], u["judge_visible"]) for u in undos] == [("tie", 1), ("raw", 1)]


def make_v8_store(path) -> None:
    """A store as schema 8 left it: human_preferences without the event columns, one preference in it."""
    open_store(path).close()
    conn = sqlite3.connect(path)
    conn.executescript("""
        DROP TABLE human_preferences;
        CREATE TABLE human_preferences (
            id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE,
            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            question_pk INTEGER NOT NULL REFERENCES questions(id), grader TEXT NOT NULL,
            preferred TEXT NOT NULL CHECK (preferred IN ('raw', 'bundle', 'tie')),
            left_method TEXT NOT NULL CHECK (left_method IN ('raw', 'bundle')), created_at TEXT NOT NULL);
        INSERT INTO questions (id, benchmark, question_id, question, category, created_at)
        VALUES (1, 'b', 'q1', 'What opens the store?', 'code_lookup', 't');
        INSERT INTO runs (id, created_at, provider, order_seed) VALUES (1, 't', 'offline-extractive', 7);
        INSERT INTO answers (id, run_id, question_pk, method, status, text, created_at)
        VALUES (1, 1, 1, 'raw', 'ok', 'open_store does', 't');
        INSERT INTO human_preferences (uuid, run_id, question_pk, grader, preferred, left_method, created_at)
        VALUES ('p1', 1, 1, 'alice', 'bundle', 'raw', '2026-01-01T00:00:00+00:00');
        PRAGMA user_version = 8;
    """)
    conn.commit()
    conn.close()


def test_a_version_8_store_keeps_its_preferences_as_set_events(tmp_path):
    db = tmp_path / "old.db"
    make_v8_store(db)
    with open_store(db) as store:
        assert store.schema_version == schema_version() >= 9
        [row] = store._query("SELECT * FROM human_preferences")
        assert (row["action"], row["undoes_uuid"], row["judge_visible"], row["selection"]) == ("set", None, None, None)
        old = preferences.newest_preference(store, 1, "alice", 1)
        assert old is not None and old.preferred == "bundle" and old.judge_visible is None  # not recorded then
        with store.transaction():
            preferences.undo_preference(store, old, judge_visible=False)
        assert preferences.newest_preference(store, 1, "alice") is None


def test_merge_carries_what_a_preference_saw_and_its_undo(env, tmp_path):
    store, run, info = env
    other = tmp_path / "other.db"
    shutil.copy(info.path, other)
    pk = info.question_pks[1]
    with open_store(other) as theirs:
        kept = record_preference(theirs, run.id, pk, "bob", "bundle", "raw", judge_visible=True, selection="jump")
        record_preference(theirs, run.id, pk, "bob", "raw", "raw", selection="sampled", selection_probability=0.5)
        session.undo(theirs, run, "bob", Blindness())
    report = merge_store(store, other)
    assert report.preferences_added == 3
    newest = preferences.newest_preference(store, run.id, "bob", pk)
    assert newest is not None and newest.uuid == kept.uuid
    assert (newest.judge_visible, newest.selection) == (1, "jump")
    [undo] = store._query("SELECT * FROM human_preferences WHERE action = 'undo'")
    [sampled] = store._query("SELECT * FROM human_preferences WHERE selection = 'sampled'")
    assert undo["undoes_uuid"] == sampled["uuid"] and sampled["selection_probability"] == 0.5
