"""`run` and `judge` against what real model servers do (the chat stand-in plays each: a base model that never stops,
a server that takes connections and never answers, a proxy that echoes the key, a reasoning model, a judge model that
does not follow the rubric) and against corrected gold answers: nothing hangs, nothing leaks, every failure is counted
and says what to do."""

from __future__ import annotations

import json
import time

from gradedesk.core.store.connection import open_store
from tests.fixtures.shop import QUESTIONS
from tests.fixtures.cli import cli

KEY = "sk-live-0123456789abcdef"


def endpoint(server, *extra) -> list[str]:
    return ["--model", "gemma3-270m", "--base-url", server.base_url, *extra]


def answered_run(project, server, capsys) -> str:
    db, questions = map(str, project)
    code, _, err = cli(capsys, "run", "--questions", questions, "--budgets", "500", "--store", db, *endpoint(server))
    assert code == 0, err
    return db


def test_a_model_that_never_stops_is_cut_at_max_tokens_and_its_answers_are_marked_truncated(project, chat_server,
                                                                                           capsys, tmp_path):
    chat_server.rambles = True  # a base model: without max_tokens it would never reply (the client times out)
    db, questions = map(str, project)
    code, out, err = cli(capsys, "run", "--questions", questions, "--budgets", "500", "--store", db, "--json",
                         *endpoint(chat_server, "--max-tokens", "30", "--timeout", "5"))
    assert code == 0, err
    summary = json.loads(out)
    assert (summary["answered_now"], summary["failed_now"], summary["truncated_now"]) == (6, 0, 6)
    assert {r["max_tokens"] for r in chat_server.answer_requests} == {30}
    with open_store(db) as store:
        rows = store._query("SELECT finish_reason, tokens_out FROM answers")
        assert {(r["finish_reason"], r["tokens_out"]) for r in rows} == {("length", 30)}
        assert json.loads(store._scalar("SELECT config FROM runs"))["max_tokens"] == 30
    code, out, _ = cli(capsys, "summary", "--store", db, "--json")
    assert [a["truncated"] for a in json.loads(out)["answers"]] == [3, 3]
    assert "6 answer(s) were truncated" in " ".join(json.loads(out)["warnings"])
    exported = tmp_path / "run.jsonl"
    assert cli(capsys, "export", "latest", "--jsonl", "-o", exported, "--store", db)[0] == 0
    line = json.loads(exported.read_text(encoding="utf-8").splitlines()[0])
    assert line["raw_truncated"] is True and line["bundle_finish_reason"] == "length"
    # another limit is another run, as another budget is
    code, out, _ = cli(capsys, "run", "--questions", questions, "--budgets", "500", "--store", db,
                       *endpoint(chat_server, "--max-tokens", "40"))
    assert code == 0 and out.startswith("run 2 (created")


def test_a_server_that_never_answers_stops_run_within_three_timeouts_and_keeps_no_run(project, chat_server, capsys):
    chat_server.never_answers = True
    db, questions = map(str, project)
    started = time.perf_counter()
    code, out, err = cli(capsys, "run", "--questions", questions, "--budgets", "500", "--store", db,
                         *endpoint(chat_server, "--timeout", "0.5"))
    assert time.perf_counter() - started < 5  # not 6 calls x 5 attempts x 0.5 s plus backoff
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert chat_server.base_url in err and "--timeout 0.5s" in err and "none answered" in err
    with open_store(db) as store:
        assert store._scalar("SELECT count(*) FROM runs") == 0 and store._scalar("SELECT count(*) FROM answers") == 0
        assert store._scalar("SELECT count(*) FROM bundles") == 0


def test_a_server_that_never_answers_stops_judge_within_three_timeouts(project, chat_server, capsys):
    db = answered_run(project, chat_server, capsys)
    chat_server.never_answers = True
    started = time.perf_counter()
    code, _, err = cli(capsys, "judge", "--store", db, *endpoint(chat_server, "--timeout", "0.5"))
    assert time.perf_counter() - started < 5
    assert code == 2 and "no reply within --timeout 0.5s" in err.splitlines()[-1]


