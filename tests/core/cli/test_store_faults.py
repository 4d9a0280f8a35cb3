"""Store faults are a user's errors: a truncated store, a file that is not SQLite, a read-only store file or folder, a
full disk (a file-size limit in the child process, no root needed) and a store locked past the busy timeout each end
in one line naming the store and what to do, exit 2, and leave the store as it was; commands that only read work on a
read-only store."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import stat
import subprocess
import sys
from contextlib import contextmanager

import pytest

from gradedesk.core.store import connection
from tests.fixtures import REPO_ROOT
from tests.fixtures.cli import cli
from tests.fixtures.lesson_files import COMPARISON_LINES, hand_graded, write_lines
from tests.fixtures.shop import make_repo


@pytest.fixture
def graded(tmp_path, capsys):
    log = write_lines(tmp_path / "log.jsonl", [hand_graded(COMPARISON_LINES[0], "wrong", "fully_correct"),
                                               COMPARISON_LINES[1]])
    folder = tmp_path / "stores"
    folder.mkdir()
    db = folder / "s.db"
    assert cli(capsys, "import", log, "--store", db, "--grader", "dana")[0] == 0
    assert cli(capsys, "summary", "--store", db)[0] == 0  # a checkpoint: the -wal is folded in on close
    return db, log


def one_line_exit_2(code: int, err: str, db) -> None:
    """Exit 2 and one error line naming the store, the last (progress lines may come before it), no traceback."""
    assert code == 2 and "Traceback" not in err, err
    errors = [line for line in err.splitlines() if line.startswith("gradedesk:")]
    assert len(errors) == 1 and errors[0] == err.splitlines()[-1], err
    assert errors[0].startswith(f"gradedesk: error: {db}: "), err


@pytest.mark.parametrize("damage", ["truncated", "not-sqlite"])
@pytest.mark.parametrize("command", [["summary"], ["export"], ["import", "{log}"], ["grade-offline"], ["runs"]])
def test_a_damaged_store_is_one_line(graded, capsys, damage, command):
    db, log = graded
    if damage == "truncated":
        with open(db, "r+b") as fh:
            fh.truncate(50)
    else:
        db.write_text("these are my notes, not a store\n" * 40)
    before = db.read_bytes()
    code, _, err = cli(capsys, *[str(log) if a == "{log}" else a for a in command], "--store", db)
    one_line_exit_2(code, err, db)
    assert db.read_bytes() == before


@contextmanager
def read_only(target):
    """`target` (the store file or its folder) made read-only: by its mode, or for root (whom modes do not stop) by
    a read-only bind mount of the folder; skipped where neither can be made."""
    if os.geteuid() != 0:
        mode = target.stat().st_mode
        target.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        try:
            yield
        finally:
            target.chmod(mode)
        return
    folder = target if target.is_dir() else target.parent
    bind = subprocess.run(["mount", "--bind", folder, folder], capture_output=True)
    if bind.returncode != 0:
        pytest.skip("root, and no bind mount here: nothing is read-only to root")
    try:
        if subprocess.run(["mount", "-o", "remount,bind,ro", folder, folder], capture_output=True).returncode:
            pytest.skip("root, and no read-only remount here")
        yield
    finally:
        subprocess.run(["umount", folder], check=True)


@pytest.mark.parametrize("where", ["file", "folder"])
def test_a_read_only_store_is_read_and_a_write_is_one_line(graded, tmp_path, capsys, where):
    db, _ = graded
    log = write_lines(tmp_path / "new.jsonl", [{**COMPARISON_LINES[1], "question_id": "q9"}])
    before = db.read_bytes()
    with read_only(db if where == "file" else db.parent):
        for command in (["summary"], ["agree"], ["export-scores"], ["runs"], ["export"]):
            code, out, err = cli(capsys, *command, "--store", db)
            assert code == 0 and out, (command, err)
        for command in (["import", log, "--label", "again"], ["grade-offline"]):
            code, _, err = cli(capsys, *command, "--store", db)
            one_line_exit_2(code, err, db)
            assert "writable" in err
    assert db.read_bytes() == before


def _run_limited(args: list[str], limit: int) -> subprocess.CompletedProcess:
    def limit_file_size() -> None:  # the child's writes past `limit` bytes fail with EFBIG, as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run([sys.executable, "-m", "gradedesk.tui", *map(str, args)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=300, preexec_fn=limit_file_size)


@pytest.mark.parametrize("command", ["index", "import-traces", "import"])
def test_a_full_disk_is_one_line_and_the_store_is_kept(graded, tmp_path, command):
    db, log = graded
    from tests.fixtures.langfuse_export import trace, write_export

    repo = make_repo(tmp_path / "repo")
    for n in range(40):
        (repo / "shop" / f"m{n}.py").write_text("".join(f"def f{n}_{i}():\n    return {i}\n" for i in range(200)))
    traces = write_export(tmp_path / "t.json", [trace(f"{n:032x}", f"{n:016x}", f"q{n} " + "x" * 3000,
                                                      "a" * 3000, [{"page_content": "e" * 3000}])
                                                for n in range(60)])
    args = {"index": ["index", repo], "import-traces": ["import-traces", "--langfuse", traces],
            "import": ["import", write_lines(tmp_path / "big.jsonl", [
                {**COMPARISON_LINES[0], "question_id": f"q{n}", "raw_answer": "r" * 4000} for n in range(80)])]}
    out = _run_limited([*args[command], "--store", db], db.stat().st_size + 64 * 1024)
    one_line_exit_2(out.returncode, out.stderr, db)
    assert "disk" in out.stderr and "free some space" in out.stderr
    check = sqlite3.connect(db)
    assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert check.execute("SELECT count(*) FROM runs").fetchone()[0] == 1  # the graded run, nothing half-added
    check.close()


def test_a_store_locked_past_the_busy_timeout_is_one_line(graded, tmp_path, capsys, monkeypatch):
    db, _ = graded
    log = write_lines(tmp_path / "new.jsonl", [{**COMPARISON_LINES[1], "question_id": "q9"}])
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_MS", 300)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        for command in (["import", log, "--label", "again"], ["grade-offline"]):
            code, _, err = cli(capsys, *command, "--store", db)
            one_line_exit_2(code, err, db)
            assert "another process" in err
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with sqlite3.connect(db) as check:
        assert check.execute("SELECT count(*) FROM runs").fetchone()[0] == 1


def test_a_full_disk_during_a_run_keeps_every_answer_for_the_next_run(tmp_path, capsys):
    from gradedesk.core.store.kept_replies import kept_path
    from tests.fixtures.shop import build_project

    db, questions = build_project(tmp_path)
    with sqlite3.connect(db) as check:  # the -wal folded in: the store's size is its file's
        check.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    run = ["run", "--questions", questions, "--budgets", "300,500,1000,2000", "--store", db]
    out = _run_limited(run, db.stat().st_size + 4096)
    one_line_exit_2(out.returncode, out.stderr, db)
    kept = len(kept_path(db).read_text().splitlines())
    assert "disk" in out.stderr and f"{kept} repl" in out.stderr and f"kept in {kept_path(db)}" in out.stderr
    code, _, err = cli(capsys, *run)
    assert code == 0 and f"took in {kept} repl" in err and not kept_path(db).exists(), err
    with sqlite3.connect(db) as check:
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert check.execute("SELECT count(*) FROM answers WHERE status = 'ok'").fetchone()[0] == 15
