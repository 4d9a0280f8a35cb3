"""The grading commands end to end on a real temporary store: grade-offline, judge (local chat server), summary, compare."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.grading.judge import RUBRIC, RUBRIC_VERSION
from gradedesk.core.store.connection import open_store
from tests.fixtures.grading import add_bundle_answer, add_question, add_raw_answer, add_run, hit
from tests.fixtures.cli import cli
from tests.fixtures.chat_server import system_of

CODE = "def open_store(path):\n    conn.execute('PRAGMA journal_mode = WAL')"


def make_run(store, model="answer-model") -> int:
    q1 = store._scalar("SELECT id FROM questions WHERE question_id = 'q1'") or add_question(
        store, "q1", "What journal mode does open_store set?", "open_store sets journal_mode to WAL.",
        category="lookup", files=["core/store.py"], symbols=["open_store"])
    q2 = store._scalar("SELECT id FROM questions WHERE question_id = 'q2'") or add_question(
        store, "q2", "Explain the tokenizer cache.", "get_tokenizer caches tokenizers with lru_cache.",
        category="explain")
    run = add_run(store, model=model)
    add_raw_answer(store, run, q1, "open_store sets journal_mode to WAL.", [hit("core/store.py", "open_store", CODE)])
    add_bundle_answer(store, run, q1, "I don't know.", [hit("core/tokens.py", "get_tokenizer", "def get_tokenizer")])
    add_raw_answer(store, run, q2, "It uses reset_cache() in cache/manager.py.", [hit("core/tokens.py")])
    add_bundle_answer(store, run, q2, "get_tokenizer caches with lru_cache.", [hit("core/tokens.py", "_load",
                                                                                   "@functools.lru_cache")])
    return run


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "store.db"
    with open_store(path) as store:
        make_run(store)
    return str(path)


def test_grade_offline_then_summary(db, capsys):
    code, out, _ = cli(capsys, "grade-offline", "latest", "--store", db)
    assert code == 0 and "rule grader rules/1 (not an LLM judge)" in out
    code, out, _ = cli(capsys, "summary", "--store", db)
    assert code == 0
    for part in ("== grades by method", "rule grader rules/1", "bundle@2000", "context_precision",
                 "offline-rapidfuzz", "faithfulness", "== cost: answering vs grading", "not an LLM judge"):
        assert part in out, part
    code, out, _ = cli(capsys, "summary", "1", "--store", db, "--json")
    data = json.loads(out)
    raw = [g for g in data["grades"] if g["method"] == "raw"][0]
    assert (raw["grader"], raw["n"], raw["fully_correct"], raw["wrong"]) == ("rule grader rules/1", 2, 1, 1)


def test_judge_with_repeat_and_self_evaluation(db, capsys, chat_server):
    reply = {"grade": "partially_correct", "failure_label": "retrieval_miss", "confidence": 0.5, "reasoning": "r"}
    chat_server.responder = lambda body: (json.dumps(reply) if system_of(body) == RUBRIC
                                          else '{"score": 1, "reason": "ok"}' if "score" in
                                          body["messages"][0]["content"] else '{"claims": []}')
    code, out, err = cli(capsys, "judge", "--store", db, "--model", "answer-model", "--base-url",
                         chat_server.base_url, "--repeat", "2", "--max-retries", "0")
    assert code == 0, err
    assert f"judge answer-model ({RUBRIC_VERSION}), repeat 2: 8 graded now" in out
    assert "judge consistency: 4/4 answers graded identically" in out
    assert "self-evaluation bias" in err
    code, out, _ = cli(capsys, "summary", "--store", db)
    assert "self-evaluation bias" in out and "llm:answer-model" in out
    assert f"judge answer-model ({RUBRIC_VERSION})" in out


def test_judge_without_endpoint_grades_offline_only(db, capsys):
    code, out, err = cli(capsys, "judge", "--store", db, "--json")
    assert code == 0
    assert json.loads(out)["judge"] is None
    assert "no judge endpoint given" in err and "not an LLM judge" in err


def test_judge_failed_calls_exit_1_then_resume(db, capsys, chat_server):
    chat_server.fail_next(status=500, times=4)  # one failed attempt for each of the 4 answers (no retries)
    code, _, err = cli(capsys, "judge", "--store", db, "--model", "judge-x", "--base-url", chat_server.base_url,
                       "--max-retries", "0", "--no-scores")
    assert code == 1 and "run the same command again to retry" in err
    chat_server.responder = lambda body: json.dumps(
        {"grade": "fully_correct", "failure_label": None, "confidence": 1, "reasoning": "ok"})
    assert chat_server.pending_faults == 0
    code, out, _ = cli(capsys, "judge", "--store", db, "--model", "judge-x", "--base-url", chat_server.base_url,
                       "--no-scores", "--json")
    assert code == 0 and json.loads(out)["judge"]["grades_done"] == 4


def test_compare_two_runs(db, capsys):
    with open_store(db) as store:
        make_run(store)
    assert cli(capsys, "grade-offline", "1", "--store", db)[0] == 0
    assert cli(capsys, "grade-offline", "2", "--store", db)[0] == 0
    code, out, _ = cli(capsys, "compare", "1", "2", "--store", db)
    assert code == 0 and "run 1 -> run 2 by rule grader rules/1: 4 answers matched" in out
    code, out, _ = cli(capsys, "compare", "1", "latest", "--store", db, "--json")
    data = json.loads(out)
    assert data["changed"] == [] and {c["category"] for c in data["categories"]} == {"lookup", "explain"}


@pytest.mark.parametrize("argv, message", [
    (("summary", "99"), "no run 99"),
    (("judge", "--repeat", "0"), "--repeat: must be at least 1"),
    (("compare", "1", "x"), "'x' is not a run id"),
])
def test_bad_input_is_one_line_exit_2(db, capsys, argv, message):
    code, out, err = cli(capsys, *argv, "--store", db)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_missing_store_is_exit_2(tmp_path, capsys):
    code, _, err = cli(capsys, "summary", "--store", str(tmp_path / "none.db"))
    assert code == 2 and "no such store" in err
    assert not (tmp_path / "none.db").exists()


def test_end_to_end_through_a_real_offline_run(tmp_path, capsys, chat_server):
    """Index a small repository, answer raw vs bundled offline (core.bench), then grade, judge and summarize."""
    from gradedesk.core.runs.runner import run_benchmark
    from gradedesk.core.index.indexer import index_repository
    from gradedesk.core.providers import OfflineExtractiveProvider

    repo = tmp_path / "shop"
    repo.mkdir()
    (repo / "cart.py").write_text(
        "class Cart:\n    def total(self, items):\n        \"\"\"Sum of price times quantity.\"\"\"\n"
        "        return sum(i.price * i.quantity for i in items)\n")
    (repo / "tax.py").write_text("VAT_RATE = 0.2\n\ndef add_vat(amount):\n    return amount * (1 + VAT_RATE)\n")
    questions = tmp_path / "bench.jsonl"
    questions.write_text("\n".join(json.dumps(q) for q in (
        {"id": "t1", "question": "How does Cart.total compute the total?", "category": "lookup",
         "gold_answer": "Cart.total sums price times quantity of the items.", "expected_files": ["cart.py"],
         "expected_symbols": ["Cart.total"]},
        {"id": "t2", "question": "What VAT rate does add_vat use?", "category": "lookup",
         "gold_answer": "add_vat uses VAT_RATE = 0.2.", "expected_files": ["tax.py"]},
    )) + "\n")
    db = tmp_path / "store.db"
    with open_store(db) as store:
        index_repository(store, repo, name="shop")
        run = run_benchmark(store, str(questions), OfflineExtractiveProvider(), budgets=[500]).run_id
    assert cli(capsys, "grade-offline", str(run), "--store", str(db))[0] == 0
    chat_server.responder = lambda body: json.dumps(
        {"grade": "fully_correct", "failure_label": None, "confidence": 0.9, "reasoning": "Same facts."}
        if system_of(body) == RUBRIC else {"score": 1, "reason": "on topic"}
        if "score" in body["messages"][0]["content"] else {"claims": [{"claim": "c", "supported": True}]})
    code, out, err = cli(capsys, "judge", str(run), "--store", str(db), "--model", "judge-m", "--base-url",
                         chat_server.base_url)
    assert code == 0, err
    code, out, _ = cli(capsys, "summary", str(run), "--store", str(db), "--json")
    s = json.loads(out)
    assert [a["method"] for a in s["answers"]] == ["raw", "bundle@500"]
    assert {g["grader"] for g in s["grades"]} == {f"judge judge-m ({RUBRIC_VERSION})", "rule grader rules/1"}
    judged = [g for g in s["grades"] if g["grader"].startswith("judge")]
    assert all(g["n"] == 2 and g["pass_rate"] == 1.0 for g in judged)
    recall = {(r["method"], r["metric"]): r for r in s["retrieval"]}
    assert recall[("raw", "file_recall")]["n"] == 2 and recall[("raw", "file_recall")]["mean"] is not None
    assert recall[("raw", "symbol_recall")]["unlabelled"] == 1  # t2 has no expected_symbols
    assert {(x["scorer"], x["metric"]) for x in s["answer_scores"]} >= {("llm:judge-m", "faithfulness"),
                                                                        ("offline-rapidfuzz", "faithfulness")}
    assert s["run"]["provider"] == "offline-extractive"


def test_unreachable_judge_endpoint_is_one_line_exit_2(db, capsys):
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code, out, err = cli(capsys, "judge", "--store", db, "--model", "m", "--base-url", f"http://127.0.0.1:{port}/v1",
                         "--max-retries", "0", "--no-scores")
    assert code == 2 and "cannot connect" in err and f"127.0.0.1:{port}" in err
    assert len(err.strip().splitlines()) == 1
    with open_store(db) as store:
        assert store._scalar("SELECT count(*) FROM auto_grades WHERE grader_kind = 'judge'") == 0


def test_a_second_judge_on_a_run_being_judged_is_refused_saying_which_process_holds_it(db, capsys, chat_server):
    import subprocess
    import sys
    import threading

    from tests.fixtures import REPO_ROOT

    reply = {"grade": "fully_correct", "failure_label": None, "confidence": 0.9, "reasoning": "r"}
    asked, go_on = threading.Event(), threading.Event()

    def held(body: dict) -> str:  # the first judge's first call waits here while the second one starts
        asked.set()
        go_on.wait(60)
        return (json.dumps(reply) if system_of(body) == RUBRIC
                else '{"score": 1, "reason": "ok"}' if "score" in body["messages"][0]["content"] else '{"claims": []}')

    chat_server.responder = held
    judge = ["judge", "--store", db, "--model", "judge-m", "--base-url", chat_server.base_url, "--max-retries", "0",
             "--no-scores", "--json"]
    first = subprocess.Popen([sys.executable, "-m", "gradedesk.tui", *judge], cwd=REPO_ROOT, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert asked.wait(120), "the first judge never called"
        code, out, err = cli(capsys, *judge)
        assert (code, out) == (2, "")
        assert err.startswith(f"gradedesk: error: run 1 of {db} is being judged by process {first.pid} on ")
        assert err.endswith(": wait for it to finish, or stop it and judge again (calls already made are kept)\n")
    finally:
        go_on.set()
        out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert json.loads(out)["judge"]["grades_done"] == 4
    code, out, _ = cli(capsys, *judge)  # the run is free again: nothing left to call
    assert code == 0 and json.loads(out)["judge"]["grades_done"] == 0
