"""Which side is better without a gold answer, end to end: a run read from a Langfuse export of an app in two variants
(`import-traces --side-by variant`: baseline vs rag-v2, no gold answers), judged by `gradedesk judge --pairwise`
against the local chat-completions stand-in. The gold-less pairs go to the judge under the reference-free pairwise
rubric (no GOLD ANSWER section), in both orders, and their replies keep that rubric's version; a question given a gold
answer, in the same run, is judged under the built-in pairwise rubric; the win rate and agreement figures read both,
each pair once, and name the sides; a second run asks nothing."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.agreement.pairwise import pairwise_figures
from gradedesk.core.agreement.report import Settings
from gradedesk.core.grading.pairwise_rubric import REFERENCE_FREE_FILE, builtin_pairwise_rubric, parse_pairwise_rubric
from gradedesk.core.store.connection import open_store
from tests.fixtures.cli import cli
from tests.fixtures.desk import rows
from tests.fixtures.pairwise import TRACE_STORY, content_judge, import_two_sided
from tests.fixtures.chat_server import system_of

FREE = builtin_pairwise_rubric(REFERENCE_FREE_FILE)
BUILTIN = builtin_pairwise_rubric()
GOLD = "save() is called by flush()."
REPLIES = "SELECT q.question_id, p.rubric_version, p.first_method, p.preferred FROM pairwise_verdicts p " \
          "JOIN questions q ON q.id = p.question_pk ORDER BY q.question_id, p.first_method"


@pytest.fixture
def traces_store(tmp_path, capsys):
    db = import_two_sided(capsys, tmp_path)
    assert {r["gold_answer"] for r in rows(db, "SELECT gold_answer FROM questions")} == {None}
    return db


def give_gold(db, case: str, gold: str) -> None:
    """A person wrote a gold answer for one case's question."""
    with open_store(db) as store, store.transaction():
        store._conn.execute("UPDATE questions SET gold_answer = ? WHERE question = ?", (gold, TRACE_STORY[case][0]))


def asked_about(server, case: str) -> list[list[dict]]:
    """The pairwise requests the stand-in received about `case`'s pair."""
    return [r["messages"] for r in server.answer_requests
            if f"BEGIN QUESTION\n{TRACE_STORY[case][0]}\n" in r["messages"][1]["content"]]


def judge(capsys, db, server, *more) -> tuple[int, str, str]:
    server.responder = content_judge
    return cli(capsys, "judge", "--pairwise", "--store", db, "--model", "pair-judge", "--base-url", server.base_url,
               "--max-retries", "0", *more)


def test_gold_less_pairs_are_compared_reference_free_and_a_gold_answered_one_under_the_built_in_rubric(
        traces_store, chat_server, capsys):
    give_gold(traces_store, "c3", GOLD)
    code, out, err = judge(capsys, traces_store, chat_server)
    assert code == 0, err

    for case in ("c1", "c2"):
        asked = asked_about(chat_server, case)
        assert len(asked) == 2 and {system_of({"messages": m}) for m in asked} == {FREE.prompt} and FREE.prompt != BUILTIN.prompt
        users = [m[1]["content"] for m in asked]
        assert not any("GOLD ANSWER" in u for u in users)
        # both orders: each variant's answer is ANSWER 1 once, after its own evidence
        firsts = sorted(u.split("BEGIN ANSWER 1\n")[1].split(" answer of ")[1].split(" to ")[0] for u in users)
        assert firsts == ["baseline", "rag-v2"]
        for u in users:
            evidence_1 = u.split("BEGIN EVIDENCE FOR ANSWER 1")[1].split("END EVIDENCE FOR ANSWER 1")[0]
            side_1 = u.split("BEGIN ANSWER 1\n")[1].split(" answer of ")[1].split(" to ")[0]
            assert f"evidence of {side_1} for {case}" in evidence_1
    (gold_1, gold_2) = asked_about(chat_server, "c3")
    assert {system_of({"messages": gold_1}), system_of({"messages": gold_2})} == {BUILTIN.prompt}
    assert f"BEGIN GOLD ANSWER\n{GOLD}\nEND GOLD ANSWER" in gold_1[1]["content"]

    assert [tuple(r.values()) for r in rows(traces_store, REPLIES)] == [
        ("case=c1", FREE.version, "bundle", "bundle"), ("case=c1", FREE.version, "raw", "bundle"),
        ("case=c2", FREE.version, "bundle", "tie"), ("case=c2", FREE.version, "raw", "tie"),
        ("case=c3", BUILTIN.version, "bundle", "raw"), ("case=c3", BUILTIN.version, "raw", "raw")]
    assert FREE.version in {r["version"] for r in rows(traces_store, "SELECT version FROM rubrics")}
    assert f"pairwise judge pair-judge: 6 calls for 3 pairs (both orders, 1 repeat(s) each; 2 without a gold " \
           f"answer, reference-free under {FREE.version})" in err
    assert f"run 1: pairwise judge pair-judge ({BUILTIN.version}), baseline vs rag-v2, 1 repeat(s) per order: " \
           f"3 pairs (2 without a gold answer, judged reference-free under {FREE.version}), 6 usable replies now" in out
    assert "verdicts: 3 consistent (both orders agree), 0 inconsistent, 0 undecided, of 3 pairs" in out

    # the figures read each pair under its own rubric: rag-v2 wins c1, ties c2, loses c3
    with open_store(traces_store) as store:
        figures = pairwise_figures(store, 1, Settings(boot=50))
    assert (figures.rubric_version, figures.reference_free_version, figures.reference_free_pairs) == (
        BUILTIN.version, FREE.version, 2)
    assert figures.sides == {"raw": "baseline", "bundle": "rag-v2"}
    assert figures.behaviour.consistent == 3 and figures.win_rates[0].pairs == 3
    assert figures.win_rates[0].judge.value == pytest.approx(1.5 / 3)

    # judged again: nothing is asked, the reference-free replies count as done under their own rubric
    asked = len(chat_server.answer_requests)
    code, out, err = judge(capsys, traces_store, chat_server)
    assert code == 0, err
    assert len(chat_server.answer_requests) == asked and "pairwise judge pair-judge: 0 calls for 0 pairs" in err
    assert "0 usable replies now" in out and "verdicts: 3 consistent" in out


