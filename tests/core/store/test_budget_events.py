"""Budgets on people's events (schema 14): an older store upgrades with every grade, preference and draw made beside
the run's largest budget (as they were), keeps its preferences on the desk, and `merge` carries the budgets."""

from __future__ import annotations

import shutil
import sqlite3

from gradedesk.core.exchange.merge import merge_store
from gradedesk.core.grading.human_grades import GradeChange, record_grade, record_preference
from gradedesk.core.review.item import load_item
from gradedesk.core.review.sampler import draw_next
from gradedesk.core.store import preferences
from gradedesk.core.store.connection import open_store, schema_version
from gradedesk.core.store.run_records import run_info
from tests.fixtures.desk_store import build_fixture_store
from tests.fixtures.old_stores import without_version_14


def make_v13_store(path) -> list[int]:
    """The fixture store (bundles at 1,000 and 2,000 tokens) as schema 13 left it, with alice's grades of a raw and a
    2,000-token answer, her preference and a sampler draw; its question pks."""
    info = build_fixture_store(path)
    conn = sqlite3.connect(path)
    without_version_14(conn)
    pk = info.question_pks[0]
    conn.executescript(f"""
        INSERT INTO human_grades (uuid, answer_id, grader, action, grade, created_at)
        VALUES ('g1', {info.answer_ids[(pk, 'raw')]}, 'alice', 'set', 'wrong', '2026-01-01T00:00:00+00:00'),
               ('g2', {info.answer_ids[(pk, 'bundle')]}, 'alice', 'set', 'fully_correct', '2026-01-01T00:00:01+00:00');
        INSERT INTO human_preferences (uuid, run_id, question_pk, grader, preferred, left_method, created_at)
        VALUES ('p1', 1, {pk}, 'alice', 'bundle', 'raw', '2026-01-01T00:00:02+00:00');
        INSERT INTO sample_draws (uuid, run_id, grader, draw_index, question_pk, probability, population, created_at)
        VALUES ('d1', 1, 'alice', 0, {pk}, 0.2, 6, 't');
        PRAGMA user_version = 13;
    """)
    conn.commit()
    conn.close()
    return info.question_pks


def test_an_older_store_upgrades_with_the_runs_largest_budget_and_keeps_its_preferences(tmp_path):
    db = tmp_path / "old.db"
    pk = make_v13_store(db)[0]
    with open_store(db) as store:
        assert store.schema_version == schema_version() >= 14
        assert {r["budget"] for r in store._query("SELECT budget FROM human_grades")} == {2000}
        assert [r["budget"] for r in store._query("SELECT budget FROM human_preferences")] == [2000]
        assert [r["budget"] for r in store._query("SELECT budget FROM sample_draws")] == [2000]
        run = run_info(store, 1)
        assert load_item(store, run, "alice", pk).preference == "bundle"  # beside 2,000, as it was made
        assert load_item(store, run.showing(1000), "alice", pk).preference is None  # not compared at 1,000
        kept = preferences.newest_preference(store, 1, "alice", pk)
        assert kept is not None and kept.uuid == "p1" and kept.budget == 2000
        raw = load_item(store, run.showing(1000), "alice", pk).answers["raw"]
        assert raw.human.grade == "wrong" and raw.graded_beside_other(1000) == 2000


def test_merge_carries_the_budgets_of_grades_preferences_and_draws(env, tmp_path):
    store, run, info = env
    other = tmp_path / "other.db"
    shutil.copy(info.path, other)
    pk = info.question_pks[2]
    with open_store(other) as theirs:
        at_1000 = run.showing(1000)
        bundle = load_item(theirs, at_1000, "bob", pk).answers["bundle"]
        record_grade(theirs, bundle.id, "bob", GradeChange(grade="wrong"), budget=1000)
        record_preference(theirs, run.id, pk, "bob", "raw", "raw", budget=1000)
        assert draw_next(theirs, at_1000, "bob") is not None
    report = merge_store(store, other)
    assert report.preferences_added == 1
    [grade] = store._query("SELECT budget FROM human_grades WHERE grader = 'bob'")
    assert grade["budget"] == 1000
    assert load_item(store, at_1000, "bob", pk).preference == "raw"
    assert {r["budget"] for r in store._query("SELECT budget FROM sample_draws WHERE grader = 'bob'")} == {1000}
