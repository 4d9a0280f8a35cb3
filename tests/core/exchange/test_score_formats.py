"""Scores for Langfuse and Phoenix, checked against the records their own SDKs define (test-only dependencies)."""

from __future__ import annotations

import json
import re
import typing
from collections.abc import Mapping

import pytest
import typing_extensions
from langfuse.api import CreateScoreConfigRequest, CreateScoreRequest
from langfuse.api.core.pydantic_utilities import parse_obj_as
from phoenix.client.__generated__.v1 import AnnotationResult, SpanAnnotationData

from gradedesk.core.exchange.scores_langfuse import langfuse_scores, observation_id, score_configs, trace_id
from gradedesk.core.exchange.scores_phoenix import phoenix_annotations
from gradedesk.core.grading.claim_marks import MARKS
from gradedesk.core.grading.human_grades import GradeChange, record_grade
from gradedesk.core.grading.retrieval_evals import METRICS as RETRIEVAL_METRICS
from gradedesk.core.grading.scorers import SCORE_METRICS
from gradedesk.core.grading.vocabulary import DIMENSIONS, FAILURE_LABELS, GRADES
from gradedesk.core.store.connection import open_store
from tests.fixtures.agreement import add_auto, add_human
from tests.fixtures.claims_store import ALICE_MARKS, add_marked_answer
from tests.fixtures.grading import add_question, add_raw_answer, add_run, scored_run, stored_scores


@pytest.fixture
def graded(tmp_path):
    """A run with a person's grade (with a note and a correctness score), a judge's and a rule grader's."""
    with open_store(tmp_path / "s.db") as store:
        run = add_run(store)
        qpk = add_question(store, "q1", "q?", "g", benchmark="bench")
        answer = add_raw_answer(store, run, qpk, "text", [])
        add_human(store, answer, "alice", "wrong", label="hallucination", note="made up")
        add_auto(store, answer, "partially_correct", confidence=0.4, label="retrieval_miss")
        add_auto(store, answer, "wrong", kind="rule", model="rules/1")
        yield store, run, answer


def as_the_sdk_reads_it(model: type, record: dict):
    """The record read by the SDK's own wire reader; it must write back exactly the keys it was given (camelCase,
    none unknown: snake_case keys would be read, then written back camelCase)."""
    parsed = parse_obj_as(model, record)
    assert not parsed.model_extra, parsed.model_extra
    assert parsed.dict().keys() == record.keys()
    return parsed


def test_langfuse_records_are_the_score_apis_own(graded):
    store, run, _ = graded
    records = list(langfuse_scores(store, run))
    assert [r["name"] for r in records] == ["grade", "pass", "correctness", "hallucination",
                                            "grade", "pass", "retrieval_miss", "grade", "pass"]
    for record in records:
        parsed = as_the_sdk_reads_it(CreateScoreRequest, record)
        assert parsed.timestamp is not None and parsed.timestamp.tzinfo is not None
        assert re.fullmatch(r"[0-9a-f]{32}", record["traceId"]) and re.fullmatch(r"[0-9a-f]{16}",
                                                                               record["observationId"])
        assert "source" not in record  # Langfuse sets it
        if record["dataType"] == "BOOLEAN":
            assert record["value"] in (0, 1)
        elif record["dataType"] == "CATEGORICAL":
            assert record["value"] in GRADES
    person = records[0]
    assert person["comment"] == "made up" and person["metadata"]["grader"] == "alice"
    assert person["metadata"]["grader_kind"] == "human"
    assert records[4]["metadata"]["grader"] == "judge:judge-model" and records[4]["metadata"]["confidence"] == 0.4
    assert len({r["id"] for r in records}) == len(records)
    assert list(langfuse_scores(store, run)) == records  # ids and trace ids are derived: a re-export is idempotent


def test_langfuse_score_configs_cover_every_score(graded):
    store, run, _ = graded
    configs = {c["name"]: as_the_sdk_reads_it(CreateScoreConfigRequest, c) for c in score_configs()}
    assert [cat.label for cat in configs["grade"].categories] == list(GRADES)
    assert all(configs[label].data_type == "BOOLEAN" for label in FAILURE_LABELS)
    assert all((configs[d].data_type, configs[d].min_value, configs[d].max_value) == ("NUMERIC", 1, 5)
               for d in DIMENSIONS)
    for record in langfuse_scores(store, run):
        assert configs[record["name"]].data_type == record["dataType"]


