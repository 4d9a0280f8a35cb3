"""The headline of a run read from two-sided traces: rows named by the sides' labels, as the desk's panes are, and a
note that asks for a judge (the answers are in), not for `gradedesk run`."""

from __future__ import annotations

import json

from tests.fixtures.cli import cli
from tests.fixtures.pairwise import SIDES, import_two_sided, write_two_sided_export


def test_a_two_sided_trace_run_is_headlined_by_its_sides(capsys, tmp_path):
    db = import_two_sided(capsys, tmp_path)
    code, out, err = cli(capsys, "summary", "--store", db, "--json")
    assert code == 0, err
    head = json.loads(out)["headline"]
    assert [m["method"] for m in head["methods"]] == list(SIDES) and head["title"] == " vs ".join(SIDES)
    assert head["quality_note"] == "answer quality needs a judge: `gradedesk judge --base-url URL --model M`"
    code, out, err = cli(capsys, "summary", "--store", db)
    assert f"== headline: {' vs '.join(SIDES)}, recall" in out and "bundle@0" not in out and "gradedesk run" not in out


def test_a_one_sided_trace_run_is_headlined_by_its_project(capsys, tmp_path):
    db = tmp_path / "one.db"
    code, _, err = cli(capsys, "import-traces", "--langfuse", write_two_sided_export(tmp_path / "traces.json"),
                       "--store", db)
    assert code == 0, err
    code, out, err = cli(capsys, "summary", "--store", db, "--json")
    head = json.loads(out)["headline"]
    assert [m["method"] for m in head["methods"]] == ["proj-rag"] and head["title"] == "proj-rag"
