"""A run's grades, claim marks and machine scores as Langfuse scores: the records its score API
(POST /api/public/scores) accepts as they are, and the score configs they follow.

One record per score, camelCase as Langfuse writes them:
  id             idempotency key: a UUID derived from the score's key (what it is of: see scores.py) and name, so
                 a re-export updates rather than duplicates, a person's revised grade included
  traceId        32 hex, derived from the run and the question (one trace per question of a run); for an answer
                 imported from a Langfuse trace export, the trace's own id
  observationId  16 hex, derived from the answer (raw or bundled), like an OpenTelemetry span id; for an imported
                 one, its generation's observation id
  name, value    "grade" (CATEGORICAL: the grade's name), "pass" (BOOLEAN 1/0), a failure label (BOOLEAN 1, when
                 the grade has one), and a person's "correctness", "grounding", "completeness", "conciseness"
                 (NUMERIC 1-5); from a person's claim marks "claim_mark" (CATEGORICAL, one a marked claim),
                 "faithfulness" and "citation_precision" (NUMERIC 0-1, once every claim of the answer is marked);
                 from the scorers each metric by its name (NUMERIC 0-1: faithfulness, answer_relevance and the
                 retrieval evals), left out where the store says it is not defined (value NULL); "preference"
                 (CATEGORICAL raw | bundled | tie, on the bundled answer: a person's, or the pairwise judge's where
                 its two orders agree; metadata consistency, stability); a person's flag on a question, "flag"
                 (CATEGORICAL: bad_gold, ambiguous, other; of the trace, no observationId)
  dataType       CATEGORICAL | BOOLEAN | NUMERIC
  comment        the person's note, the machine grader's reasoning, or the scorer's reason or error (left out when
                 there is none)
  timestamp      when the grade was made (ISO 8601 with its offset)
  metadata       grader, grader_kind (human, judge, rule, imported, scorer), run_id, answer_id, benchmark,
                 question_id, method, budget, rubric_version, and mode / judge_visible (people) or confidence /
                 repeat_index; for claim marks scorers_visible, and claim_index / claim_text or the counts of each
                 mark; for machine scores the scorer's detail (redacted)
`source` is left to Langfuse (it sets API for scores sent to this endpoint). The configs (`score_configs`): grade
CATEGORICAL with the four grades, pass and each failure label BOOLEAN, the four dimensions NUMERIC 1-5, claim_mark
CATEGORICAL with the four marks, faithfulness, citation_precision, answer_relevance and the retrieval evals NUMERIC 0-1,
preference CATEGORICAL with raw, bundled and tie, flag CATEGORICAL with the three reasons.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from datetime import datetime

from gradedesk.core.exchange.scores import PREFERENCE_NAMES, flag_scores, score_rows
from gradedesk.core.grading.claim_marks import MARKS
from gradedesk.core.grading.vocabulary import DIMENSIONS, FAILURE_LABELS, FLAG_REASONS, GRADES, GRADING_ERROR
from gradedesk.core.store.connection import Store
from gradedesk.core.store.traces import AnswerTrace, run_spans

_NAMESPACE = uuid.UUID("5c0f6a4e-8d7b-4f0e-9a51-2f6b1c3d7e90")  # gradedesk's: ids derived from it are its own


def trace_id(run_id: int, benchmark: str, question_id: str) -> str:
    return hashlib.sha256(f"gradedesk:{run_id}:{benchmark}:{question_id}".encode()).hexdigest()[:32]


def observation_id(run_id: int, answer_id: int) -> str:
    return hashlib.sha256(f"gradedesk:{run_id}:answer:{answer_id}".encode()).hexdigest()[:16]


def answer_ids(spans: dict[int, AnswerTrace], a: dict, source: str) -> tuple[str, str]:
    """(trace id, span id) of the answer `a` of a score: the trace and span it was read from when it came from
    `source` (phoenix, langfuse: core/store/traces.py), else ids derived from its run, question and answer."""
    t = spans.get(a["answer_id"])
    if t is not None and t.source == source:
        return t.trace_id, t.span_id
    return trace_id(a["run_id"], a["benchmark"], a["question_id"]), observation_id(a["run_id"], a["answer_id"])


def _timestamp(text: str) -> str | None:
    """The grade's time when it is an ISO 8601 time with an offset (Langfuse needs one), else None."""
    try:
        when = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return when.isoformat() if when.tzinfo is not None else None


def score_uuid(key: str, name: str) -> str:
    """The score's id in Langfuse: a UUID of gradedesk's namespace from its stable key and name."""
    return str(uuid.uuid5(_NAMESPACE, f"{key}:{name}"))