def check_typed_dict(value: object, schema: type) -> None:
    """`value` fits the SDK's TypedDict: no unknown keys, every required key, and each value of its declared type."""
    assert isinstance(value, dict)
    hints = typing_extensions.get_type_hints(schema, include_extras=True)
    assert set(value) <= set(hints), set(value) - set(hints)
    required = {k for k, h in hints.items() if typing_extensions.get_origin(h) is not typing_extensions.NotRequired}
    assert required <= set(value), required - set(value)
    for key, item in value.items():
        hint = hints[key]
        if typing_extensions.get_origin(hint) is typing_extensions.NotRequired:
            hint = typing_extensions.get_args(hint)[0]
        if typing.get_origin(hint) is typing.Literal:
            assert item in typing.get_args(hint), (key, item)
        elif hint is AnnotationResult:
            check_typed_dict(item, AnnotationResult)
        elif typing.get_origin(hint) is Mapping:
            assert isinstance(item, dict)
        else:
            assert isinstance(item, hint), (key, item)


def test_phoenix_annotations_are_its_span_annotation_records(graded):
    store, run, answer = graded
    records = list(phoenix_annotations(store, run))
    for record in records:
        check_typed_dict(record, SpanAnnotationData)
    kinds = [(r["name"], r["annotator_kind"], r["identifier"]) for r in records]
    assert kinds == [("grade", "HUMAN", "alice"), ("failure_label", "HUMAN", "alice"),
                     ("correctness", "HUMAN", "alice"), ("grade", "LLM", "judge:judge-model"),
                     ("failure_label", "LLM", "judge:judge-model"), ("grade", "CODE", "rule:rules/1")]
    assert records[0]["result"] == {"label": "wrong", "score": 0.0, "explanation": "made up"}
    assert len({r["span_id"] for r in records}) == 1
    assert records[0]["span_id"] == next(langfuse_scores(store, run))["observationId"]


def test_a_revised_grade_updates_its_langfuse_scores_and_phoenix_annotations(graded):
    store, run, answer = graded
    scores, annotations = list(langfuse_scores(store, run)), list(phoenix_annotations(store, run))
    record_grade(store, answer, "alice", GradeChange(grade="partially_correct", scores={"correctness": 3}),
                 mode="open")
    revised, reannotated = list(langfuse_scores(store, run)), list(phoenix_annotations(store, run))
    for record in revised:
        as_the_sdk_reads_it(CreateScoreRequest, record)
    for record in reannotated:
        check_typed_dict(record, SpanAnnotationData)
    # Langfuse updates a score with the same id; Phoenix an annotation with the same name, span and identifier
    assert [r["id"] for r in revised] == [r["id"] for r in scores]
    assert [(r["name"], r["span_id"], r["identifier"]) for r in reannotated] == \
        [(r["name"], r["span_id"], r["identifier"]) for r in annotations]
    person = {r["name"]: r["value"] for r in revised if r["metadata"]["grader"] == "alice"}
    assert person == {"grade": "partially_correct", "pass": 0, "correctness": 3, "hallucination": 1}
    assert reannotated[0]["result"] == {"label": "partially_correct", "score": 0.0, "explanation": "made up"}


@pytest.fixture
def marked(graded):
    """The graded run, plus a bundled answer of the same question whose claims alice marked (all) and bob (one)."""
    store, run, _ = graded
    qpk = store._scalar("SELECT question_pk FROM answers WHERE run_id = ?", (run,))
    return store, run, add_marked_answer(store, run, qpk)


def test_claim_marks_are_langfuse_scores_too(marked):
    store, run, answer = marked
    records = list(langfuse_scores(store, run))
    configs = {c["name"]: as_the_sdk_reads_it(CreateScoreConfigRequest, c) for c in score_configs()}
    for record in records:
        parsed = as_the_sdk_reads_it(CreateScoreRequest, record)
        assert parsed.timestamp is not None and parsed.timestamp.tzinfo is not None
        assert configs[record["name"]].data_type == record["dataType"]
    claims = [r for r in records if r["metadata"]["answer_id"] == answer]
    assert [(r["name"], r["metadata"]["grader"]) for r in claims] == \
        [("claim_mark", "alice")] * 5 + [("faithfulness", "alice"), ("citation_precision", "alice"),
                                         ("claim_mark", "bob")]
    assert [cat.label for cat in configs["claim_mark"].categories] == list(MARKS)
    assert [r["value"] for r in claims if r["name"] == "claim_mark"] == [*ALICE_MARKS, "not_claim"]
    for r in claims:
        if r["dataType"] == "NUMERIC":
            config = configs[r["name"]]
            assert config.min_value <= r["value"] <= config.max_value
        assert r["metadata"]["grader_kind"] == "human" and "comment" not in r
    assert claims[0]["observationId"] != records[0]["observationId"]  # the bundled answer, not the graded raw one
    assert claims[0]["traceId"] == records[0]["traceId"]  # the same question of the run
    assert len({r["id"] for r in records}) == len(records)
    assert list(langfuse_scores(store, run)) == records


