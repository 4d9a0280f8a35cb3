"""Scores an earlier export of a run may have carried that the store no longer has: `export-scores --withdrawn`.

Langfuse and Phoenix keep a score until it is deleted, and export ids are stable (core/exchange/scores.py), so a
re-export updates what changed but cannot take back what is gone: a person's grade that was undone, a dimension score
or a failure label cleared in a revision, a claim mark taken back, the faithfulness and citation precision of an answer
whose claims are no longer all marked, a flag on a question taken back. These are read from the event history
(human_grades, claim_marks, item_flags) against the scores an export writes now, and written per format as what
identifies them there:

  gradedesk  id, name, grader, trace_id, observation_id, run/answer/question ids, "withdrawn": true (a flag: no
             observation or answer fields)
  langfuse   id (the UUID of the score: DELETE /api/public/scores/{id}), name, traceId, observationId (none for a
             flag)
  phoenix    span_id, name, identifier (Phoenix keeps one annotation per span, name and identifier)

Machine grades are never withdrawn: re-grading adds grades, it takes none back.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from gradedesk.core.exchange.scores import (answer_fields, answer_key, claim_rows, flag_key, grade_rows, record_ids,
                                            trace_ref)
from gradedesk.core.exchange.scores_langfuse import answer_ids, score_uuid, trace_id
from gradedesk.core.grading.claim_store import load_claims
from gradedesk.core.grading.vocabulary import DIMENSIONS
from gradedesk.core.store.connection import Store
from gradedesk.core.store.flags import taken_back_flags
from gradedesk.core.store.grades import grade_set_events, mark_set_events
from gradedesk.core.store.traces import run_spans


@dataclass
class Withdrawn:
    """What is gone of the scores one person gave one answer (or one claim of it)."""

    key: str  # the score row's stable key, as the export makes it
    grader: str
    identifier: str  # Phoenix's annotator identifier
    answer: dict
    names: set[str] = field(default_factory=set)  # score names (grade, pass, a dimension, claim_mark, ...)
    labels: set[str] = field(default_factory=set)  # failure labels: Langfuse's BOOLEAN flags
    any_label: bool = False  # no failure label is left: Phoenix's "failure_label" annotation


def withdrawn(store: Store, run_id: int) -> list[Withdrawn]:
    """Every person's score of the run that an export once held and holds no longer."""
    ever: dict[str, Withdrawn] = {}
    for event in grade_set_events(store, run_id):
        a = answer_fields(event.answer)
        key = answer_key(a, event.grader, "grade")
        w = ever.setdefault(key, Withdrawn(key, event.grader, event.grader, a))
        w.names |= {"grade", "pass"} | {d for d in DIMENSIONS if getattr(event, d) is not None}
        if event.failure_label:
            w.labels.add(event.failure_label)
    marked: dict[tuple[int, str], set[int]] = defaultdict(set)
    claims: dict[int, int] = {}  # answer → how many claims it has (0: not computed under this splitter)
    for mark in mark_set_events(store, run_id):
        a, grader, index = answer_fields(mark.answer), mark.grader, mark.claim_index
        key = answer_key(a, grader, "claims", index)
        ever.setdefault(key, Withdrawn(key, grader, f"{grader}#claim{index}", a, {"claim_mark"}))
        marked[(a["answer_id"], grader)].add(index)
        if a["answer_id"] not in claims:
            claims[a["answer_id"]] = len(load_claims(store, a["answer_id"]) or ())
        if len(marked[(a["answer_id"], grader)]) == claims[a["answer_id"]]:
            key = answer_key(a, grader, "claims")  # every claim was marked once: the answer's figures were exported
            ever.setdefault(key, Withdrawn(key, grader, grader, a, {"faithfulness", "citation_precision"}))
    now_names: dict[str, set[str]] = defaultdict(set)
    now_labels: dict[str, set[str]] = defaultdict(set)
    for g in [g for g in grade_rows(store, run_id) if g.kind == "human"] + list(claim_rows(store, run_id)):
        now_names[g.key] |= {name for name, _, _ in g.scores()}
        now_labels[g.key] |= {name for name, _, _ in g.flags()}
    out = []
    for key, w in ever.items():
        gone = Withdrawn(key, w.grader, w.identifier, w.answer, w.names - now_names[key], w.labels - now_labels[key],
                         bool(w.labels) and not now_labels[key])
        if gone.names or gone.labels:
            out.append(gone)
    return out


def withdrawn_records(store: Store, run_id: int, fmt: str) -> Iterator[dict]:
    """The withdrawn scores as `fmt` (gradedesk, langfuse, phoenix) identifies them."""
    spans = run_spans(store, run_id)
    for w in withdrawn(store, run_id):
        a = w.answer
        if fmt == "phoenix":
            span = answer_ids(spans, a, "phoenix")[1]
            # Phoenix's "grade" annotation holds the pass score too: there is no "pass" annotation of its own
            for name in sorted(w.names - {"pass"}) + (["failure_label"] if w.any_label else []):
                yield {"span_id": span, "name": name, "identifier": w.identifier}
        elif fmt == "langfuse":
            trace, observation = answer_ids(spans, a, "langfuse")
            ids = {"traceId": trace, "observationId": observation}
            for name in sorted(w.names) + sorted(w.labels):
                yield {"id": score_uuid(w.key, name), "name": name, **ids}
        else:
            for name in sorted(w.names):
                yield {"id": f"{w.key}:{name}", "name": name, "grader": w.grader, **record_ids(a), "withdrawn": True}
    for t in taken_back_flags(store, run_id) if fmt != "phoenix" else ():  # Phoenix's export has no flags
        q = {"run_id": run_id, "benchmark": t.benchmark, "question_id": t.question_id}
        key = flag_key(q, t.grader)
        if fmt == "langfuse":
            yield {"id": score_uuid(key, "flag"), "name": "flag",
                   "traceId": trace_id(run_id, t.benchmark, t.question_id)}
        else:
            yield {"id": f"{key}:flag", "name": "flag", "grader": t.grader, "trace_id": trace_ref(q), **q,
                   "withdrawn": True}
