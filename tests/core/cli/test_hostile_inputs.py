"""Hostile files: a FIFO named like source, Ctrl-C during the first index, and texts over the documented size limits
(each refused at load with `file:line: field: too long (N chars; limit M)`, before anything slow runs)."""

from __future__ import annotations

import json
import os
import time

import pytest

from gradedesk.core.cli import main
from gradedesk.core.index.indexer import index_repository
from gradedesk.core.limits import MAX_CHARS
from gradedesk.core.store.connection import open_store
from tests.fixtures.shop import QUESTIONS, make_repo


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize("git", [False, True], ids=["plain-folder", "git-checkout"])
def test_a_fifo_named_like_source_does_not_hang_index(tmp_path, capsys, git):
    repo = make_repo(tmp_path / "repo")
    if git:
        import subprocess

        subprocess.run(["git", "init", "-q", str(repo)], check=True)
    os.mkfifo(repo / "x.py")  # opening it for reading would wait for a writer forever
    started = time.perf_counter()
    code, out, err = run(capsys, "index", repo, "--store", tmp_path / "s.db", "--json")
    assert code == 0, err
    assert time.perf_counter() - started < 30
    with open_store(tmp_path / "s.db") as store:
        paths = [r[0] for r in store._conn.execute("SELECT path FROM files")]
    assert "x.py" not in paths and "shop/cart.py" in paths


def test_ctrl_c_during_the_first_index_of_a_new_store_leaves_no_store(tmp_path):
    repo = make_repo(tmp_path / "repo")
    db = tmp_path / "new.db"

    def interrupt(done, total, path):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        with open_store(db) as store:
            index_repository(store, repo, name="shop", progress=interrupt)
    assert not db.exists() and not (tmp_path / "new.db-wal").exists()
    # a store that already held something is kept whatever happens
    with open_store(db) as store:
        index_repository(store, repo, name="shop")
    with pytest.raises(KeyboardInterrupt):
        with open_store(db):
            raise KeyboardInterrupt
    assert db.exists()


def test_a_gold_answer_over_the_limit_is_refused_at_load_with_file_line_and_field(tmp_path, capsys):
    limit = MAX_CHARS["gold_answer"]
    path = tmp_path / "q.jsonl"
    lines = [dict(QUESTIONS[0]), dict(QUESTIONS[1], gold_answer="x" * (limit + 1))]
    path.write_text("".join(json.dumps(q) + "\n" for q in lines), encoding="utf-8")
    code, _, err = run(capsys, "questions", "check", path)
    assert code == 2 and f"{path}:2: gold_answer: too long ({limit + 1} chars; limit {limit})" in err.splitlines()
    path.write_text(json.dumps(dict(QUESTIONS[0], question="why " * 5000)) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "questions", "check", path)
    assert code == 2 and f"{path}:1: question: too long (20000 chars; limit {MAX_CHARS['question']})" in err


def test_an_imported_answer_or_snippet_over_the_limit_is_refused_and_nothing_is_stored(tmp_path, capsys):
    log = tmp_path / "log.jsonl"
    big_answer = {"question_id": "q1", "question": "What is f?", "answer": "a" * (MAX_CHARS["answer"] + 1)}
    big_chunk = {"question_id": "q2", "question": "What is g?", "answer": "g returns 2",
                 "evidence": [{"file_path": "g.py", "text": "b" * (MAX_CHARS["snippet"] + 1)}]}
    log.write_text(json.dumps(big_answer) + "\n" + json.dumps(big_chunk) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "import", log, "--store", tmp_path / "s.db")
    assert code == 2
    assert f"{log}:1: answer: too long ({MAX_CHARS['answer'] + 1} chars; limit {MAX_CHARS['answer']})" in err
    assert f"{log}:2: evidence: item 1: text: too long ({MAX_CHARS['snippet'] + 1} chars" in err
    assert not (tmp_path / "s.db").exists()


def test_validate_bundle_refuses_a_huge_snippet_at_once(tmp_path, capsys):
    path = tmp_path / "b.json"
    path.write_text(json.dumps({"question": "q", "snippets": [{"text": "x = 1\n" * 9_000_000}]}), encoding="utf-8")
    started = time.perf_counter()
    code, out, err = run(capsys, "validate-bundle", path)
    assert time.perf_counter() - started < 10  # counting 54 MB of tokens took over a minute
    assert code == 2 and err.strip() == (f"gradedesk: error: {path}: snippets[1].text: too long (54000000 chars; "
                                         f"limit {MAX_CHARS['snippet']})")
