"""Budgets at the desk (issue 29): `grade --budget N` refuses a budget the run has not, in one line. What a desk at
another budget shows and stores is tested through the desk session (tests/core/review/test_session_events.py,
tests/tui/test_session_panes.py); the palette's budget entry in tests/tui/test_desk.py."""

from __future__ import annotations

from tests.fixtures.cli import cli


def test_grade_budget_the_run_has_not_is_one_line_naming_its_budgets(fixture_store, capsys):
    code, out, err = cli(capsys, "grade", "--store", fixture_store.path, "--budget", "3000")
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0
    assert "--budget" in err and "3,000" in err and "1,000, 2,000" in err
