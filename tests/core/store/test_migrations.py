"""A store made by schema version 6 is upgraded to 7 in place: new columns, the gold-version trigger, old grades
stamped with their current gold."""

from __future__ import annotations

import sqlite3

from gradedesk.core.store.connection import open_store, schema_version
from gradedesk.core.store.gold import gold_hash, stale_grade_counts
from tests.fixtures.old_stores import without_version_7



def make_v6_store(path) -> None:
    """A store as gradedesk with schema 6 left it (today's schema less what version 7 added): one run, one answered
    question with a rule grade."""
    open_store(path).close()
    conn = sqlite3.connect(path)
    without_version_7(conn)
    conn.executescript("""
        INSERT INTO questions (id, benchmark, question_id, question, category, gold_answer, expected_files, created_at)
        VALUES (1, 'b', 'q1', 'What opens the store?', 'code_lookup', 'open_store', '["core/store.py"]', 't');
        INSERT INTO runs (id, created_at, provider, order_seed) VALUES (1, 't', 'offline-extractive', 7);
        INSERT INTO answers (id, run_id, question_pk, method, status, text, created_at)
        VALUES (1, 1, 1, 'raw', 'ok', 'open_store does', 't');
        INSERT INTO auto_grades (answer_id, grader_kind, grader_model, grade, created_at)
        VALUES (1, 'rule', 'rules/1', 'fully_correct', 't');
        PRAGMA user_version = 6;
    """)
    conn.commit()
    conn.close()


def test_a_version_6_store_is_upgraded_and_keeps_its_rows(tmp_path):
    db = tmp_path / "old.db"
    make_v6_store(db)
    with open_store(db) as store:
        assert store.schema_version == schema_version() >= 7
        answer = store._query("SELECT * FROM answers")[0]
        assert answer["text"] == "open_store does" and answer["finish_reason"] is None and answer["reasoning"] is None
        grade = store._query("SELECT * FROM auto_grades")[0]
        # an old grade cannot say what gold it was made against: it is taken as made against the current one
        assert grade["gold_hash"] == gold_hash("open_store", '["core/store.py"]', None)
        assert stale_grade_counts(store, 1) == {}
    with open_store(db) as store:  # opening again changes nothing
        assert store.schema_version == schema_version() and store._scalar("SELECT count(*) FROM auto_grades") == 1


def test_a_corrected_gold_makes_the_grades_made_against_the_old_one_stale(tmp_path):
    db = tmp_path / "old.db"
    make_v6_store(db)
    with open_store(db) as store:
        with store.transaction():
            store._conn.execute("UPDATE questions SET gold_answer = 'open_store in core/store.py' WHERE id = 1")
        assert stale_grade_counts(store, 1) == {"rule": 1}
        with store.transaction():  # a new grade is stamped with the gold as it is now
            store._conn.execute("INSERT INTO auto_grades (answer_id, grader_kind, grader_model, grade, created_at) "
                               "VALUES (1, 'judge', 'j', 'wrong', 't')")
        assert stale_grade_counts(store, 1) == {"rule": 1}
        with store.transaction():  # labels are part of the gold too
            store._conn.execute("UPDATE questions SET expected_symbols = '[\"open_store\"]' WHERE id = 1")
        assert stale_grade_counts(store, 1) == {"rule": 1, "judge": 1}
