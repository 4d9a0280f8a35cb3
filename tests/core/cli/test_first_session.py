"""The first session as a new user has it: `gradedesk demo --no-desk`, then the commands it names, run with no --store
from the folder the demo was built in."""

from __future__ import annotations

import json
import shutil

import pytest

from gradedesk.core.config import ENV_STORE
from gradedesk.core.grading.vocabulary import GRADES
from gradedesk.core.store.connection import open_store
from gradedesk.core.store.answers import answers_of_run
from tests.fixtures.agreement import add_human
from tests.fixtures.cli import cli


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("first-session")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        mp.delenv(ENV_STORE, raising=False)
        from gradedesk.tui.cli import main

        assert main(["demo", "--no-desk", "--json"]) == 0
    return folder


@pytest.fixture
def in_demo_dir(demo_dir, monkeypatch):
    monkeypatch.chdir(demo_dir)
    monkeypatch.delenv(ENV_STORE, raising=False)
    return demo_dir


def test_demo_ends_with_the_next_commands_on_its_store(in_demo_dir, capsys):
    code, out, err = cli(capsys, "demo", "--no-desk")
    assert code == 0 and out == ""
    lines = err.splitlines()
    start = lines.index("next:")
    steps = [line.split()[:3] for line in lines[start + 1:]]
    assert ["gradedesk", "grade", "--store"] in steps and ["gradedesk", "summary", "--store"] in steps
    assert all("--store demo.db" in line for line in lines[start + 1:])
    assert any("judge" in line and "--base-url" in line for line in lines[start + 1:])


def test_read_only_commands_fall_back_to_the_demo_store_and_say_so(in_demo_dir, capsys):
    for command in (["summary"], ["runs"], ["agree"]):
        code, out, err = cli(capsys, *command)
        assert code == 0 and out, command
        notes = [line for line in err.splitlines() if "demo.db" in line]
        assert len(notes) == 1 and "reading ./demo.db" in notes[0], err
    code, _, err = cli(capsys, "summary", "--store", "demo.db")
    assert code == 0 and "reading ./demo.db" not in err  # named: nothing to say


def test_writing_commands_never_fall_back(demo_dir, tmp_path, monkeypatch, capsys):
    shutil.copy(demo_dir / "demo.db", tmp_path / "demo.db")
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "m.py").write_text("def f():\n    return 1\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(ENV_STORE, raising=False)
    before = (tmp_path / "demo.db").stat().st_mtime_ns
    code, _, err = cli(capsys, "index", "repo")
    assert code == 0 and "demo.db" not in err
    assert (tmp_path / "store.db").exists() and (tmp_path / "demo.db").stat().st_mtime_ns == before


def test_people_grades_appear_in_summary_beside_the_machine_graders(demo_dir, tmp_path, capsys):
    db = tmp_path / "graded.db"
    shutil.copy(demo_dir / "demo.db", db)
    with open_store(db) as store:
        answers = [a["id"] for a in answers_of_run(store, 1)]
        for n, answer_id in enumerate(answers[:8]):
            add_human(store, answer_id, "alice", GRADES[n % 4])
    code, out, _ = cli(capsys, "summary", "--store", db, "--json")
    people = json.loads(out)["people"]
    assert code == 0 and {p["grader"] for p in people} == {"person alice"}
    assert sum(p["n"] for p in people) == 8 and all(p["grading_error"] == 0 for p in people)
    code, out, _ = cli(capsys, "summary", "--store", db)
    assert any(line.startswith("person alice") for line in out.splitlines())


def test_summary_leads_with_the_retrieval_and_cost_headline(in_demo_dir, capsys):
    code, out, _ = cli(capsys, "summary")
    assert code == 0
    first = out.split("\n== ")[1].splitlines()
    assert first[0].startswith("headline: raw vs bundles")
    # the demo's benchmark names symbols: what the evidence shows of their code leads, beside file recall
    assert first[1].split()[:10] == ["method", "n", "definitions", "present", "code", "coverage", "file", "recall",
                                     "symbol", "recall"]
    assert "pass: rule grader rules/1" in first[1]
    methods = [line.split()[0] for line in first[2:6]]
    assert methods == ["raw", "bundle@1000", "bundle@2000", "bundle@4000"]
    assert all(line.count("[") == 6 for line in first[2:6])  # every figure with its interval
    assert first[6].startswith("answer quality needs a model") and "judge" in first[6]
    assert out.count("not defined:") <= 1
    code, out, _ = cli(capsys, "summary", "--json")
    head = json.loads(out)["headline"]
    raw = head["methods"][0]
    assert raw["method"] == "raw" and raw["file_recall"]["low"] <= raw["file_recall"]["value"] <= raw["file_recall"]["high"]
    assert raw["code_coverage"]["low"] <= raw["code_coverage"]["value"] <= raw["code_coverage"]["high"]
    assert head["graders"] == ["rule grader rules/1"] and head["quality_note"]
