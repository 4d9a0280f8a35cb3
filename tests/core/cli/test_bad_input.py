"""New-user mistakes found by trying gradedesk on a repository and files it has never seen: each ends in one line,
exit 2, and leaves nothing behind."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.store.run_records import resolve_run
from gradedesk.core.cli import main
from gradedesk.core.store.connection import open_store


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
        assert [r["id"] for r in store._query("SELECT id FROM runs")] == [1]
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
        assert store._scalar("SELECT count(*) FROM answers WHERE run_id = 2 AND status = 'ok'") == 4


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
        assert store._scalar("SELECT count(*) FROM questions") == len(rows)
        assert store._scalar("SELECT count(*) FROM questions WHERE question LIKE ?", ("%\u2028(see\x85below)",)) == 1


def test_validate_bundle_names_missing_and_mistyped_fields(tmp_path, capsys):
    from gradedesk.core.evidence.bundle import EvidenceBundle, EvidenceSnippet
    from gradedesk.core.text.hashing import content_hash
    from gradedesk.core.text.tokens import count_tokens

    text = "def f():\n    return 1"
    s = EvidenceSnippet("c1", content_hash(text), text, count_tokens(text), "a.py", 1, 2, "f", "bm25", 2.0, 1,
                        "Defines f.", "definition")
    good = EvidenceBundle("What is f?", "code_lookup", [s], 0, 500, ["bm25"], ["definition of f found"]).recount()
    data = good.to_dict()
    data["token_budget"] = None
    data["snippets"][0].update(text=5, relevance_score="high")
    del data["coverage_notes"]
    data["snippets"].append(7)
    path = tmp_path / "b.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code = main(["validate-bundle", str(path)])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in err
    assert out.splitlines() == [f"{path}: bundle: schema: token_budget: must be int, got NoneType",
                                f"{path}: bundle: schema: coverage_notes: missing",
                                f"{path}: evidence 1 (c1): schema: text: must be str, got int",
                                f"{path}: evidence 1 (c1): schema: relevance_score: must be float, got str",
                                f"{path}: evidence 2: schema: must be an object, got int"]
    path.write_text(good.to_json(), encoding="utf-8")
    assert main(["validate-bundle", str(path)]) == 0


def test_import_names_mistyped_fields_of_marked_grades(tmp_path, capsys):
    def line(qid: str, **grade) -> str:
        g = {"grader_kind": "judge", "grader": "m", "grade": "wrong", **grade}
        return json.dumps({"question_id": qid, "question": "q", "bundle_answer": "a", "grades": {"bundle": [g]}})

    path = tmp_path / "log.jsonl"
    path.write_text("\n".join([line("a", repeat_index="z"), line("b", confidence="high"),
                               line("c", grader_kind="human", mode=5), line("d", correctness=9),
                               line("e", confidence=0.5, repeat_index=1)]) + "\n", encoding="utf-8")
    store = tmp_path / "s.db"
    code, err = _run(capsys, "import", str(path), "--store", str(store))
    assert code == 2 and not store.exists()
    assert err.splitlines()[:4] == [f"{path}:1: grades.bundle[1]: repeat_index 'z': must be a whole number from 0",
                                    f"{path}:2: grades.bundle[1]: confidence 'high': must be a number from 0 to 1",
                                    f"{path}:3: grades.bundle[1]: mode 5: must be blind, open or recheck",
                                    f"{path}:4: grades.bundle[1]: correctness 9: must be a whole number from 1 to 5"]
    assert main(["import", str(path), "--skip-invalid", "--store", str(store)]) == 0
    with open_store(store) as s:
        assert s._query("SELECT confidence, repeat_index FROM auto_grades") == [{"confidence": 0.5, "repeat_index": 1}]


@pytest.mark.parametrize("flags, message", [
    (["--base-url", "localhost:8000/v1"], "--base-url: 'localhost:8000/v1' is not an http:// or https:// URL"),
    (["--base-url", "http://127.0.0.1:9/v1", "--timeout", "-1"], "--timeout: must be a positive number of seconds"),
    (["--base-url", "http://127.0.0.1:9/v1", "--max-retries", "-1"], "--max-retries: must be 0 or more, got -1"),
])
def test_endpoint_flags_that_would_fail_every_call_are_refused_up_front(project, capsys, flags, message):
    db, questions = map(str, project)
    for command in (["run", "--questions", questions], ["judge"]):
        code, err = _run(capsys, *command, "--model", "m", *flags, "--store", db)
        assert code == 2 and err.startswith(f"gradedesk: error: {message}") and len(err.splitlines()) == 1
    with open_store(db) as store:
        assert store._scalar("SELECT count(*) FROM runs") == 0


def test_another_file_with_the_same_name_does_not_reword_answered_questions(project, tmp_path, capsys):
    db, questions = map(str, project)
    assert main(["run", "--questions", questions, "--budgets", "500", "--store", db]) == 0
    first = json.loads(open(questions, encoding="utf-8").readline())
    other = tmp_path / "elsewhere" / "shop-questions.jsonl"  # same file name, so the same benchmark name
    other.parent.mkdir()
    other.write_text(json.dumps({**first, "question": "Something else entirely?", "gold_answer": "x"}) + "\n",
                     encoding="utf-8")
    code, err = _run(capsys, "run", "--questions", str(other), "--budgets", "500", "--store", db)
    assert code == 2 and f"question {first['id']!r}: run(s) 1 answered a different question" in err
    with open_store(db) as store:
        assert store._scalar("SELECT question FROM questions WHERE question_id = ?", (first["id"],)) == first["question"]
        assert store._scalar("SELECT count(*) FROM runs") == 1
    # fixing a gold answer in the same file is still an update
    fixed = tmp_path / "fixed" / "shop-questions.jsonl"
    fixed.parent.mkdir()
    fixed.write_text(json.dumps({**first, "gold_answer": "a better gold answer"}) + "\n", encoding="utf-8")
    assert main(["questions", "load", str(fixed), "--store", db]) == 0
    with open_store(db) as store:
        assert store._scalar("SELECT gold_answer FROM questions WHERE question_id = ?", (first["id"],)) == \
            "a better gold answer"


def test_an_exported_run_imports_with_its_bundle_budget(project, tmp_path, capsys):
    db, questions = map(str, project)
    assert main(["run", "--questions", questions, "--budgets", "300,700", "--store", db]) == 0
    out = tmp_path / "run.jsonl"
    assert main(["export", "latest", "--jsonl", "-o", str(out), "--store", db]) == 0
    other = tmp_path / "other.db"
    assert main(["import", str(out), "--store", str(other)]) == 0
    with open_store(other) as store:
        assert store._scalar("SELECT primary_budget FROM runs") == 700
        assert {r["budget"] for r in store._query("SELECT budget FROM answers WHERE method = 'bundle'")} == {700}
        assert {r["token_budget"] for r in store._query("SELECT token_budget FROM bundles")} == {700}
    # a log whose bundles had different budgets keeps them under one unknown budget (0), all shown at the desk
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    lines[0]["bundle_budget"] = 300
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    assert main(["import", str(mixed), "--store", str(other)]) == 0
    with open_store(other) as store:
        assert store._scalar("SELECT primary_budget FROM runs WHERE id = 2") == 0
        assert store._scalar("SELECT count(DISTINCT budget) FROM answers WHERE run_id = 2") == 1
    lines[0]["bundle_budget"] = "lots"
    mixed.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    code, err = _run(capsys, "import", str(mixed), "--store", str(other))
    assert code == 2 and f"{mixed}:1: bundle_budget: must be a whole number of tokens" in err


def test_an_exported_run_brings_its_gold_answers_to_a_new_store(project, tmp_path, capsys):
    db, questions = map(str, project)
    assert main(["run", "--questions", questions, "--budgets", "500", "--store", db]) == 0
    out = tmp_path / "run.jsonl"
    assert main(["export", "latest", "--jsonl", "-o", str(out), "--store", db]) == 0
    other = tmp_path / "other.db"
    assert main(["import", str(out), "--store", str(other)]) == 0
    with open_store(db) as a, open_store(other) as b:
        gold = "SELECT question_id, gold_answer FROM questions ORDER BY question_id"
        assert a._query(gold) == b._query(gold) and all(r["gold_answer"] for r in b._query(gold))
    # and grading offline then works in the new store (the rule grader needs a gold answer)
    assert main(["grade-offline", "--store", str(other)]) == 0


def test_skip_invalid_with_no_good_line_says_what_is_wrong_with_each(tmp_path, capsys):
    path = tmp_path / "log.jsonl"
    path.write_text('{"question_id": "x", "question": "q", "answer": 5}\n{"question_id": "y"}\n', encoding="utf-8")
    code, err = _run(capsys, "import", str(path), "--skip-invalid", "--store", str(tmp_path / "s.db"))
    assert code == 2 and err.splitlines() == [
        f"{path}:1: answer: must be a string, got int", f"{path}:2: question: missing",
        f"{path}:2: answer: missing: a harness line needs answer, a comparison line raw_answer or bundle_answer",
        f"{path}: no importable lines", "gradedesk: 4 problem(s); nothing was stored"]
    assert not (tmp_path / "s.db").exists()
