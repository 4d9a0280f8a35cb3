"""Judge alignment end to end on a real store, through the real openai client, against the chat stand-in made to
behave like a judge that follows examples (tests/fixtures/alignment.py). It proves the plumbing: the split, that no
test item reaches the judge as an example, the versions, the paired figures, reuse and iteration."""

from __future__ import annotations

import json
import re

import pytest

from gradedesk.core.stats import measures as stats
from gradedesk.core.agreement.judge_alignment import AlignSettings, align
from gradedesk.core.agreement.rubric_history import rubric_history
from gradedesk.core.agreement.split import graded_items, split_by_question
from gradedesk.core.errors import UserError
from gradedesk.core.grading.rubric_format import builtin_rubric, parse_rubric
from gradedesk.core.grading.vocabulary import GRADES
from gradedesk.core.providers.openai_compat import OpenAICompatibleProvider
from gradedesk.core.store.connection import open_store
from tests.fixtures.alignment import EXAMPLE_RE, build_graded_run, example_following_judge

BOOT = 400


def provider(server) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider("judge-model", base_url=server.base_url, max_retries=0, timeout=5, concurrency=4)


@pytest.fixture
def graded(tmp_path, chat_server):
    chat_server.responder = example_following_judge
    store = open_store(tmp_path / "s.db")
    run, grades = build_graded_run(store, 24)
    return store, run, grades


def sides(store, alignment_id) -> dict[str, list[dict]]:
    rows = store._query("SELECT * FROM alignment_items WHERE alignment_id = ?", (alignment_id,))
    return {side: [r for r in rows if r["side"] == side] for side in ("train", "test")}


def test_examples_from_train_raise_agreement_on_test(graded, chat_server, tmp_path):
    store, run, grades = graded
    out = tmp_path / "new.rubric"
    r = align(store, run, builtin_rubric(), provider(chat_server), AlignSettings(seed=3, out=out, boot=BOOT))
    base_v, new_v = r["base"]["version"], r["new"]["version"]
    assert base_v == builtin_rubric().version
    # the file is the stored version, made from the base
    new = parse_rubric(out.read_text(encoding="utf-8"))
    assert new.version == new_v and new.based_on == base_v and len(new.examples) == 8
    assert store._scalar("SELECT text FROM rubrics WHERE version = ?", (new_v,)) == new.text
    # both sides stored, by question; examples only on the train side
    s = sides(store, r["alignment_id"])
    train_q, test_q = {x["question_pk"] for x in s["train"]}, {x["question_pk"] for x in s["test"]}
    assert train_q.isdisjoint(test_q) and len(s["train"]) + len(s["test"]) == 48
    assert {x["answer_id"] for x in s["train"] if x["example"]} == {e["answer_id"] for e in r["examples"]}
    assert not any(x["example"] for x in s["test"])
    assert all(x["grade"] == grades[x["answer_id"]] for x in s["train"] + s["test"])
    # nothing the judge was ever shown as an example is a test answer or a test question
    test_answers = store._query(
        "SELECT a.text, q.question FROM alignment_items i JOIN answers a ON a.id = i.answer_id "
        "JOIN questions q ON q.id = i.question_pk WHERE i.alignment_id = ? AND i.side = 'test'", (r["alignment_id"],))
    shown_answers, shown_questions = set(), set()
    for body in chat_server.requests:
        for _, _, block in EXAMPLE_RE.findall(body["messages"][0]["content"]):
            shown_questions.add(re.search(r"BEGIN QUESTION\n(.*?)\nEND QUESTION", block, re.DOTALL).group(1))
            shown_answers.add(re.search(r"BEGIN ANSWER\n(.*?)\nEND ANSWER", block, re.DOTALL).group(1))
    assert len(shown_answers) == 8
    assert shown_answers.isdisjoint({t["text"] for t in test_answers})
    assert shown_questions.isdisjoint({t["question"] for t in test_answers})
    # verdicts stored like any judge run: base on train and test, new on test only
    versions = {(v["rubric_version"], v["n"]) for v in store._query(
        "SELECT rubric_version, count(*) AS n FROM auto_grades WHERE grader_kind = 'judge' GROUP BY rubric_version")}
    assert versions == {(base_v, 48), (new_v, 24)}
    # the figures: the lenient base passes everything; the example-following new rubric agrees far more
    t = r["test"]
    assert t["n"] == 24 and [x["person"] for x in t["items"]] == [grades[x["answer_id"]] for x in t["items"]]
    people = [x["person"] for x in t["items"]]
    base_agree = sum(x["base"] == x["person"] for x in t["items"]) / 24
    new_agree = sum(x["new"] == x["person"] for x in t["items"]) / 24
    pa = t["measures"]["percent_agreement"]
    assert pa["base"]["value"] == pytest.approx(base_agree) == pytest.approx(people.count("fully_correct") / 24)
    assert pa["new"]["value"] == pytest.approx(new_agree) and new_agree >= 0.8
    assert pa["difference"]["value"] == pytest.approx(new_agree - base_agree)
    assert pa["difference"]["low"] > 0
    kappa = stats.estimates(stats.confusion_matrix(people, [x["new"] for x in t["items"]], GRADES),
                            stats.pair_measures(), boot=0)["cohen_kappa"].value
    assert t["measures"]["cohen_kappa"]["new"]["value"] == pytest.approx(kappa)
    assert t["target"] == {"share": 0.8, "measure": "percent_agreement", "base_met": False, "new_met": True}
    assert t["bias"]["base"]["grade_inflation"]["judge_pass_rate"]["value"] == 1.0
    assert len(t["bias"]["new"]["verbosity"]) == 3 and t["consistency"] is None
    assert r["calls"]["made"] == len(chat_server.requests) == 48 + 24 and r["calls"]["reused"] == 0
    assert r["warnings"] == []  # 24 test answers, and the judge did not write the answers
    stored = json.loads(store._scalar("SELECT report FROM alignments WHERE id = ?", (r["alignment_id"],)))
    assert stored["test"]["measures"] == t["measures"]


