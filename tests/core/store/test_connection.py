"""The store on real temporary SQLite files."""

from __future__ import annotations

import sqlite3
import threading
import uuid

import pytest

from gradedesk.core.store import connection
from gradedesk.core.store.connection import StoreError, open_store, schema_sql, schema_version


def test_creates_schema_records_version_and_uses_wal(tmp_path):
    path = tmp_path / "store.db"
    with open_store(path) as store:
        assert store.schema_version == schema_version()
        assert store._scalar("PRAGMA journal_mode") == "wal"
        assert store._scalar("PRAGMA foreign_keys") == 1
        tables = set(store._db.table_names())
    assert {"repos", "chunks", "questions", "runs", "answers", "bundles", "bundle_snippets", "auto_grades",
            "human_grades", "rubrics", "prompts"} <= tables
    with open_store(path) as store:  # reopening is idempotent
        assert store.schema_version == schema_version()


def test_a_store_from_before_grades_named_their_machine_grader_is_upgraded_and_keeps_its_grades(tmp_path):
    """Migration 6 adds human_grades.machine_kind/_model/_rubric: opening a version 5 store adds them, rows stay."""
    path = tmp_path / "old.db"
    open_store(path).close()
    conn = sqlite3.connect(path)  # make it as the version before made it: without the three columns, with a grade
    conn.execute("INSERT INTO human_grades (uuid, answer_id, grader, action, grade, created_at) "
                 "VALUES ('u1', 1, 'alice', 'set', 'wrong', 'now')")
    for column in ("machine_kind", "machine_model", "machine_rubric"):
        conn.execute(f"ALTER TABLE human_grades DROP COLUMN {column}")
    conn.execute("PRAGMA user_version = 5")
    conn.commit()
    conn.close()
    with open_store(path, create=False) as store:
        assert store.schema_version == schema_version()
        columns = {r["name"] for r in store._query("PRAGMA table_info(human_grades)")}
        assert {"machine_kind", "machine_model", "machine_rubric"} <= columns
        assert store._query("SELECT grade, machine_kind FROM current_human_grades") == \
            [{"grade": "wrong", "machine_kind": None}]


def test_no_connection_at_import_time():
    import gradedesk.core.store.connection as mod

    assert not any(isinstance(v, sqlite3.Connection) for v in vars(mod).values())


def test_refuses_newer_store(tmp_path):
    path = tmp_path / "new.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {schema_version() + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer gradedesk"):
        open_store(path)


def test_refuses_foreign_sqlite_file_and_garbage(tmp_path):
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    with pytest.raises(StoreError, match="not a gradedesk store"):
        open_store(other)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="not a gradedesk store"):
        open_store(junk)


