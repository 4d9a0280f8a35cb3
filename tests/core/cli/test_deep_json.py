"""JSON nested 100,000 deep in any input (a questions file, a run log, a trace export, a bundle, stdin, a price file)
is one line naming the file, the line and "nested too deeply", exit 2; never a RecursionError."""

from __future__ import annotations

import io
import json

import pytest

from gradedesk.core.jsonl import MAX_DEPTH, TooDeep, loads
from tests.fixtures.cli import cli

DEEP = "[" * 100_000


def test_loads_bounds_depth_and_ignores_brackets_inside_strings():
    with pytest.raises(TooDeep):
        loads(DEEP)
    nested = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert loads(nested) is not None
    with pytest.raises(TooDeep):
        loads("[" + nested + "]")
    text = json.dumps({"a": "[" * 1000 + "\\\"{" * 100})
    assert loads(text) == json.loads(text)


@pytest.mark.parametrize("command", ["questions check", "import", "import-traces --langfuse", "validate-bundle"])
def test_a_deep_input_file_is_one_line_naming_file_and_line(tmp_path, capsys, command):
    path = tmp_path / "in.jsonl"
    path.write_text("\n" + DEEP + "\n", encoding="utf-8")  # on line 2
    code, out, err = cli(capsys, *command.split(), path, "--store", tmp_path / "s.db")
    assert code == 2 and out == ""
    lines = err.splitlines()
    first = lines[0]
    assert str(path) in first and "nested too deeply" in first and ":2" in first, err
    assert len(lines) <= 2 and not (tmp_path / "s.db").exists()


def test_deep_json_on_stdin_of_context_pack(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(DEEP))
    code, _, err = cli(capsys, "context-pack", "build")
    assert code == 2 and "stdin:1" in err and "nested too deeply" in err


def test_a_deep_price_file(project, tmp_path, capsys):
    db, questions = project
    prices = tmp_path / "prices.json"
    prices.write_text("\n" + DEEP, encoding="utf-8")
    code, _, err = cli(capsys, "run", "--questions", questions, "--prices", prices, "--model", "m", "--store", db)
    assert code == 2 and err.startswith(f"gradedesk: error: {prices}:2: ") and "nested too deeply" in err