def test_running_again_reuses_the_stored_verdicts(graded, chat_server):
    store, run, _ = graded
    first = align(store, run, builtin_rubric(), provider(chat_server), AlignSettings(seed=5, boot=BOOT))
    before = len(chat_server.requests)
    again = align(store, run, builtin_rubric(), provider(chat_server), AlignSettings(seed=5, boot=BOOT))
    assert len(chat_server.requests) == before and again["calls"]["made"] == 0
    assert again["calls"]["reused"] == 48 + 24
    assert again["new"]["version"] == first["new"]["version"] and again["test"] == first["test"]
    assert again["alignment_id"] == first["alignment_id"] + 1


def test_iterating_keeps_earlier_examples_out_of_test(graded, chat_server):
    store, run, _ = graded
    p = provider(chat_server)
    first = align(store, run, builtin_rubric(), p, AlignSettings(seed=1, boot=BOOT))
    round1 = parse_rubric(store._scalar("SELECT text FROM rubrics WHERE version = ?", (first["new"]["version"],)))
    second = align(store, run, round1, p, AlignSettings(seed=2, examples=4, boot=BOOT))
    assert second["base"]["version"] == first["new"]["version"]
    assert second["new"]["examples"] == 8 + 4
    earlier = {e["question_id"] for e in first["examples"]}
    assert set(second["split"]["pinned_questions"]) == earlier
    tested = {x["question_id"] for x in second["test"]["items"]}
    assert tested.isdisjoint(earlier)
    history = {h["version"]: h for h in rubric_history(store)}
    assert list(history) == [builtin_rubric().version, first["new"]["version"], second["new"]["version"]]
    middle = history[first["new"]["version"]]
    assert (middle["examples"], middle["based_on"]) == (8, builtin_rubric().version)
    assert [(m["alignment_id"], m["role"]) for m in middle["test_agreement"]] == [(1, "new"), (2, "base")]
    assert middle["test_agreement"][0]["percent_agreement"] == first["test"]["measures"]["percent_agreement"]["new"]


def test_repeat_reports_consistency_under_both_rubrics(graded, chat_server):
    store, run, _ = graded
    r = align(store, run, builtin_rubric(), provider(chat_server), AlignSettings(seed=3, repeat=2, boot=BOOT))
    c = r["test"]["consistency"]
    assert c["base"]["answers_repeated"] == c["new"]["answers_repeated"] == 24
    assert c["new"]["share_identical"] == 1.0
    assert r["calls"]["made"] == 24 + 2 * 24 + 2 * 24


def test_grading_errors_and_failed_calls_are_left_out_and_counted(graded, chat_server):
    store, run, _ = graded
    items, _ = graded_items(store, run)
    test = split_by_question(items, 0.5, 3).test  # align makes the same split from the same seed
    broken = [i.answer_id for i in test if i.answer == test[0].answer]  # answers worded alike are all broken
    marker = f"BEGIN ANSWER\n{test[0].answer}\nEND ANSWER"

    def judge(body: dict) -> str:
        if "Example 1:" in body["messages"][0]["content"] and marker in body["messages"][1]["content"]:
            return "I would say it is mostly fine."  # unusable, under the new rubric only
        return example_following_judge(body)

    chat_server.responder = judge
    chat_server.fail_next(status=500, times=2)  # the first two calls (base rubric, train side) fail for good
    r = align(store, run, builtin_rubric(), provider(chat_server), AlignSettings(seed=3, boot=BOOT))
    assert r["test"]["left_out"] == {"base_grading_errors": 0, "new_grading_errors": len(broken)}
    assert r["test"]["n"] == 24 - len(broken)
    assert set(broken).isdisjoint(x["answer_id"] for x in r["test"]["items"])
    assert (r["calls"]["failed"], r["calls"]["unusable"]) == (2, len(broken))
    assert any("HTTP 500" in f for f in r["calls"]["failures"])
    again = align(store, run, builtin_rubric(), provider(chat_server), AlignSettings(seed=3, boot=BOOT))
    assert again["calls"]["failed"] == 0 and again["calls"]["made"] == 2  # only the failed calls are made again


def test_without_people_grades_align_says_what_to_do(tmp_path, chat_server):
    store = open_store(tmp_path / "s.db")
    run, grades = build_graded_run(store, 2)
    store._conn.execute("DELETE FROM human_grades")
    with pytest.raises(UserError, match="no answer with a gold answer has a grade by people; grade some at the desk"):
        align(store, run, builtin_rubric(), provider(chat_server))
    with pytest.raises(UserError, match="grader 'zoe'"):
        align(store, run, builtin_rubric(), provider(chat_server), AlignSettings(grader="zoe"))
    assert chat_server.requests == [] and store._scalar("SELECT count(*) FROM alignments") == 0