def test_the_api_key_never_reaches_the_store_an_export_or_stderr(project, chat_server, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("TEAM_KEY", KEY)
    db, questions = map(str, project)
    args = ["run", "--questions", questions, "--budgets", "500", "--store", db, "--api-key-env", "TEAM_KEY",
            "--max-retries", "0", "--concurrency", "1", *endpoint(chat_server)]
    chat_server.echo_auth_next(500)  # "upstream failed for key Bearer sk-live-..."
    chat_server.echo_auth_next(429)
    code, out, err = cli(capsys, *args)
    assert code == 1 and chat_server.headers[0]["authorization"] == f"Bearer {KEY}"
    exported = tmp_path / "run.jsonl"
    assert cli(capsys, "export", "latest", "--jsonl", "-o", exported, "--store", db)[0] == 0
    chat_server.echo_auth_next(401)
    code, out2, err2 = cli(capsys, "judge", "--store", db, "--api-key-env", "TEAM_KEY", *endpoint(chat_server))
    assert code == 2 and "HTTP 401 (upstream failed for key Bearer [redacted])" in err2
    with open_store(db) as store:
        errors = [r[0] for r in store._conn.execute("SELECT error FROM answers WHERE status = 'error'")]
        assert errors == ["HTTP 500: upstream failed for key Bearer [redacted]",
                          "HTTP 429: upstream failed for key Bearer [redacted]"]
    dump = "\n".join(open_store(db)._conn.iterdump())
    for text in (out, err, out2, err2, exported.read_text(encoding="utf-8"), dump):
        assert KEY not in text and "0123456789abcdef" not in text


def test_run_without_questions_on_another_repository_refuses_instead_of_answering_gradedesks_benchmark(
        project, chat_server, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./benchmark-questions.jsonl here
    db, _ = map(str, project)
    code, out, err = cli(capsys, "run", "--store", db, *endpoint(chat_server))
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "gradedesk's own benchmark asks about gradedesk's code, not about 'shop'" in err and "--questions" in err
    assert chat_server.requests == []
    with open_store(db) as store:
        assert store._scalar("SELECT count(*) FROM runs") == 0


def test_judge_counts_rejected_llm_score_replies_and_fails_when_no_reply_was_usable(project, chat_server, capsys):
    db = answered_run(project, chat_server, capsys)
    chat_server.responder = lambda body: '{"score": 0.02, "reason": "close"}'  # what a small model sends for everything
    code, out, err = cli(capsys, "judge", "--store", db, "--json", *endpoint(chat_server))
    judge = json.loads(out)["judge"]
    assert (judge["grades_done"], judge["grading_errors"], judge["scores_done"], judge["unusable_scores"]) == (
        0, 6, 0, 12)
    assert judge["failed_calls"] == 0
    # grouped by what the parser refused, a count and an example each
    assert code == 1 and "gradedesk: 6 replies unusable: grade (e.g. " in err
    assert "gradedesk: 6 replies unusable: claims (e.g. " in err and "claims: missing" in err
    assert "gradedesk: 6 replies unusable: score (e.g. " in err and "score: must be 0, 0.5 or 1, got 0.02" in err


def test_a_verdict_cut_at_max_tokens_is_a_grading_error_that_says_so(project, chat_server, capsys):
    db = answered_run(project, chat_server, capsys)
    chat_server.rambles = True
    code, out, err = cli(capsys, "judge", "--store", db, "--json", "--no-scores",
                         *endpoint(chat_server, "--max-tokens", "20"))
    assert code == 1 and json.loads(out)["judge"]["truncated"] == 6
    assert {r["max_tokens"] for r in chat_server.answer_requests[6:]} == {20}
    with open_store(db) as store:
        grades = store._query("SELECT failure_label, reasoning, finish_reason FROM auto_grades "
                             "WHERE grader_kind = 'judge'")
    assert len(grades) == 6 and {g["failure_label"] for g in grades} == {"grading_error"}
    assert {g["finish_reason"] for g in grades} == {"length"}
    assert all("cut at --max-tokens 20" in g["reasoning"] for g in grades)


def test_a_reasoning_models_thinking_is_kept_apart_and_does_not_break_verdicts(project, chat_server, capsys):
    chat_server.reasoning = "Let me look at the evidence {first}."
    db = answered_run(project, chat_server, capsys)
    chat_server.responder = lambda body: ('<think>the gold says {"grade": "wrong"}</think>{"grade": "fully_correct", '
                                          '"failure_label": null, "confidence": 0.8, "reasoning": "Same facts."}')
    code, out, _ = cli(capsys, "judge", "--store", db, "--json", "--no-scores", *endpoint(chat_server))
    assert code == 0 and json.loads(out)["judge"]["grades_done"] == 6
    with open_store(db) as store:
        assert store._scalar("SELECT count(*) FROM auto_grades WHERE grader_kind = 'judge' "
                            "AND grade = 'fully_correct'") == 6
        answer = store._query("SELECT text, reasoning FROM answers LIMIT 1")[0]
    assert answer["reasoning"] == "Let me look at the evidence {first}." and answer["text"].startswith("echo: ")


def test_a_prompt_over_the_models_context_is_stored_as_such_and_not_retried(project, chat_server, capsys):
    db, questions = map(str, project)
    chat_server.fail_next(400, message="This model's maximum context length is 2048 tokens. However, you requested "
                                       "3018 tokens (3010 in the messages, 1008 in the completion).")
    code, _, _ = cli(capsys, "run", "--questions", questions, "--budgets", "500", "--store", db,
                     "--concurrency", "1", *endpoint(chat_server))
    assert code == 1 and len(chat_server.answer_requests) == 6
    with open_store(db) as store:
        error = store._scalar("SELECT error FROM answers WHERE status = 'error'")
    assert error.startswith("prompt of ") and "exceeds the model's context" in error
    assert error.endswith("use smaller --budgets or --max-tokens")


def test_an_unknown_model_stops_with_the_models_the_server_has(project, chat_server, capsys):
    chat_server.models = ["qwen2.5-0.5b"]
    db, questions = map(str, project)
    code, out, err = cli(capsys, "run", "--questions", questions, "--budgets", "500", "--store", db,
                         *endpoint(chat_server))
    assert code == 2 and "is model 'gemma3-270m' served there? It serves: qwen2.5-0.5b" in err


def test_a_corrected_gold_answer_marks_grades_stale_and_grading_again_replaces_them(project, chat_server, capsys,
                                                                                   tmp_path):
    db, questions = map(str, project)
    assert cli(capsys, "run", "--questions", questions, "--budgets", "500", "--store", db)[0] == 0
    verdict = {"grade": "partially_correct", "failure_label": "retrieval_miss", "confidence": 0.5, "reasoning": "x"}
    chat_server.responder = lambda body: json.dumps(verdict)
    assert cli(capsys, "judge", "--store", db, "--no-scores", *endpoint(chat_server))[0] == 0
    (tmp_path / "fixed").mkdir()
    corrected = tmp_path / "fixed" / "shop-questions.jsonl"  # the same benchmark (same file name), one gold fixed
    fixed = [dict(q, gold_answer=q["gold_answer"] + " It rounds to cents.") if q["id"] == QUESTIONS[0]["id"] else q
             for q in QUESTIONS]
    corrected.write_text("".join(json.dumps(q) + "\n" for q in fixed), encoding="utf-8")
    assert cli(capsys, "run", "--questions", corrected, "--budgets", "500", "--store", db)[0] == 0
    code, out, _ = cli(capsys, "summary", "1", "--store", db, "--json")
    assert json.loads(out)["stale_grades"] == {"judge": 2, "rule": 2}  # judge ran the rule grader first
    assert any("4 machine grade(s) were made against a gold answer that has been corrected" in w
               for w in json.loads(out)["warnings"])
    asked = len(chat_server.answer_requests)
    code, out, err = cli(capsys, "judge", "1", "--store", db, "--no-scores", "--json", *endpoint(chat_server))
    judge, offline = json.loads(out)["judge"], json.loads(out)["offline"]
    assert code == 0 and (judge["grades_done"], judge["stale_regraded"]) == (2, 2)
    assert (offline["rule_graded"], offline["stale_regraded"]) == (2, 2)
    assert len(chat_server.answer_requests) - asked == 2  # only the two stale grades were asked again
    code, out, _ = cli(capsys, "summary", "1", "--store", db, "--json")
    assert json.loads(out)["stale_grades"] == {}
