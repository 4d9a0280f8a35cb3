"""A run's grades, claim marks and machine scores as Phoenix span annotations: the records Phoenix's span-annotation
API takes.

One annotation per grade ("grade": result.label the grade, result.score 1 when fully_correct else 0,
result.explanation the note or reasoning), one per failure label ("failure_label": result.label the label), and one
per dimension a person scored (result.score 1-5). annotator_kind says who graded: HUMAN (a person), LLM (the judge, and
grades imported with a run log, made by the other team's LLM grader), CODE (the rule grader). identifier tells apart
the annotators of one span (the person, or "<kind>:<model>", with "#<repeat>" for a judge's repeats), so a re-export
updates rather than duplicates. People's claim marks: one "claim_mark" annotation a marked claim (result.label the
mark; identifier "<person>#claim<index>", as Phoenix keeps one annotation per name, span and identifier), and for an
answer whose claims are all marked "faithfulness" and "citation_precision" (result.score 0-1). The scorers' values:
one annotation a metric (name the metric, result.score 0-1, result.explanation the scorer's reason or error; identifier
"scorer:<method>"; annotator_kind LLM for an llm:<model> scorer, else CODE); a value the store holds as not defined has
no score, only the explanation of why (Phoenix takes a result with any of label, score, explanation). Which answer is better:
one "preference" annotation (result.label raw, bundled or tie) on the bundled answer's span per person (identifier the
person) and per pairwise judge and rubric (identifier "judge:<model>#<rubric version>"; no label where its two orders
disagree, only the explanation saying so). span_id is the answer's 16-hex id, the same as the Langfuse export's
observationId; for an answer imported from Phoenix traces (`import-traces --phoenix`), the LLM span it was read from.
"""

from __future__ import annotations

from collections.abc import Iterator

from gradedesk.core.exchange.scores import GradeRow, MetricRow, ScoreRow, ScoreValue, score_rows
from gradedesk.core.exchange.scores_langfuse import answer_ids
from gradedesk.core.grading.scorers import is_llm_method
from gradedesk.core.grading.vocabulary import is_pass
from gradedesk.core.store.connection import Store
from gradedesk.core.store.traces import run_spans

ANNOTATOR_KINDS = {"human": "HUMAN", "judge": "LLM", "imported": "LLM", "rule": "CODE"}


def _annotator_kind(g: ScoreRow) -> str:
    if isinstance(g, MetricRow):
        return "LLM" if is_llm_method(g.scorer) else "CODE"
    return ANNOTATOR_KINDS[g.kind]


def _result(value: ScoreValue, data_type: str, explanation: str | None) -> dict:
    """A score's result; a value not defined (None) has no score, only why (never a number it does not have)."""
    result = {} if value is None else {"score": float(value)} if data_type == "NUMERIC" else {"label": value}
    return {**result, "explanation": explanation} if explanation else result


def phoenix_annotations(store: Store, run_id: int) -> Iterator[dict]:
    spans = run_spans(store, run_id)
    for g in score_rows(store, run_id):
        a = g.answer
        common = {"span_id": answer_ids(spans, a, "phoenix")[1], "annotator_kind": _annotator_kind(g),
                  "identifier": g.identifier,
                  "metadata": {"grader": g.grader, "grader_kind": g.kind, **a, **g.metadata}}
        if not isinstance(g, GradeRow):
            for name, value, data_type in g.scores():
                yield {"name": name, **common, "result": _result(value, data_type, g.comment)}
            continue
        result = {"label": g.grade, "score": float(is_pass(g.grade))}
        if g.comment:
            result["explanation"] = g.comment
        yield {"name": "grade", **common, "result": result}
        if g.failure_label:
            yield {"name": "failure_label", **common, "result": {"label": g.failure_label}}
        for name, value in g.dimensions.items():
            yield {"name": name, **common, "result": {"score": float(value)}}
