"""The pairwise judge against the local chat stand-in: both orders asked, verdicts only where they agree, position
bias of a judge that always answers "1", a judge that answers from content, repeats and stability, unusable replies
and failed calls."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.agreement.pairwise import pairwise_figures
from gradedesk.core.agreement.report import Settings
from gradedesk.core.grading.llm_io import ReplyError
from gradedesk.core.grading.pairwise_judge import pairwise_run, parse_pairwise_reply
from gradedesk.core.grading.pairwise_rubric import builtin_pairwise_rubric
from gradedesk.core.grading.pairwise_verdicts import CONSISTENT, INCONSISTENT, pair_verdicts
from gradedesk.core.grading.rubric_format import builtin_rubric
from gradedesk.core.providers.openai_compat import OpenAICompatibleProvider
from gradedesk.core.store.connection import open_store
from tests.fixtures.pairwise import TRUE_PREFERENCE, TRUE_WIN_RATE, build_pairwise_run, content_judge, first_judge
from tests.fixtures.chat_server import system_of


def provider(server, concurrency: int = 2) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider("pair-judge", base_url=server.base_url, max_retries=1, backoff_base=0.01,
                                    timeout=5, concurrency=concurrency)


@pytest.fixture
def run_store(tmp_path):
    store = open_store(tmp_path / "s.db")
    run, pks = build_pairwise_run(store)
    yield store, run, pks
    store.close()


def test_parse_pairwise_reply():
    assert parse_pairwise_reply('{"winner": "2", "reasoning": "more facts"}') == ("2", "more facts")
    assert parse_pairwise_reply('```json\n{"winner": 1, "reasoning": "x"}\n```')[0] == "1"
    assert parse_pairwise_reply('{"winner": "Tie", "reasoning": "same"}')[0] == "tie"
    for bad in ('{"winner": "A", "reasoning": "x"}', '{"winner": "1"}', '{"winner": "1", "reasoning": " "}',
                "Answer 1 is better", '{"winner": true, "reasoning": "x"}'):
        with pytest.raises(ReplyError):
            parse_pairwise_reply(bad)


def test_each_pair_is_asked_in_both_orders_with_each_answer_after_its_own_evidence(run_store, chat_server):
    store, run, _ = run_store
    chat_server.responder = content_judge
    report = pairwise_run(store, run, provider(chat_server))
    assert report.pairs == 6 and report.replies_done == 12 and report.unusable == report.failed_calls == 0
    sent = chat_server.answer_requests
    assert {system_of(r) for r in sent} == {builtin_pairwise_rubric().prompt}
    user = sent[0]["messages"][1]["content"]
    for part in ("BEGIN QUESTION", "BEGIN GOLD ANSWER", "BEGIN EVIDENCE FOR ANSWER 1", "BEGIN ANSWER 1",
                 "BEGIN EVIDENCE FOR ANSWER 2", "BEGIN ANSWER 2"):
        assert part in user
    assert user.index("raw evidence") < user.index("raw answer") or user.index("bundle evidence") < user.index(
        "bundled answer")
    firsts = [r["messages"][1]["content"].split("BEGIN ANSWER 1\n")[1][:4] for r in sent]
    assert sorted(firsts).count("GOOD") + sorted(firsts).count("BAD ") == 12
    # the grade rubric's text and version do not change; the pairwise rubric is stored apart
    assert builtin_rubric().version == "judge-rubric/3c1a70c7"
    assert store._scalar("SELECT count(*) FROM rubrics WHERE version = ?", (builtin_pairwise_rubric().version,)) == 1
    assert store._scalar("SELECT count(*) FROM auto_grades") == 0
    # resume: nothing is asked again
    chat_server.requests.clear()
    assert pairwise_run(store, run, provider(chat_server)).replies_done == 0 and not chat_server.answer_requests


def test_a_content_judge_gives_consistent_verdicts_and_the_win_rate_it_encodes(run_store, chat_server):
    store, run, pks = run_store
    chat_server.responder = content_judge
    pairwise_run(store, run, provider(chat_server))
    verdicts = pair_verdicts(store, run)
    assert {v.status for v in verdicts} == {CONSISTENT}
    names = {pk: qid for qid, pk in pks.items()}
    assert {names[v.question_pk]: v.verdict for v in verdicts} == TRUE_PREFERENCE
    figures = pairwise_figures(store, run, Settings(boot=200))
    b = figures.behaviour
    assert b.inconsistency_rate.value == 0 and b.tie_rate.value == pytest.approx(2 / 12)
    assert b.first_position_wins.value == pytest.approx(0.5)  # GOOD is first as often as second
    overall = figures.win_rates[0]
    assert overall.category is None and overall.judge.value == pytest.approx(TRUE_WIN_RATE)
    assert overall.judge.low <= TRUE_WIN_RATE <= overall.judge.high
    by_category = {w.category: w.judge.value for w in figures.win_rates[1:]}
    assert by_category == {"lookup": pytest.approx(2.5 / 3), "explain": pytest.approx(2 / 3)}


def test_a_judge_that_always_answers_1_has_position_bias_1_and_no_win_rate(run_store, chat_server):
    store, run, _ = run_store
    chat_server.responder = first_judge
    pairwise_run(store, run, provider(chat_server))
    verdicts = pair_verdicts(store, run)
    assert len(verdicts) == 6 and {v.status for v in verdicts} == {INCONSISTENT}
    assert all(v.verdict is None for v in verdicts)
    figures = pairwise_figures(store, run, Settings(boot=200))
    b = figures.behaviour
    assert b.first_position_wins.value == 1.0 and b.inconsistency_rate.value == 1.0 and b.tie_rate.value == 0
    judge = figures.win_rates[0].judge
    assert judge.value is None
    assert "contradicted itself across the two orders on all 6 pair(s)" in judge.reason


def test_unusable_replies_are_errors_and_failed_calls_are_asked_again(run_store, chat_server):
    store, run, _ = run_store
    chat_server.responder = lambda body: "Answer 1, clearly."
    chat_server.fail_next(500, times=2)  # both attempts of the first call (one call at a time)
    report = pairwise_run(store, run, provider(chat_server, concurrency=1))
    assert report.failed_calls == 1 and report.unusable == 11 and report.replies_done == 0 and report.nothing_usable
    rows = store._query("SELECT winner, preferred, error, raw_response FROM pairwise_verdicts")
    assert all(r["winner"] is None and r["preferred"] is None for r in rows)
    assert sum(r["error"].startswith("unusable judge reply: reply is not JSON") for r in rows) == 11
    assert sum(r["raw_response"] is None and r["error"].startswith("judge call failed") for r in rows) == 1
    b = pairwise_figures(store, run, Settings(boot=0)).behaviour
    assert b.replies == 0 and b.unusable == 12 and b.undecided == 6
    assert b.first_position_wins.value is None
    chat_server.responder = content_judge
    again = pairwise_run(store, run, provider(chat_server))
    assert again.replies_done == 1 and again.failed_calls == 0  # only the failed call is asked again


def test_repeats_measure_stability(run_store, chat_server):
    store, run, pks = run_store
    flips = {"n": 0}

    def wavering(body: dict) -> str:  # q4: "1" in both orders of the first repeat, "2" in both of the second
        if "What does q4 do?" in body["messages"][1]["content"]:
            flips["n"] += 1
            return json.dumps({"winner": "1" if flips["n"] <= 2 else "2", "reasoning": "torn"})
        return content_judge(body)

    chat_server.responder = wavering
    report = pairwise_run(store, run, provider(chat_server, concurrency=1), repeats=2)
    assert report.replies_done == 24
    verdicts = {v.question_pk: v for v in pair_verdicts(store, run)}
    assert verdicts[pks["q4"]].stability == 0.5 and verdicts[pks["q4"]].doubtful
    assert verdicts[pks["q1"]].stability == 1.0 and not verdicts[pks["q1"]].doubtful
    b = pairwise_figures(store, run, Settings(boot=100)).behaviour
    assert b.unstable_pairs == 1 and b.stability.value == pytest.approx((5 + 0.5) / 6)


def test_the_sampler_weighs_questions_whose_pairwise_verdict_is_inconsistent(run_store, chat_server):
    from gradedesk.core.review.sampler import question_usefulness
    from gradedesk.core.store.run_records import run_info

    store, run, pks = run_store
    before = dict(zip(*question_usefulness(store, run_info(store, run))))

    def q4_by_position(body: dict) -> str:  # inconsistent on q4 only
        return first_judge(body) if "What does q4 do?" in body["messages"][1]["content"] else content_judge(body)

    chat_server.responder = q4_by_position
    pairwise_run(store, run, provider(chat_server))
    after = dict(zip(*question_usefulness(store, run_info(store, run))))
    assert after[pks["q4"]] == pytest.approx(before[pks["q4"]] + 0.5)
    assert all(after[pk] == before[pk] for q, pk in pks.items() if q != "q4")
