"""Which answer is better, exported: a person's preference and the pairwise judge's verdict with its consistency, as
gradedesk's records, Langfuse scores (read by its SDK) and Phoenix span annotations."""

from __future__ import annotations

import pytest
from langfuse.api import CreateScoreConfigRequest, CreateScoreRequest
from phoenix.client.__generated__.v1 import SpanAnnotationData

from gradedesk.core.exchange.scores import gradedesk_records
from gradedesk.core.exchange.scores_langfuse import langfuse_scores, score_configs
from gradedesk.core.exchange.scores_phoenix import phoenix_annotations
from gradedesk.core.grading.human_grades import record_preference
from gradedesk.core.grading.pairwise_judge import pairwise_run
from gradedesk.core.providers.openai_compat import OpenAICompatibleProvider
from gradedesk.core.store.connection import open_store
from tests.core.exchange.test_score_formats import as_the_sdk_reads_it, check_typed_dict
from tests.fixtures.pairwise import build_pairwise_run, content_judge, first_judge


@pytest.fixture
def judged(tmp_path, chat_server):
    """q4 judged by position (inconsistent), the rest from content; alice prefers raw on q1 and ties q3."""
    chat_server.responder = lambda body: (first_judge if "What does q4 do?" in body["messages"][1]["content"]
                                          else content_judge)(body)
    with open_store(tmp_path / "s.db") as store:
        run, pks = build_pairwise_run(store)
        pairwise_run(store, run, OpenAICompatibleProvider("pair-judge", base_url=chat_server.base_url,
                                                          max_retries=0, timeout=5, concurrency=2))
        record_preference(store, run, pks["q1"], "alice", "raw", "bundle")
        record_preference(store, run, pks["q3"], "alice", "bundle", "raw")
        record_preference(store, run, pks["q3"], "alice", "tie", "raw")  # changed her mind: the newest counts
        yield store, run


def test_gradedesk_records_carry_people_and_the_judge_with_its_consistency(judged):
    store, run = judged
    prefs = [r for r in gradedesk_records(store, run) if r["name"] == "preference"]
    people = {r["question_id"]: r for r in prefs if r["source"] == "HUMAN"}
    assert {q: r["value"] for q, r in people.items()} == {"q1": "raw", "q3": "tie"}
    assert people["q1"]["method"] == "bundle" and people["q1"]["data_type"] == "CATEGORICAL"
    judge = {r["question_id"]: r for r in prefs if r["source"] == "EVAL"}
    assert {q: r["value"] for q, r in judge.items()} == {"q1": "bundled", "q2": "bundled", "q3": "tie", "q4": None,
                                                         "q5": "bundled", "q6": "bundled"}
    assert judge["q1"]["metadata"]["consistency"] == "consistent"
    assert judge["q4"]["metadata"]["consistency"] == "inconsistent"
    assert judge["q4"]["comment"] == "inconsistent: raw shown first -> raw, bundle shown first -> bundle"
    assert judge["q4"]["grader"] == "judge:pair-judge" and judge["q4"]["metadata"]["rubric_version"]
    assert len({r["id"] for r in prefs}) == len(prefs) == 8


def test_langfuse_and_phoenix_shapes(judged):
    store, run = judged
    configs = {c["name"]: as_the_sdk_reads_it(CreateScoreConfigRequest, c) for c in score_configs()}
    assert [c.label for c in configs["preference"].categories] == ["raw", "bundled", "tie"]
    scores = [r for r in langfuse_scores(store, run) if r["name"] == "preference"]
    for record in scores:
        as_the_sdk_reads_it(CreateScoreRequest, record)
        assert record["dataType"] == "CATEGORICAL" and record["value"] in ("raw", "bundled", "tie")
    assert len(scores) == 7  # the inconsistent verdict has no value: left out, never made up
    notes = [r for r in phoenix_annotations(store, run) if r["name"] == "preference"]
    for record in notes:
        check_typed_dict(record, SpanAnnotationData)
    q4 = [r for r in notes if r["metadata"]["question_id"] == "q4"]
    assert [r["annotator_kind"] for r in q4] == ["LLM"] and "label" not in q4[0]["result"]
    assert q4[0]["identifier"].startswith("judge:pair-judge#pairwise-rubric/")
    assert {r["identifier"] for r in notes if r["annotator_kind"] == "HUMAN"} == {"alice"}


def test_merge_carries_the_judges_pairwise_replies_and_their_rubric(tmp_path, chat_server):
    """The judge compared pairs in a copy of the store, under an edited rubric: merge brings the replies and the rubric
    once, and a second merge adds nothing."""
    import shutil

    from gradedesk.core.exchange.merge import merge_store
    from gradedesk.core.grading.pairwise_rubric import builtin_pairwise_rubric, parse_pairwise_rubric
    from gradedesk.core.grading.pairwise_verdicts import pair_verdicts

    here, there = tmp_path / "here.db", tmp_path / "there.db"
    with open_store(here) as store:
        run, _ = build_pairwise_run(store)
    shutil.copy(here, there)
    edited = parse_pairwise_rubric(builtin_pairwise_rubric().text.replace("pairwise-rubric", "team-pairs"))
    chat_server.responder = content_judge
    with open_store(there) as other:
        pairwise_run(other, run, OpenAICompatibleProvider("pair-judge", base_url=chat_server.base_url, max_retries=0,
                                                          timeout=5), rubric=edited)
    with open_store(here) as store:
        first = merge_store(store, there)
        assert (first.pairwise_added, first.pairwise_already_here, first.unmatched_pairwise) == (12, 0, {})
        assert {v.status for v in pair_verdicts(store, run)} == {"consistent"}
        assert store._scalar("SELECT kind FROM rubrics WHERE version = ?", (edited.version,)) == "pairwise"
        second = merge_store(store, there)
        assert (second.pairwise_added, second.pairwise_already_here) == (0, 12)