def test_missing_store_without_create(tmp_path):
    with pytest.raises(StoreError, match="no such store"):
        open_store(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()


def _run(store) -> int:
    return store._db["runs"].insert({"created_at": "2026-01-01T00:00:00+00:00", "provider": "offline-extractive",
                                    "order_seed": 7}).last_pk


def test_transaction_rolls_back_whole_logical_write(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        with pytest.raises(RuntimeError):
            with store.transaction():
                _run(store)
                _run(store)
                raise RuntimeError("boom")
        assert store._scalar("SELECT count(*) FROM runs") == 0
        with store.transaction():
            with store.transaction():  # nested joins the outer
                _run(store)
        assert store._scalar("SELECT count(*) FROM runs") == 1


def test_foreign_keys_enforced(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        with pytest.raises(sqlite3.IntegrityError):
            with store.transaction():
                store._db["answers"].insert({"run_id": 999, "question_pk": 1, "method": "raw",
                                            "created_at": "2026-01-01T00:00:00+00:00"})


def _answer(store) -> int:
    with store.transaction():
        run = _run(store)
        q = store._db["questions"].insert({"benchmark": "b", "question_id": "q1", "question": "?", "category": "c",
                                          "created_at": "t"}).last_pk
        return store._db["answers"].insert({"run_id": run, "question_pk": q, "method": "raw",
                                           "created_at": "t"}).last_pk


def _event(store, answer_id, grade=None, action="set", undoes=None) -> str:
    u = str(uuid.uuid4())
    with store.transaction():
        store._db["human_grades"].insert({"uuid": u, "answer_id": answer_id, "grader": "ana", "action": action,
                                         "undoes_uuid": undoes, "grade": grade, "created_at": "t"})
    return u


def test_current_human_grade_is_derived_from_events_with_undo(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        a = _answer(store)
        _event(store, a, "wrong")
        second = _event(store, a, "fully_correct")
        current = lambda: [r["grade"] for r in store._query("SELECT grade FROM current_human_grades")]  # noqa: E731
        assert current() == ["fully_correct"]
        _event(store, a, action="undo", undoes=second)
        assert current() == ["wrong"]
        assert store._scalar("SELECT count(*) FROM human_grades") == 3  # nothing deleted


def test_machine_grades_prefers_judge_over_rule(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        a = _answer(store)
        with store.transaction():
            store._db["auto_grades"].insert({"answer_id": a, "grader_kind": "rule", "grader_model": "rules/1",
                                            "grade": "wrong", "created_at": "t"})
        assert store._query("SELECT grader_kind FROM machine_grades")[0]["grader_kind"] == "rule"
        with store.transaction():
            store._db["auto_grades"].insert({"answer_id": a, "grader_kind": "judge", "grader_model": "m",
                                            "grade": "fully_correct", "created_at": "t"})
        rows = store._query("SELECT grader_kind, grade FROM machine_grades")
        assert rows == [{"grader_kind": "judge", "grade": "fully_correct"}]


def test_two_connections_write_concurrently_with_busy_timeout(tmp_path):
    path = tmp_path / "s.db"
    open_store(path).close()
    errors: list[BaseException] = []

    def writer():
        try:
            with open_store(path) as store:
                for _ in range(50):
                    with store.transaction():
                        _run(store)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with open_store(path) as store:
        assert store._scalar("SELECT count(*) FROM runs") == 100


def test_schema_file_is_the_only_ddl():
    assert "CREATE TABLE IF NOT EXISTS answers" in schema_sql()


V1 = """CREATE TABLE IF NOT EXISTS answers (id INTEGER PRIMARY KEY, text TEXT);
CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY);
"""
V3 = """CREATE TABLE IF NOT EXISTS answers (id INTEGER PRIMARY KEY, text TEXT, finish_reason TEXT, tokens INTEGER);
CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY);
CREATE INDEX IF NOT EXISTS answers_finish ON answers (finish_reason);
-- migrate to 2
ALTER TABLE answers ADD COLUMN finish_reason TEXT;
UPDATE answers SET finish_reason = 'unknown';
-- migrate to 3
ALTER TABLE answers ADD COLUMN tokens INTEGER;
"""


@pytest.fixture
def use_schema(monkeypatch):
    """Open stores with this schema text instead of the real one (the real one is back after the test)."""
    def use(text):
        monkeypatch.setattr(connection, "schema_sql", lambda: text)
        connection.schema_parts.cache_clear()
    yield use
    connection.schema_parts.cache_clear()


def test_an_older_store_is_upgraded_by_the_schema_files_migrate_sections(tmp_path, use_schema):
    path = tmp_path / "old.db"
    use_schema(V1)
    with open_store(path) as store:
        store._conn.execute("INSERT INTO answers (text) VALUES ('kept')")
        assert store.schema_version == 1
    use_schema(V3)
    with open_store(path) as store:
        assert store.schema_version == 3
        assert store._query("SELECT text, finish_reason, tokens FROM answers") == [
            {"text": "kept", "finish_reason": "unknown", "tokens": None}]
    fresh = tmp_path / "fresh.db"
    with open_store(fresh) as store:  # a new store runs the CREATE statements only
        assert store.schema_version == 3 and store._query("SELECT * FROM answers") == []


def test_an_added_column_that_is_already_there_is_not_added_again(tmp_path, use_schema):
    path = tmp_path / "old.db"
    use_schema(V1)
    open_store(path).close()
    use_schema(V1 + "-- migrate to 2\nALTER TABLE answers ADD COLUMN text TEXT;\n")
    with open_store(path) as store:
        assert store.schema_version == 2


def test_a_failed_upgrade_leaves_the_store_as_it_was(tmp_path, use_schema):
    path = tmp_path / "old.db"
    use_schema(V1)
    open_store(path).close()
    use_schema(V1 + "-- migrate to 2\nALTER TABLE answers ADD COLUMN more TEXT;\nALTER TABLE nowhere ADD x;\n")
    with pytest.raises(sqlite3.OperationalError):
        open_store(path)
    use_schema(V1)
    with open_store(path) as store:
        assert store.schema_version == 1


def test_migrate_sections_must_be_numbered_in_order(use_schema):
    use_schema(V1 + "-- migrate to 3\nSELECT 1;\n")
    with pytest.raises(StoreError, match="migrate sections must number 2, 3"):
        schema_version()


SLOW_READ = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000000) SELECT count(*) FROM c"


def test_a_preemptible_read_stops_when_preempted_and_the_connection_goes_on(tmp_path):
    """The desk's store thread stops a read done ahead of its key when a key's job arrives (tui/db.py)."""
    with open_store(tmp_path / "store.db") as store:
        timer = threading.Timer(0.05, store.preempt)  # from another thread, as the desk's UI thread does
        timer.start()
        with pytest.raises(connection.Preempted):
            with store.preemptible():
                store._scalar(SLOW_READ)
        timer.join()
        assert store._scalar("SELECT 41 + 1") == 42  # the connection works on, and is preemptible no longer
        store.preempt()  # outside preemptible(): nothing to stop, the next read runs whole
        assert store._scalar("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) "
                              "SELECT count(*) FROM c") == 100000
        with store.preemptible():  # a read nobody preempts runs whole
            assert store._scalar("SELECT count(*) FROM questions") == 0
