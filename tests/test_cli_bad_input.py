"""New-user mistakes found by trying gradedesk on a repository and files it has never seen: each ends in one line,
exit 2, and leaves nothing behind."""

from __future__ import annotations

import json

import pytest

from core.bench import resolve_run
from core.cli import main
from core.store import open_store
from test_bench import project  # noqa: F401  (the shared fixture)


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


@pytest.mark.parametrize("argv", [
    ("index", "{tmp}/no-such-repo"),
    ("import", "{tmp}/bad.jsonl"),
    ("run", "--questions", "{tmp}/q.jsonl"),  # no repository indexed in a new store
])
def test_a_failed_command_leaves_no_new_store(tmp_path, capsys, argv):
    (tmp_path / "bad.jsonl").write_text('{"question_id": "x", "question": "q", "answer": 5}\n', encoding="utf-8")
    (tmp_path / "q.jsonl").write_text(json.dumps({"id": "a", "question": "q?", "category": "c",
                                                  "gold_answer": "g"}) + "\n", encoding="utf-8")
    store = tmp_path / "new.db"
    code, err = _run(capsys, *(a.format(tmp=tmp_path) for a in argv), "--store", str(store))
    assert code == 2 and err.strip()
    assert not list(tmp_path.glob("new.db*"))
    # the same mistake against an existing store keeps the store
    assert main(["import", str(tmp_path / "bad.jsonl"), "--store", str(store), "--skip-invalid"]) == 2
    (tmp_path / "ok.jsonl").write_text('{"question_id": "x", "question": "q", "answer": "a"}\n', encoding="utf-8")
    assert main(["import", str(tmp_path / "ok.jsonl"), "--store", str(store)]) == 0
    code, _ = _run(capsys, *(a.format(tmp=tmp_path) for a in argv), "--store", str(store))
    assert code == 2 and store.exists()


def test_a_mistyped_base_url_leaves_latest_alone_but_a_started_run_is_kept(project, chat_server, capsys):
    db, questions = map(str, project)
    assert main(["run", "--questions", questions, "--budgets", "500", "--store", db]) == 0  # offline: run 1
    code, err = _run(capsys, "run", "--questions", questions, "--budgets", "500", "--model", "m",
                     "--base-url", "http://127.0.0.1:9/v1", "--max-retries", "0", "--store", db)
    assert code == 2 and len(err.splitlines()) == 1 and "cannot connect" in err
    with open_store(db) as store:
        assert [r["id"] for r in store.query("SELECT id FROM runs")] == [1]
        assert resolve_run(store, "latest") == 1
    # a run that got answers (here: failed calls) and then loses its endpoint keeps them for the resume
    chat_server.fail_next(500, times=2)
    args = ["run", "--questions", questions, "--budgets", "500", "--model", "m", "--base-url", chat_server.base_url,
            "--max-retries", "0", "--concurrency", "1", "--store", db]
    assert main(args) == 1
    chat_server.stop()
    code, err = _run(capsys, *args)
    assert code == 2 and "cannot connect" in err
    with open_store(db) as store:
        assert store.scalar("SELECT count(*) FROM answers WHERE run_id = 2 AND status = 'ok'") == 4


def test_jsonl_lines_end_at_newline_only_and_a_byte_order_mark_is_skipped(tmp_path, capsys):
    # U+2028 and U+0085 are legal unescaped inside JSON strings (json.dumps(ensure_ascii=False) writes them)
    q = {"id": "a", "question": "what\u2028is x\x85?", "category": "c", "gold_answer": "g"}
    path = tmp_path / "q.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + (json.dumps(q, ensure_ascii=False) + "\r\n\r\n").encode()
                     + b'{"id": "b"}\r\n')
    code, err = _run(capsys, "questions", "check", str(path))
    assert code == 2 and err.splitlines()[0] == f"{path}:3: question: missing"


def test_export_then_import_keeps_text_with_line_separators(project, tmp_path, capsys):
    db, questions = map(str, project)
    odd = tmp_path / "odd.jsonl"
    rows = [json.loads(line) for line in open(questions, encoding="utf-8")]
    rows[0]["question"] += "\u2028(see\x85below)"
    odd.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert main(["run", "--questions", str(odd), "--budgets", "500", "--store", db]) == 0
    out = tmp_path / "run.jsonl"
    assert main(["export", "latest", "--jsonl", "-o", str(out), "--store", db]) == 0
    assert "\u2028" in out.read_text(encoding="utf-8")
    code, err = _run(capsys, "import", str(out), "--store", str(tmp_path / "other.db"))
    assert code == 0, err
    with open_store(tmp_path / "other.db") as store:
        assert store.scalar("SELECT count(*) FROM questions") == len(rows)
        assert store.scalar("SELECT count(*) FROM questions WHERE question LIKE ?", ("%\u2028(see\x85below)",)) == 1
