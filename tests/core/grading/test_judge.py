"""The LLM judge against the local chat-completions server: well-formed, malformed and wrong-schema replies, failed
calls and resume, repeats and consistency, LLM faithfulness/relevance stored under llm:<model>."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.grading.judge import RUBRIC, RUBRIC_VERSION, judge_run, parse_verdict
from gradedesk.core.grading.judge_consistency import judge_consistency
from gradedesk.core.grading.llm_io import ReplyError
from gradedesk.core.grading.rubric_format import builtin_rubric
from gradedesk.core.providers.openai_compat import OpenAICompatibleProvider
from gradedesk.core.grading.scorers import FAITHFULNESS_SYSTEM
from gradedesk.core.store.connection import open_store
from tests.fixtures.grading import add_bundle_answer, add_question, add_raw_answer, add_run, hit, scores_of
from tests.fixtures.chat_server import system_of

GOOD = {"grade": "fully_correct", "failure_label": None, "confidence": 0.9, "reasoning": "Same key facts."}
PARTIAL = {"grade": "partially_correct", "failure_label": "retrieval_miss", "confidence": 0.6,
           "reasoning": "WAL missing."}


def provider(server, **kw) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider("judge-model", base_url=server.base_url, max_retries=1, backoff_base=0.01,
                                    timeout=5, concurrency=2, **kw)


def replies(judge: dict[str, str]):
    """A responder: the judge reply chosen by a marker in the graded answer; fixed replies for the scorers."""
    def respond(body: dict) -> str:
        system, user = system_of(body), body["messages"][1]["content"]
        if system == RUBRIC:
            for marker, reply in judge.items():
                if marker in user.split("BEGIN ANSWER")[1]:
                    return reply
            return json.dumps(GOOD)
        if system == FAITHFULNESS_SYSTEM:
            return '{"claims": [{"claim": "x", "supported": true}, {"claim": "y", "supported": false}]}'
        return '```json\n{"score": 1, "reason": "on topic"}\n```'
    return respond


@pytest.fixture
def run_store(tmp_path):
    store = open_store(tmp_path / "s.db")
    q = add_question(store, "q1", "What does open_store set?", "WAL mode and a busy timeout")
    run = add_run(store, model="answer-model")
    ids = {
        "good": add_raw_answer(store, run, q, "ANS-GOOD sets WAL", [hit("core/store.py", "open_store", "WAL")]),
        "malformed": add_bundle_answer(store, run, q, "ANS-MALFORMED", [hit("core/store.py")], budget=1000),
        "schema": add_bundle_answer(store, run, q, "ANS-SCHEMA", [hit("core/store.py")], budget=2000),
    }
    add_raw_answer(store, run, add_question(store, "q2", "No gold?", ""), "text", [])
    return store, run, ids


def test_parse_verdict_validates_schema():
    assert parse_verdict(json.dumps(GOOD)).grade == "fully_correct"
    assert parse_verdict(json.dumps(PARTIAL)).failure_label == "retrieval_miss"
    bad = [
        {**GOOD, "grade": "excellent"},
        {**GOOD, "failure_label": "hallucination"},          # fully_correct takes no label
        {**PARTIAL, "failure_label": None},                   # every other grade needs one
        {**PARTIAL, "failure_label": "grading_error"},        # not the judge's to give
        {**GOOD, "confidence": 1.5},
        {**GOOD, "confidence": "high"},
        {**GOOD, "confidence": True},
        {**GOOD, "reasoning": " "},
        {k: v for k, v in GOOD.items() if k != "reasoning"},
    ]
    for reply in bad:
        with pytest.raises(ReplyError):
            parse_verdict(json.dumps(reply))


def test_judge_grades_records_errors_and_scores(run_store, chat_server):
    store, run, ids = run_store
    chat_server.responder = replies({"ANS-MALFORMED": "I think it is fully correct!",
                                     "ANS-SCHEMA": json.dumps({"verdict": "fully_correct"})})
    report = judge_run(store, run, provider(chat_server))
    assert (report.grades_done, report.grading_errors, report.failed_calls) == (1, 2, 0)
    assert report.skipped_no_gold == 1
    rows = {r["answer_id"]: r for r in store._query("SELECT * FROM auto_grades WHERE grader_kind = 'judge'")}
    assert set(rows) == set(ids.values())
    good = rows[ids["good"]]
    assert (good["grade"], good["grader_model"], good["rubric_version"]) == ("fully_correct", "judge-model",
                                                                              RUBRIC_VERSION)
    assert good["tokens_in"] > 0 and good["created_at"]
    for key in ("malformed", "schema"):
        r = rows[ids[key]]
        assert (r["grade"], r["failure_label"]) == ("unsupported", "grading_error")
        assert r["raw_response"] and r["confidence"] is None
    # the store keeps the rubric file's normal form under its version; the judge reads the prompt made from it
    assert store._scalar("SELECT text FROM rubrics WHERE version = ?", (RUBRIC_VERSION,)) == builtin_rubric().text
    s = scores_of(store, ids["good"], "llm:judge-model")
    assert s["faithfulness"]["value"] == 0.5
    assert s["answer_relevance"]["value"] == 1.0
    # the judge saw question, gold, evidence and answer
    judged = [b for b in chat_server.requests if system_of(b) == RUBRIC][0]["messages"][1]["content"]
    for part in ("BEGIN QUESTION", "WAL mode and a busy timeout", "[Evidence 1] core/store.py", "BEGIN ANSWER"):
        assert part in judged
    assert all(b["response_format"] == {"type": "json_object"} for b in chat_server.requests)
    # resume: nothing left to do, no new requests
    before = len(chat_server.requests)
    again = judge_run(store, run, provider(chat_server))
    assert (again.grades_done, again.grading_errors, again.failed_calls) == (0, 0, 0)
    assert len(chat_server.requests) == before


def test_failed_calls_are_recorded_then_retried(run_store, chat_server):
    store, run, ids = run_store
    chat_server.responder = replies({})
    chat_server.fail_next(status=500, times=2)  # max_retries=1: the first task's two attempts both fail
    p = provider(chat_server, )
    p.concurrency = 1
    seen = []
    report = judge_run(store, run, p, scores=False, progress=lambda *args, **_: seen.append(args))
    assert report.failed_calls == 1 and report.grades_done == 2
    assert seen[-1] == ("judge", 3, 3, 1)
    failed = store._query("SELECT * FROM auto_grades WHERE failure_label = 'grading_error'")
    assert len(failed) == 1 and failed[0]["raw_response"] is None
    assert "HTTP 500" in failed[0]["reasoning"]
    again = judge_run(store, run, provider(chat_server), scores=False)
    assert (again.grades_done, again.failed_calls) == (1, 0)
    assert store._scalar("SELECT count(*) FROM auto_grades WHERE failure_label = 'grading_error'") == 0
    assert store._scalar("SELECT count(*) FROM auto_grades") == 3


def test_repeat_reports_consistency(run_store, chat_server):
    store, run, ids = run_store
    calls = {"n": 0}

    def flaky(body: dict) -> str:
        if system_of(body) == RUBRIC and "ANS-SCHEMA" in body["messages"][1]["content"]:
            calls["n"] += 1
            return json.dumps(GOOD if calls["n"] == 1 else PARTIAL)
        return json.dumps(GOOD)

    chat_server.responder = flaky
    p = provider(chat_server)
    p.concurrency = 1
    report = judge_run(store, run, p, repeat=2, scores=False)
    assert report.grades_done == 6
    assert sorted(r["repeat_index"] for r in store._query("SELECT repeat_index FROM auto_grades")) == [0, 0, 0, 1, 1, 1]
    c = judge_consistency(store, run)
    assert (c["answers_repeated"], c["identical"]) == (3, 2)
    assert c["share_identical"] == pytest.approx(2 / 3)
    assert [(x["answer_id"], x["grades"]) for x in c["changed"]] == [(ids["schema"],
                                                                      ["fully_correct", "partially_correct"])]
    assert judge_consistency(store, run, model="other")["share_identical"] is None


def test_endpoint_without_json_mode_is_asked_again_without_it(run_store, chat_server):
    store, run, ids = run_store
    chat_server.responder = replies({})
    chat_server.fail_next(status=400)  # e.g. a server that rejects response_format
    p = provider(chat_server)
    p.concurrency = 1
    report = judge_run(store, run, p, scores=False)
    assert (report.grades_done, report.failed_calls) == (3, 0)
    assert "response_format" in chat_server.requests[0]
    assert all("response_format" not in b for b in chat_server.requests[1:])


def test_answers_with_only_grading_errors_are_not_counted_as_consistent(run_store, chat_server):
    store, run, ids = run_store
    chat_server.responder = lambda body: "not json at all"  # every reply unusable, in every repeat
    p = provider(chat_server)
    p.concurrency = 1
    judge_run(store, run, p, repeat=2, scores=False)
    c = judge_consistency(store, run)
    assert (c["answers_repeated"], c["all_errors"], c["share_identical"]) == (0, 3, None)
