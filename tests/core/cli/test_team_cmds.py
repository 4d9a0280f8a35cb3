"""`gradedesk assign` and `gradedesk progress` end to end on real stores: what they store and print, and one clear line
with exit code 2 for each mistake."""

from __future__ import annotations

import json
import math

import pytest

from gradedesk.core.grading.vocabulary import GRADES
from gradedesk.core.store.assignments import current_assignments
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.flags import add_flag
from tests.fixtures.agreement import add_human
from tests.fixtures.cli import cli
from tests.fixtures.desk_store import build_fixture_store


@pytest.fixture
def info(tmp_path):
    return build_fixture_store(tmp_path / "store.db", questions=12)


def test_assign_stores_balanced_overlap_and_prints_loads(info, capsys):
    code, out, err = cli(capsys, "assign", "--graders", "ann,bob,cy", "--overlap", "2", "--store", info.path)
    assert code == 0, err
    assert out.splitlines()[0] == ("run 1: 12 items (all items), 2 people each, seed 7; 24 assignments added, "
                                   "0 moved or taken back")
    assert "ann     8" in out and "bob     8" in out and "cy      8" in out
    with open_store(info.path, create=False) as store:
        rows = current_assignments(store, info.run_id)
    assert len(rows) == 24 and {r.inclusion_probability for r in rows} == {1.0}
    code, out, _ = cli(capsys, "assign", "--graders", "ann,bob,cy", "--overlap", "2", "--store", info.path, "--json")
    assert json.loads(out)["added"] == 0 and json.loads(out)["withdrawn"] == 0


def test_assign_a_seeded_sample(info, capsys):
    code, out, _ = cli(capsys, "assign", "1", "--graders", "ann,bob", "--overlap", "1", "--items", "6", "--seed", "3",
                       "--store", info.path, "--json")
    report = json.loads(out)
    assert code == 0 and report["items"] == 6 and report["inclusion_probability"] == 0.5
    assert report["loads"] == {"ann": 3, "bob": 3} and report["seed"] == 3


@pytest.mark.parametrize("argv, line", [
    (["--graders", "ann,bob", "--overlap", "3"], "gradedesk: error: --overlap 3: must be from 1 to the number of "
                                                 "graders (2)"),
    (["9", "--graders", "ann,bob"], "gradedesk: error: RUN: no run 9 in {path} (see `gradedesk runs`)"),
    (["--graders", ""], "gradedesk: error: --graders: no names given (e.g. --graders ann,bob,cy)"),
    (["--graders", " , "], "gradedesk: error: --graders: no names given (e.g. --graders ann,bob,cy)"),
    (["--graders", "ann,ann"], "gradedesk: error: --graders: ann named twice"),
    (["--graders", "ann,b\x1bob"], "gradedesk: error: --graders: 'b\\x1bob': a name has no control characters"),
    (["--graders", "ann,bob", "--items", "13"], "gradedesk: error: --items 13: the run has 12 items; give a number "
                                                "from 1 to 12"),
])
def test_assign_mistakes_are_one_line_and_exit_2_with_nothing_stored(info, capsys, argv, line):
    code, out, err = cli(capsys, "assign", *argv, "--store", info.path)
    assert (code, out, err) == (2, "", line.format(path=info.path) + "\n")
    with open_store(info.path, create=False) as store:
        assert store._scalar("SELECT count(*) FROM assignments") == 0


def test_progress_json_counts_each_persons_items_and_projects_the_alpha_interval(info, capsys):
    cli(capsys, "assign", "--graders", "ann,bob,cy", "--overlap", "2", "--store", info.path)
    with open_store(info.path, create=False) as store:
        rows = current_assignments(store, info.run_id)
        # everyone grades their first three items; the two people of an item agree unless its id is odd
        done = {g: sorted(r.question_pk for r in rows if r.grader == g)[:3] for g in ("ann", "bob", "cy")}
        for g, pks in done.items():
            for pk in pks:
                for method in ("raw", "bundle"):
                    grade = GRADES[(pk + (g == "bob") * (pk % 2)) % 4]
                    add_human(store, info.answer_ids[(pk, method)], g, grade)
        add_human(store, info.answer_ids[(rows[0].question_pk, "raw")], "dan", "wrong")  # not assigned: left out
        ann_first = done["ann"][0]
        add_flag(store, info.run_id, ann_first, "ann", "ambiguous", None, judge_visible=False)
        add_flag(store, info.run_id, ann_first, "dan", "bad_gold", None, judge_visible=False)  # not assigned to dan
    code, out, err = cli(capsys, "progress", "--store", info.path, "--json", "--width", "0.3")
    assert code == 0, err
    report = json.loads(out)
    assert report["items"] == 12 and report["overlap_items"] == 12
    assert report["people"] == [{"grader": g, "assigned": 8, "graded": 3, "adjudicated": 0, "flagged": int(g == "ann")}
                                for g in ("ann", "bob", "cy")]
    pairs = {pk for pks in done.values() for pk in pks if sum(pk in p for p in done.values()) > 1}
    assert report["alpha_items"] == len(pairs) > 0
    alpha = report["alpha"]
    assert alpha["n"] == 2 * len(pairs) and -1 <= alpha["low"] <= alpha["value"] <= alpha["high"] <= 1
    half = (alpha["high"] - alpha["low"]) / 2
    expected = 0 if half <= 0.15 else math.ceil(len(pairs) * (half / 0.15) ** 2) - len(pairs)
    assert report["more_for_width"] == expected and report["target_width"] == 0.3
    assert "projection" in report["projection"]


def test_progress_table_before_and_after_assigning(info, capsys):
    code, out, _ = cli(capsys, "progress", "--store", info.path)
    assert code == 0 and out == "run 1: nothing assigned yet; assign items with `gradedesk assign`\n"
    cli(capsys, "assign", "--graders", "ann,bob", "--store", info.path)
    code, out, _ = cli(capsys, "progress", "--store", info.path)
    assert out.splitlines()[:5] == ["run 1: 12 items assigned, 12 to two or more people",
                                    "grader  assigned  graded  adjudicated  flagged",
                                    "ann     12        0       0            0",
                                    "bob     12        0       0            0",
                                    "0 items where people disagree, 0 of them adjudicated (gradedesk grade --adjudicate)"]
    assert "not defined: no item was graded by two or more people" in out
    code, _, err = cli(capsys, "progress", "--store", info.path, "--width", "3")
    assert code == 2 and "--width" in err
