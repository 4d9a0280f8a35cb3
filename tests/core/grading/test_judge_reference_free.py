"""Judging without a gold answer, end to end: a run read from an application's traces (a Langfuse export, stored by
`import-traces` as any trace import stores it: questions without a gold answer), graded by `gradedesk judge` against
the local chat-completions stand-in. The gold-less answers go to the judge under the reference-free rubric (no GOLD
ANSWER section) and their verdicts keep that rubric's version; an answer whose question has a gold answer, in the same
run, is judged under the built-in rubric; the summary counts the reference-free ones."""

from __future__ import annotations

import json

import pytest

from gradedesk.core.grading.rubric_format import REFERENCE_FREE_FILE, builtin_rubric
from gradedesk.core.store.connection import open_store
from tests.fixtures.cli import cli
from tests.fixtures.desk import rows
from tests.fixtures.langfuse_export import trace, write_export
from tests.fixtures.chat_server import system_of

FREE = builtin_rubric(REFERENCE_FREE_FILE)
BUILTIN = builtin_rubric()
VERDICT = {"grade": "fully_correct", "failure_label": None, "confidence": 0.8, "reasoning": "Supported by evidence."}
CLEARED = "Where is the cache cleared?"
LOADED = "What does load return?"
GOLD = "The parsed configuration, a dict."
GRADES = "SELECT q.question, g.rubric_version, g.repeat_index, g.grade FROM auto_grades g " \
         "JOIN answers a ON a.id = g.answer_id JOIN questions q ON q.id = a.question_pk " \
         "WHERE g.grader_kind = 'judge' ORDER BY q.question, g.repeat_index"


@pytest.fixture
def traces_store(tmp_path, capsys):
    """A store holding a run imported from two traces; neither question has a gold answer."""
    docs = [{"id": "d1", "score": 0.8, "page_content": "def clear():\n    CACHE.clear()\n",
             "metadata": {"file_path": "app/cache.py", "start_line": 3, "end_line": 4}}]
    export = write_export(tmp_path / "traces.json", [
        trace("a" * 32, "b" * 16, CLEARED, "In clear() [app/cache.py:4].", docs),
        trace("c" * 32, "d" * 16, LOADED, "It returns the parsed config.", docs)])
    db = tmp_path / "store.db"
    code, _, err = cli(capsys, "import-traces", "--langfuse", export, "--store", db)
    assert code == 0, err
    assert [r["gold_answer"] for r in rows(db, "SELECT gold_answer FROM questions")] == [None, None]
    return db


def give_gold(db, question: str, gold: str) -> None:
    """A person wrote a gold answer for one of the traces' questions."""
    with open_store(db) as store, store.transaction():
        store._conn.execute("UPDATE questions SET gold_answer = ? WHERE question = ?", (gold, question))


def asked_about(server, question: str) -> list[dict]:
    """The verdict requests the stand-in received about `question`'s answer."""
    return [r["messages"] for r in server.answer_requests if f"BEGIN QUESTION\n{question}\n" in r["messages"][1]["content"]]


def judge(capsys, db, server, *extra) -> tuple[int, str, str]:
    server.responder = lambda body: json.dumps(VERDICT)
    return cli(capsys, "judge", "--store", db, "--model", "judge-x", "--base-url", server.base_url, "--no-scores",
               *extra)


def test_a_gold_less_answer_is_judged_reference_free_and_one_with_gold_under_the_built_in_rubric(
        traces_store, chat_server, capsys):
    give_gold(traces_store, LOADED, GOLD)
    code, out, err = judge(capsys, traces_store, chat_server)
    assert code == 0, err

    (free,) = asked_about(chat_server, CLEARED)
    assert system_of({"messages": free}) == FREE.prompt and FREE.prompt != BUILTIN.prompt
    assert "GOLD ANSWER" not in free[1]["content"]
    assert "BEGIN EVIDENCE" in free[1]["content"] and "CACHE.clear()" in free[1]["content"]
    assert "BEGIN ANSWER\nIn clear() [app/cache.py:4].\nEND ANSWER" in free[1]["content"]
    (gold,) = asked_about(chat_server, LOADED)
    assert system_of({"messages": gold}) == BUILTIN.prompt
    assert f"BEGIN GOLD ANSWER\n{GOLD}\nEND GOLD ANSWER" in gold[1]["content"]

    assert [tuple(r.values()) for r in rows(traces_store, GRADES)] == [
        (LOADED, BUILTIN.version, 0, "fully_correct"), (CLEARED, FREE.version, 0, "fully_correct")]
    assert FREE.version in {r["version"] for r in rows(traces_store, "SELECT version FROM rubrics")}
    assert "judge judge-x: 2 calls for 2 answers (2 verdicts)" in err
    summary = out.splitlines()[-1]
    assert summary.startswith(f"run 1: judge judge-x ({BUILTIN.version}), repeat 1: 2 graded now, ")
    assert summary.endswith(f"0 answers without a gold answer skipped, 1 without one graded reference-free "
                            f"({FREE.version})")

    # judged again: nothing is asked, the reference-free verdict counts as done under its own rubric
    asked = len(chat_server.answer_requests)
    code, out, err = judge(capsys, traces_store, chat_server)
    assert code == 0, err
    assert len(chat_server.answer_requests) == asked and "judge judge-x: 0 calls for 0 answers: every answer already has its verdicts\n" in err
    assert "skips the 0" not in err  # no option offered that would skip nothing
    assert "1: judge judge-x" in out and out.splitlines()[-1].endswith(
        "0 graded now, 0 unusable replies (grading_error), 0 failed calls, 0 LLM scores, 0 unusable LLM score "
        "replies, 0 replies cut at --max-tokens 512, 0 stale grades (gold changed) regraded, 0 answers without a "
        "gold answer skipped")


def test_the_json_summary_and_the_repeats_of_a_run_judged_only_reference_free(traces_store, chat_server, capsys):
    code, out, err = judge(capsys, traces_store, chat_server, "--repeat", "2", "--json")
    assert code == 0, err
    assert all(system_of(r) == FREE.prompt for r in chat_server.answer_requests)
    assert len(chat_server.answer_requests) == 4
    report = json.loads(out)
    assert {k: report["judge"][k] for k in ("grades_done", "skipped_no_gold", "reference_free",
                                            "reference_free_version")} == {
        "grades_done": 4, "skipped_no_gold": 0, "reference_free": 2, "reference_free_version": FREE.version}
    assert {r["rubric_version"] for r in rows(traces_store, GRADES)} == {FREE.version}
    # the judge's consistency across repeats covers the answers it graded reference-free
    assert {k: report["consistency"][k] for k in ("answers_repeated", "identical", "share_identical")} == {
        "answers_repeated": 2, "identical": 2, "share_identical": 1.0}