def test_claim_marks_are_phoenix_annotations_too(marked):
    store, run, answer = marked
    records = list(phoenix_annotations(store, run))
    for record in records:
        check_typed_dict(record, SpanAnnotationData)
    # Phoenix keeps one annotation per (name, span, identifier): none may replace another
    assert len({(r["name"], r["span_id"], r["identifier"]) for r in records}) == len(records)
    claims = [r for r in records if r["metadata"]["answer_id"] == answer]
    assert [(r["name"], r["annotator_kind"], r["identifier"]) for r in claims] == \
        [("claim_mark", "HUMAN", f"alice#claim{i}") for i in range(1, 6)] + \
        [("faithfulness", "HUMAN", "alice"), ("citation_precision", "HUMAN", "alice"),
         ("claim_mark", "HUMAN", "bob#claim1")]
    assert claims[1]["result"] == {"label": "supported"} and claims[5]["result"] == {"score": 0.75}


@pytest.fixture
def scored(tmp_path):
    """A run the real scorers scored (retrieval evals, offline and LLM scores; some not defined, one failed call)."""
    with open_store(tmp_path / "s.db") as store:
        run, answer, unknown = scored_run(store)
        yield store, run, answer, unknown


def machine_of(records: list[dict]) -> list[dict]:
    return [r for r in records if r["metadata"]["grader_kind"] == "scorer"]


def test_machine_scores_are_langfuse_scores_with_configs(scored):
    store, run, answer, unknown = scored
    records = list(langfuse_scores(store, run))
    configs = {c["name"]: as_the_sdk_reads_it(CreateScoreConfigRequest, c) for c in score_configs()}
    assert set(RETRIEVAL_METRICS + SCORE_METRICS) <= set(configs)
    for record in records:
        parsed = as_the_sdk_reads_it(CreateScoreRequest, record)
        assert parsed.timestamp is not None and parsed.timestamp.tzinfo is not None
        config = configs[record["name"]]
        assert config.data_type == record["dataType"] == "NUMERIC"
        assert isinstance(record["value"], float) and config.min_value <= record["value"] <= config.max_value
    defined = {(a, m, s): v for (a, m, s), v in stored_scores(store, run).items() if v is not None}
    # every defined score once, under its metric's name; not defined ones (NULL) left out rather than sent as a number
    assert {(r["metadata"]["answer_id"], r["name"], r["metadata"]["grader"].removeprefix("scorer:")): r["value"]
            for r in machine_of(records)} == defined
    assert len(records) == len(defined) < len(stored_scores(store, run))
    assert not [r for r in records if r["metadata"]["answer_id"] == unknown and r["name"] == "file_recall"]
    llm = next(r for r in records if r["metadata"]["grader"] == "scorer:llm:judge-model")
    assert llm["name"] == "faithfulness" and llm["metadata"]["detail"]["supported"] == 1
    assert llm["observationId"] == observation_id(run, answer) and llm["traceId"] == trace_id(run, "bench", "q1")
    assert len({r["id"] for r in records}) == len(records)
    assert list(langfuse_scores(store, run)) == records


def test_machine_scores_are_phoenix_annotations(scored):
    store, run, answer, unknown = scored
    records = list(phoenix_annotations(store, run))
    for record in records:
        check_typed_dict(record, SpanAnnotationData)
    assert len(records) == len(stored_scores(store, run))
    assert len({(r["name"], r["span_id"], r["identifier"]) for r in records}) == len(records)
    by = {(r["metadata"]["answer_id"], r["name"], r["identifier"]): r for r in records}
    assert {r["annotator_kind"] for r in records if r["identifier"] == "scorer:llm:judge-model"} == {"LLM"}
    assert {r["annotator_kind"] for r in records if r["identifier"] != "scorer:llm:judge-model"} == {"CODE"}
    assert by[(answer, "file_recall", "scorer:id-based")]["result"] == {"score": 1.0}
    # not defined: no score, only why
    assert by[(unknown, "faithfulness", "scorer:offline-rapidfuzz")]["result"] == \
        {"explanation": "the answer makes no claims"}
    failed = by[(answer, "answer_relevance", "scorer:llm:judge-model")]
    assert failed["result"] == {"explanation": "call_failed: 502: upstream failed for key Bearer [redacted]"}
    assert "sk-live" not in json.dumps(records)
    assert all(isinstance(r["result"]["score"], float) for r in records if "score" in r["result"])
    assert list(phoenix_annotations(store, run)) == records
