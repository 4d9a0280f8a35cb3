"""The first session as a new user has it: `gradedesk demo --no-desk`, then the commands it names, run with no --store
from the folder the demo was built in."""

from __future__ import annotations

import json
import shutil

import pytest

from gradedesk.core.config import ENV_STORE
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
