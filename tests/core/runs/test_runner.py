"""Benchmark runs end to end on a real store and a small repository written here: raw vs bundled, budgets, resume."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.runs.prompts import BUNDLE_SYSTEM, RAW_SYSTEM
from gradedesk.core.evidence.stored import load_bundle
from gradedesk.core.runs.runner import parse_budgets, run_benchmark
from gradedesk.core.store.run_records import list_runs, resolve_run
from gradedesk.core.evidence.bundle import validate
from gradedesk.core.errors import UserError
from gradedesk.core.index.indexer import index_repository
from gradedesk.core.providers import EndpointUnreachable, OfflineExtractiveProvider, OpenAICompatibleProvider
from gradedesk.core.store.connection import open_store

from tests.fixtures.shop import QUESTIONS, make_repo

def fast_provider(server, **kw):
    kw.setdefault("backoff_base", 0.005)
    kw.setdefault("max_retries", 1)
    return OpenAICompatibleProvider("gpt-4o-mini", server.base_url, **kw)


def test_offline_run_answers_raw_and_every_budget_and_keeps_bundles(project):
    db, questions = project
    with open_store(db) as store:
        summary = run_benchmark(store, str(questions), OfflineExtractiveProvider(), budgets="300,600")
        assert (summary.questions, summary.answers_total, summary.answered_now, summary.failed_now) == (3, 9, 9, 0)
        run = store._query("SELECT * FROM runs")[0]
        assert run["provider"] == "offline-extractive" and run["model"] == "extractive/2"
        assert json.loads(run["budgets"]) == [300, 600] and run["primary_budget"] == 600
        assert run["raw_k"] == 10 and run["tokenizer"] == "tiktoken/o200k_base" and run["endpoint_host"] is None
        assert json.loads(run["prompt_versions"]) == {"raw_system": "1", "bundle_system": "2"}
        prompts = {r["name"]: r["text"] for r in store._query("SELECT * FROM prompts")}
        assert prompts == {"raw_system": RAW_SYSTEM.text, "bundle_system": BUNDLE_SYSTEM.text}
        answers = store._query("SELECT * FROM answers ORDER BY question_pk, method DESC, budget")
        assert [(a["method"], a["budget"]) for a in answers[:3]] == [("raw", 0), ("bundle", 300), ("bundle", 600)]
        assert all(a["status"] == "ok" and a["tokens_counted"] == 1 and a["attempts"] == 1 for a in answers)
        for a in answers:
            if a["method"] == "raw":
                hits = json.loads(a["evidence"])
                assert a["bundle_id"] is None and 0 < len(hits) <= 10
                assert [h["retrieval_rank"] for h in hits] == list(range(1, len(hits) + 1))
                assert "(File: shop/" in a["text"] or "insufficient" in a["text"]
            else:
                bundle = load_bundle(store, a["bundle_id"]).bundle
                assert validate(bundle) == [] and bundle.token_budget == a["budget"]
                assert bundle.total_tokens <= a["budget"]
                assert json.loads(a["evidence_files"]) == list(dict.fromkeys(s.file_path for s in bundle.snippets))
                assert "[Evidence" in a["text"] or "insufficient" in a["text"]
        discount = [a for a in answers if a["question_pk"] == answers[0]["question_pk"]]
        assert "apply_discount" in discount[0]["text"] and "apply_discount" in discount[2]["text"]


def test_same_command_resumes_and_other_config_makes_a_new_run(project):
    db, questions = project
    with open_store(db) as store:
        first = run_benchmark(store, str(questions), OfflineExtractiveProvider(), budgets=[400])
        again = run_benchmark(store, str(questions), OfflineExtractiveProvider(), budgets=[400])
        assert not again.created and again.run_id == first.run_id
        assert (again.already_done, again.answered_now) == (6, 0)
        assert store._scalar("SELECT count(*) FROM answers") == 6 and store._scalar("SELECT count(*) FROM bundles") == 3
        other = run_benchmark(store, str(questions), OfflineExtractiveProvider(), budgets=[400], label="b")
        assert other.created and other.run_id != first.run_id
        assert resolve_run(store, "latest") == other.run_id == resolve_run(store, None)
        assert resolve_run(store, str(first.run_id)) == first.run_id
        with pytest.raises(UserError, match="no run 99"):
            resolve_run(store, 99)
        listed = list_runs(store)
        assert [(r["id"], r["questions"], r["answered"], r["failed"]) for r in listed] == [
            (other.run_id, 3, 6, 0), (first.run_id, 3, 6, 0)]


def test_endpoint_run_records_failures_and_resume_retries_them(project, chat_server):
    db, questions = project
    chat_server.fail_next(400, times=2)  # not retryable: recorded at once
    with open_store(db) as store:
        first = run_benchmark(store, str(questions), fast_provider(chat_server), budgets=[500], concurrency=1)
        assert (first.answered_now, first.failed_now) == (4, 2)
        failed = store._query("SELECT * FROM answers WHERE status = 'error'")
        assert all("HTTP 400" in a["error"] and a["attempts"] == 1 and a["text"] is None for a in failed)
        run = store._query("SELECT * FROM runs")[0]
        assert run["provider"] == "openai-compatible" and run["model"] == "gpt-4o-mini"
        assert run["endpoint_host"] == chat_server.base_url.split("/")[2]
        assert len(chat_server.requests) == 6
        # raw prompts carry File: blocks, bundled prompts carry evidence labels
        systems = [r["messages"][0]["content"] for r in chat_server.requests]
        assert {RAW_SYSTEM.text, BUNDLE_SYSTEM.text} == set(systems)
        for body in chat_server.requests:
            user = body["messages"][1]["content"]
            assert user.startswith("Question: ")
            assert ("File: shop/" in user) if body["messages"][0]["content"] == RAW_SYSTEM.text else (
                "[Evidence 1]" in user)
        again = run_benchmark(store, str(questions), fast_provider(chat_server), budgets=[500])
        assert again.run_id == first.run_id and (again.already_done, again.answered_now) == (4, 2)
        assert len(chat_server.requests) == 8  # only the two failures were asked again
        retried = store._query(f"SELECT * FROM answers WHERE id IN ({','.join(str(a['id']) for a in failed)})")
        assert all(a["status"] == "ok" and a["error"] is None and a["attempts"] == 2 for a in retried)
        assert all(a["tokens_counted"] == 0 and a["cost_usd"] > 0 for a in retried)
        # a retried bundled answer keeps exactly one bundle
        assert store._scalar("SELECT count(*) FROM bundles") == 3


def test_retryable_faults_are_retried_inside_one_run(project, chat_server):
    db, questions = project
    chat_server.fail_next(429)
    chat_server.malformed_next()
    chat_server.wrong_schema_next()
    with open_store(db) as store:
        summary = run_benchmark(store, str(questions), fast_provider(chat_server, max_retries=3), budgets=[500],
                                concurrency=1)
        assert (summary.answered_now, summary.failed_now) == (6, 0)
        assert store._scalar("SELECT sum(attempts) FROM answers") == 9


def test_unreachable_endpoint_stops_the_run_with_one_line_and_leaves_no_empty_run(project):
    db, questions = project
    provider = OpenAICompatibleProvider("m", "http://127.0.0.1:9/v1", max_retries=0, backoff_base=0.005)
    with open_store(db) as store:
        with pytest.raises(EndpointUnreachable, match=r"127\.0\.0\.1:9/v1: cannot connect"):
            run_benchmark(store, str(questions), provider, budgets=[500])
        # a new run that got no answer is not kept: it would become `latest` (a mistyped --base-url)
        assert store._scalar("SELECT count(*) FROM runs") == 0
        assert store._scalar("SELECT count(*) FROM answers") == 0


def test_questions_file_inside_the_repository_is_never_evidence(tmp_path):
    repo = make_repo(tmp_path / "shop-repo")
    questions = repo / "questions.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    with open_store(tmp_path / "s.db") as store:
        index_repository(store, repo, name="shop")
        run_benchmark(store, str(questions), OfflineExtractiveProvider(), budgets=[2000])
        files = {f for (ef,) in store._conn.execute("SELECT evidence_files FROM answers") for f in json.loads(ef)}
        assert "questions.jsonl" not in files and files
        assert store._scalar("SELECT count(*) FROM chunks WHERE file_path = 'questions.jsonl'") > 0


def test_bad_budgets_are_one_line_errors():
    assert parse_budgets("4000, 1000,1000") == [1000, 4000]
    with pytest.raises(UserError, match="--budgets: 'many' is not a whole number"):
        parse_budgets("1000,many")
    with pytest.raises(UserError, match="must be a positive"):
        parse_budgets("0")
