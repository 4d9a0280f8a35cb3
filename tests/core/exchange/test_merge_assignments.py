"""`merge` carries assignments (gradedesk assign) with their withdrawals, onto this store's ids, once."""

from __future__ import annotations

import shutil

from gradedesk.core.exchange.merge import merge_store
from gradedesk.core.review.team import assign_run
from gradedesk.core.store.assignments import current_assignments
from gradedesk.core.store.connection import open_store
from tests.fixtures.agreement import add_human
from tests.fixtures.desk_store import build_fixture_store


def _current(store, run_id):
    return sorted((a.benchmark, a.question_id, a.grader, a.inclusion_probability)
                  for a in current_assignments(store, run_id))


def test_assignments_and_their_withdrawals_merge_once(tmp_path):
    info = build_fixture_store(tmp_path / "here.db", questions=10)
    lead = tmp_path / "lead.db"
    shutil.copy(info.path, lead)
    with open_store(lead) as store:
        assign_run(store, info.run_id, ["ann", "bob"], 2, items=6)
        first = current_assignments(store, info.run_id)[0]
        add_human(store, info.answer_ids[(first.question_pk, "raw")], first.grader, "wrong")
        assign_run(store, info.run_id, ["ann", "bob", "cy"], 2)  # moves ungraded pairs to cy: withdraw rows
        theirs = _current(store, info.run_id)
        rows = store._scalar("SELECT count(*) FROM assignments")
        assert store._scalar("SELECT count(*) FROM assignments WHERE action = 'withdraw'") > 0
    with open_store(info.path) as store:
        report = merge_store(store, lead)
        assert (report.assignments_added, report.assignments_already_here, report.unmatched_assignments) == (rows, 0, {})
        assert _current(store, info.run_id) == theirs
        again = merge_store(store, lead)
        assert (again.assignments_added, again.assignments_already_here) == (0, rows)
        assert store._scalar("SELECT count(*) FROM assignments") == rows
