"""No command writes over the store or its own inputs: every output option (found from the parser) refuses the store,
its sidecars and links to it; outputs appear whole or not at all; stdout and FIFOs stream as before."""

from __future__ import annotations

import argparse
import json
import os
import threading

import pytest

from gradedesk.core.cli import build_parser, command_modules
from gradedesk.tui import commands
from tests.fixtures.cli import STORE_TARGETS, cli, store_target
from tests.fixtures.lesson_files import COMPARISON_LINES, hand_graded, write_lines


def _subparsers(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*prefix, name), sub
                yield from _subparsers(sub, (*prefix, name))


def output_options() -> list[tuple[tuple[str, ...], str]]:
    parser = build_parser(command_modules(commands.__name__, commands.__path__))
    return [(name, flag) for name, sub in _subparsers(parser) for flag, _ in (sub.get_default("_output_files") or ())]


@pytest.fixture
def graded_store(tmp_path, capsys):
    log = write_lines(tmp_path / "log.jsonl", [hand_graded(COMPARISON_LINES[0], "wrong", "fully_correct"),
                                               COMPARISON_LINES[1]])
    db = tmp_path / "s.db"
    assert cli(capsys, "import", log, "--store", db, "--grader", "dana")[0] == 0
    return db


def test_the_parser_names_every_file_writer():
    found = {(" ".join(name), flag) for name, flag in output_options()}
    assert {("export", "--output"), ("export-scores", "--out"), ("export-scores", "--withdrawn"),
            ("export-scores", "--configs"), ("align", "--out"), ("explore", "--questions")} <= found


@pytest.mark.parametrize("target", STORE_TARGETS)
@pytest.mark.parametrize("command,flag", output_options(), ids=lambda v: " ".join(v) if isinstance(v, tuple) else v)
def test_no_output_option_may_name_the_store(graded_store, tmp_path, capsys, command, flag, target):
    db = graded_store
    path = store_target(db, tmp_path, target)
    before = db.read_bytes()
    extra = ["--format", "langfuse"] if flag == "--configs" else []
    code, out, err = cli(capsys, *command, flag, path, *extra, "--store", db)
    assert code == 2
    assert err.startswith(f"gradedesk: error: {flag}: {path} is the store") and len(err.splitlines()) == 1
    assert db.read_bytes() == before and out == ""


def test_export_scores_withdrawn_naming_the_store_leaves_it_byte_identical(graded_store, tmp_path, capsys):
    db = graded_store
    before = db.read_bytes()
    code, _, err = cli(capsys, "export-scores", "--store", db, "--out", tmp_path, "--withdrawn", db)
    assert code == 2 and "--withdrawn" in err and db.read_bytes() == before


def test_two_outputs_may_not_be_one_file_nor_an_input(graded_store, tmp_path, capsys):
    out = tmp_path / "scores.jsonl"
    code, _, err = cli(capsys, "export-scores", "--store", graded_store, "--out", out, "--withdrawn", out)
    assert code == 2 and "--withdrawn: " in err and "also the output of --out" in err and not out.exists()
    code, _, err = cli(capsys, "import", graded_store, "--store", graded_store)
    assert code == 2 and "is a file this command reads" in err


def test_a_failed_export_leaves_every_file_as_it_was(graded_store, tmp_path, capsys):
    out = tmp_path / "scores.jsonl"
    out.write_text("earlier\n")
    code, _, err = cli(capsys, "export-scores", "--store", graded_store, "--out", out,
                       "--withdrawn", tmp_path / "missing" / "w.jsonl")
    assert code == 2 and "cannot write" in err
    assert out.read_text() == "earlier\n"
    assert not [p for p in tmp_path.iterdir() if ".tmp" in p.name]


def test_an_output_through_a_symlink_keeps_the_link(graded_store, tmp_path, capsys):
    real = tmp_path / "real.jsonl"
    real.write_text("old\n")
    link = tmp_path / "link.jsonl"
    os.symlink(real, link)
    assert cli(capsys, "export", "-o", link, "--store", graded_store)[0] == 0
    assert link.is_symlink() and len(real.read_text().splitlines()) == 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_output_is_streamed(graded_store, tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, encoding="utf-8").read()))
    reader.start()
    assert cli(capsys, "export", "-o", fifo, "--store", graded_store)[0] == 0
    reader.join(timeout=30)
    assert [json.loads(line)["question_id"] for line in got[0].splitlines()] and fifo.exists()
