"""A key on the command line is refused without being echoed, and no option is taken by a prefix of its name;
grader names pass one validator wherever they come from (--grader, $GRADEDESK_GRADER, import --grader)."""

from __future__ import annotations

import pytest

from tests.fixtures.cli import cli
from tests.fixtures.lesson_files import COMPARISON_LINES, write_lines


@pytest.mark.parametrize("argv", [["judge", "--api-key", "sk-SECRET42", "--model", "m"],
                                  ["run", "--api-key=sk-SECRET42"]])
def test_api_key_on_the_command_line_is_an_error_naming_api_key_env(capsys, argv):
    code, out, err = cli(capsys, *argv)
    assert code == 2 and "--api-key-env" in err and "SECRET42" not in out + err and len(err.splitlines()) == 1


def test_an_option_is_not_taken_by_its_prefix(tmp_path, capsys):
    with pytest.raises(SystemExit):
        cli(capsys, "export", "--out", tmp_path / "x.jsonl", "--store", tmp_path / "s.db")
    assert "unrecognized arguments: --out" in capsys.readouterr().err


def test_a_desk_grader_name_with_control_characters_is_refused(tmp_path, capsys, monkeypatch):
    db = tmp_path / "s.db"
    log = write_lines(tmp_path / "log.jsonl", COMPARISON_LINES)
    code, _, err = cli(capsys, "import", log, "--store", db, "--grader", "ann\x1b[2J")
    assert code == 2 and "--grader: a name has no control characters" in err and not db.exists()
    assert cli(capsys, "import", log, "--store", db)[0] == 0
    monkeypatch.setenv("GRADEDESK_GRADER", "ann\x1b]0;x\x07")
    code, _, err = cli(capsys, "grade", "--store", db)
    assert code == 2 and "$GRADEDESK_GRADER: a name has no control characters" in err
    code, _, err = cli(capsys, "grade", "--store", db, "--grader", "bob\nmallory")
    assert code == 2 and "--grader: a name has no control characters" in err