def langfuse_scores(store: Store, run_id: int) -> Iterator[dict]:
    spans = run_spans(store, run_id)
    for g in score_rows(store, run_id):
        a = g.answer
        scores = g.scores() + g.flags()
        metadata = {"grader": g.grader, "grader_kind": g.kind, **a, **g.metadata}
        trace, observation = answer_ids(spans, a, "langfuse")
        common = {"traceId": trace, "observationId": observation}
        if g.comment:
            common["comment"] = g.comment
        if when := _timestamp(g.time):
            common["timestamp"] = when
        for name, value, data_type in scores:
            if value is None:  # a NUMERIC score needs a number and Langfuse has no "not defined": left out, not 0
                continue
            yield {"id": score_uuid(g.key, name), "name": name, "value": value,
                   "dataType": data_type, **common, "metadata": metadata}
    for f in flag_scores(store, run_id):  # of the question: its trace, no observation
        q = f.question
        flag = {"id": score_uuid(f.key, "flag"), "name": "flag", "value": f.reason, "dataType": "CATEGORICAL",
                "traceId": trace_id(q["run_id"], q["benchmark"], q["question_id"])}
        if f.note:
            flag["comment"] = f.note
        if when := _timestamp(f.time):
            flag["timestamp"] = when
        yield {**flag, "metadata": {"grader": f.grader, "grader_kind": "human", **q, **f.metadata}}


_SHARES = {  # the NUMERIC 0-1 scores: a person's from claim marks, and the scorers' (grader in the metadata)
    "faithfulness": "claims of an answer the evidence supports / factual claims (a person's from claim marks, or a "
                    "scorer's)",
    "citation_precision": "claims a person found supported by what they cite / factual claims that cite",
    "answer_relevance": "a scorer's: does the answer address the question",
    "file_precision": "retrieval: evidence files that are expected / evidence files",
    "file_recall": "retrieval: expected files found in the evidence / expected files",
    "symbol_recall": "retrieval: expected symbols found in the evidence / expected symbols",
    "context_precision": "retrieval: average precision of the ranked evidence (relevant: an expected file or symbol)",
    "context_recall": "retrieval: expected files and symbols found in the evidence / expected files and symbols",
    "definitions_present": "code: expected symbols with at least half their first 40 code lines shown in the "
                           "evidence / expected symbols defined in the expected files",
    "code_coverage": "code: the expected symbols' first 40 code lines shown in the evidence / those lines",
}


def score_configs() -> list[dict]:
    """The score configs the scores follow (Langfuse's create-score-config requests)."""
    grade = {"name": "grade", "dataType": "CATEGORICAL",
             "categories": [{"value": float(len(GRADES) - 1 - i), "label": g} for i, g in enumerate(GRADES)],
             "description": "gradedesk grade of an answer: fully_correct, partially_correct, unsupported, wrong"}
    passed = {"name": "pass", "dataType": "BOOLEAN", "description": "1 when the grade is fully_correct"}
    labels = [{"name": label, "dataType": "BOOLEAN", "description": f"failure label {label}"}
              for label in (*FAILURE_LABELS, GRADING_ERROR)]
    dims = [{"name": d, "dataType": "NUMERIC", "minValue": 1.0, "maxValue": 5.0,
             "description": f"a person's {d} score, 1-5"} for d in DIMENSIONS]
    mark = {"name": "claim_mark", "dataType": "CATEGORICAL",
            "categories": [{"value": float(i), "label": m} for i, m in enumerate(MARKS)],
            "description": "a person's mark on one claim of an answer: supported, miscited (supported by the evidence, "
                           "not by what it cites), unsupported, not_claim"}
    shares = [{"name": name, "dataType": "NUMERIC", "minValue": 0.0, "maxValue": 1.0, "description": description}
              for name, description in _SHARES.items()]
    preference = {"name": "preference", "dataType": "CATEGORICAL",
                  "categories": [{"value": float(i), "label": c} for i, c in enumerate(PREFERENCE_NAMES.values())],
                  "description": "which answer of a question is better, raw or bundled (or a tie): a person's "
                                 "preference or the pairwise judge's consistent verdict, on the bundled answer"}
    flag = {"name": "flag", "dataType": "CATEGORICAL",
            "categories": [{"value": float(i), "label": r} for i, r in enumerate(FLAG_REASONS)],
            "description": "a person's flag on a question whose benchmark entry needs fixing: bad_gold (a wrong gold "
                           "answer), ambiguous (an ambiguous question), other (the comment says why)"}
    return [grade, passed, *labels, *dims, mark, *shares, preference, flag]
