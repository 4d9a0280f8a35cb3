"""Snapshots of every desk screen at a fixed size, from the fixture store (fixed times, seeds and grader name; no
clock, no cursor blink, no paths on screen). Update with `--snapshot-update` only after looking at the SVGs."""

from __future__ import annotations

import pytest

from tests.fixtures.desk import make_app, settle
from tests.fixtures.desk_store import build_fixture_store

SIZE = (120, 40)


def _snap(snap_compare, tmp_path, *keys: str, hostile: bool = False, size: tuple[int, int] = SIZE, **settings) -> bool:
    info = build_fixture_store(tmp_path / "store.db", hostile=hostile)
    app = make_app(info.path, **settings)

    async def run_before(pilot) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return snap_compare(app, terminal_size=size, run_before=run_before)


def test_grading_blind(snap_compare, tmp_path):
    assert _snap(snap_compare, tmp_path)


def test_grading_after_grade_judge_revealed(snap_compare, tmp_path):
    assert _snap(snap_compare, tmp_path, "2", "f", "3", "s", "3", "4", "2", "5", "enter")


def test_grading_hidden_methods_and_preference(snap_compare, tmp_path):
    assert _snap(snap_compare, tmp_path, "1", "right_square_bracket", hide_methods=True)


def test_grading_hostile_text_is_literal(snap_compare, tmp_path):
    assert _snap(snap_compare, tmp_path, "1", hostile=True)


def test_grading_recheck_pass(snap_compare, tmp_path):
    info = build_fixture_store(tmp_path / "store.db")
    from gradedesk.core.grading import human_grades
    from gradedesk.core.store.connection import open_store

    with open_store(info.path) as store:
        human_grades.record_grade(store, info.answer_ids[(info.question_pks[0], "raw")], "alice",
                                  human_grades.GradeChange(grade="wrong"))
    app = make_app(info.path, recheck=1.0)

    async def run_before(pilot) -> None:
        await settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_queue(snap_compare, tmp_path):
    assert _snap(snap_compare, tmp_path, "1", "q")


def test_evidence_browser(snap_compare, tmp_path):
    assert _snap(snap_compare, tmp_path, "b", "down")


def test_evidence_browser_raw_json(snap_compare, tmp_path):
    assert _snap(snap_compare, tmp_path, "b", "r")


def test_help(snap_compare, tmp_path):
    assert _snap(snap_compare, tmp_path, "question_mark")


@pytest.mark.parametrize("keys", [("1", "f"), ("1", "s", "4"), ("1", "e"), ("g",), ("slash",), ("exclamation_mark",)],
                         ids=["label", "scores", "note", "jump", "filters", "flag"])
def test_modals(snap_compare, tmp_path, keys):
    assert _snap(snap_compare, tmp_path, *keys)


def test_grading_methods_hidden_before_any_grade(snap_compare, tmp_path):
    """--hide-methods: both panes show the answer and its evidence in one neutral form (file, lines, text)."""
    assert _snap(snap_compare, tmp_path, hide_methods=True)


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])
@pytest.mark.parametrize("keys", [(), ("q",)], ids=["grading", "queue"])
def test_footer_at_small_sizes(snap_compare, tmp_path, keys, size):
    """At the sizes terminals open at, the footer shows the state's keys with `? help` and `^q quit`, uncut."""
    assert _snap(snap_compare, tmp_path, *keys, size=size)


def test_served_desk_asks_the_name_first(snap_compare, tmp_path):
    assert _snap(snap_compare, tmp_path, "enter", size=(80, 24), grader="", ask_name=True)


SMALL_SIZES = pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])


@SMALL_SIZES
def test_queue_at_small_sizes(snap_compare, tmp_path, size):
    """After a grade: at 100 columns every column with grades in a word and `conf.`; at 80 without category and by;
    no column cut at the edge."""
    assert _snap(snap_compare, tmp_path, "1", "q", size=size)


@SMALL_SIZES
def test_help_at_small_sizes(snap_compare, tmp_path, size):
    """Help opens on the workflow (blind first, methods hidden, the order), then the keys by task."""
    assert _snap(snap_compare, tmp_path, "question_mark", size=size)


@SMALL_SIZES
def test_diff_at_small_sizes(snap_compare, tmp_path, size):
    """v: answer A against answer B word by word, the words only one has marked."""
    assert _snap(snap_compare, tmp_path, "v", size=size)


@SMALL_SIZES
def test_grading_methods_hidden_at_small_sizes(snap_compare, tmp_path, size):
    """--hide-methods: one plain form in both panes, the top bar on one line."""
    assert _snap(snap_compare, tmp_path, size=size, hide_methods=True)


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])
def test_status_line_keeps_every_figure_behind_a_message_and_a_flag(snap_compare, tmp_path, size):
    """Item 5 of issue 40: at 80 columns a message and a flag pushed the figures past the edge; they take a second
    line of their own instead."""
    assert _snap(snap_compare, tmp_path, "2", "exclamation_mark", "1", size=size)