def test_a_run_judged_only_reference_free_in_json_and_in_agree(traces_store, chat_server, capsys):
    code, out, err = judge(capsys, traces_store, chat_server, "--json")
    assert code == 0, err
    assert len(chat_server.answer_requests) == 6
    assert {system_of(r) for r in chat_server.answer_requests} == {FREE.prompt}
    report = json.loads(out)["pairwise"]
    assert {k: report[k] for k in ("pairs", "reference_free", "reference_free_version", "skipped_no_gold",
                                   "replies_done", "sides")} == {
        "pairs": 3, "reference_free": 3, "reference_free_version": FREE.version, "skipped_no_gold": 0,
        "replies_done": 6, "sides": {"raw": "baseline", "bundle": "rag-v2"}}
    assert json.loads(out)["behaviour"]["consistent"] == 3
    assert {r["rubric_version"] for r in rows(traces_store, REPLIES)} == {FREE.version}

    code, out, err = cli(capsys, "agree", "--store", traces_store, "--bootstrap", "50")
    assert code == 0, err
    assert f"the pairwise judge pair-judge (3 pair(s) without a gold answer: {FREE.version})" in out
    assert "Win rate of rag-v2 over baseline" in out
    code, out, err = cli(capsys, "agree", "--store", traces_store, "--bootstrap", "50", "--json")
    pairwise = json.loads(out)["pairwise"]
    assert (pairwise["reference_free_version"], pairwise["reference_free_pairs"]) == (FREE.version, 3)
    assert pairwise["win_rates"][0]["judge"]["value"] == pytest.approx(1.5 / 3)


def test_a_users_rubric_judges_gold_less_pairs_only_when_given_as_reference_free(traces_store, chat_server, capsys,
                                                                                  tmp_path):
    mine = tmp_path / "mine.rubric"
    mine.write_text(FREE.text.replace(f"name: {FREE.name}", "name: my-free").replace(
        "Pick a winner whenever", "Prefer the shorter answer; pick a winner whenever"))
    code, out, err = judge(capsys, traces_store, chat_server, "--rubric", mine)
    assert code == 2 and out == "" and not chat_server.answer_requests
    assert "--rubric: run 1 has no pair with a gold answer for my-free/" in err and "--reference-free-rubric" in err
    code, out, err = judge(capsys, traces_store, chat_server, "--reference-free-rubric", mine)
    assert code == 0, err
    assert all("Prefer the shorter answer" in r["messages"][0]["content"] for r in chat_server.answer_requests)
    assert {r["rubric_version"] for r in rows(traces_store, REPLIES)} == {parse_pairwise_rubric(mine.read_text()).version}
    assert "3 pairs (3 without a gold answer, judged reference-free under my-free/" in out
    assert "verdicts: 3 consistent" in out
