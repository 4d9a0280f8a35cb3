"""The store on real temporary SQLite files."""

from __future__ import annotations

import sqlite3
import threading
import uuid

import pytest

from gradedesk.core.store.connection import SCHEMA_VERSION, StoreError, open_store, schema_sql


def test_creates_schema_records_version_and_uses_wal(tmp_path):
    path = tmp_path / "store.db"
    with open_store(path) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert store.scalar("PRAGMA journal_mode") == "wal"
        assert store.scalar("PRAGMA foreign_keys") == 1
        tables = set(store.db.table_names())
    assert {"repos", "chunks", "questions", "runs", "answers", "bundles", "bundle_snippets", "auto_grades",
            "human_grades", "rubrics", "prompts"} <= tables
    with open_store(path) as store:  # reopening is idempotent
        assert store.schema_version == SCHEMA_VERSION


def test_no_connection_at_import_time():
    import gradedesk.core.store.connection as mod

    assert not any(isinstance(v, sqlite3.Connection) for v in vars(mod).values())


def test_refuses_newer_store(tmp_path):
    path = tmp_path / "new.db"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
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
    return store.db["runs"].insert({"created_at": "2026-01-01T00:00:00+00:00", "provider": "offline-extractive",
                                    "order_seed": 7}).last_pk


def test_transaction_rolls_back_whole_logical_write(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        with pytest.raises(RuntimeError):
            with store.transaction():
                _run(store)
                _run(store)
                raise RuntimeError("boom")
        assert store.scalar("SELECT count(*) FROM runs") == 0
        with store.transaction():
            with store.transaction():  # nested joins the outer
                _run(store)
        assert store.scalar("SELECT count(*) FROM runs") == 1


def test_foreign_keys_enforced(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        with pytest.raises(sqlite3.IntegrityError):
            with store.transaction():
                store.db["answers"].insert({"run_id": 999, "question_pk": 1, "method": "raw",
                                            "created_at": "2026-01-01T00:00:00+00:00"})


def _answer(store) -> int:
    with store.transaction():
        run = _run(store)
        q = store.db["questions"].insert({"benchmark": "b", "question_id": "q1", "question": "?", "category": "c",
                                          "created_at": "t"}).last_pk
        return store.db["answers"].insert({"run_id": run, "question_pk": q, "method": "raw",
                                           "created_at": "t"}).last_pk


def _event(store, answer_id, grade=None, action="set", undoes=None) -> str:
    u = str(uuid.uuid4())
    with store.transaction():
        store.db["human_grades"].insert({"uuid": u, "answer_id": answer_id, "grader": "ana", "action": action,
                                         "undoes_uuid": undoes, "grade": grade, "created_at": "t"})
    return u


def test_current_human_grade_is_derived_from_events_with_undo(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        a = _answer(store)
        _event(store, a, "wrong")
        second = _event(store, a, "fully_correct")
        current = lambda: [r["grade"] for r in store.query("SELECT grade FROM current_human_grades")]  # noqa: E731
        assert current() == ["fully_correct"]
        _event(store, a, action="undo", undoes=second)
        assert current() == ["wrong"]
        assert store.scalar("SELECT count(*) FROM human_grades") == 3  # nothing deleted


def test_machine_grades_prefers_judge_over_rule(tmp_path):
    with open_store(tmp_path / "s.db") as store:
        a = _answer(store)
        with store.transaction():
            store.db["auto_grades"].insert({"answer_id": a, "grader_kind": "rule", "grader_model": "rules/1",
                                            "grade": "wrong", "created_at": "t"})
        assert store.query("SELECT grader_kind FROM machine_grades")[0]["grader_kind"] == "rule"
        with store.transaction():
            store.db["auto_grades"].insert({"answer_id": a, "grader_kind": "judge", "grader_model": "m",
                                            "grade": "fully_correct", "created_at": "t"})
        rows = store.query("SELECT grader_kind, grade FROM machine_grades")
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
        assert store.scalar("SELECT count(*) FROM runs") == 100


def test_schema_file_is_the_only_ddl():
    assert "CREATE TABLE IF NOT EXISTS answers" in schema_sql()
