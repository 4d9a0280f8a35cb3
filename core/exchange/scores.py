"""A run's grades, claim marks and machine scores as score records, JSONL: gradedesk's own records (`export-scores`,
default).

`score_rows` reads every score of a run once, for all the score formats (core/exchange/scores_langfuse.py, Langfuse's
score API; core/exchange/scores_phoenix.py, Phoenix span annotations): `grade_rows` (people's current grades, the event
history staying in the store, then every machine grade row), `claim_rows` (people's live claim marks, from
core/grading/claim_figures.py) and `metric_rows` (the scorers' values in answer_scores: faithfulness and
answer_relevance, the retrieval evals, imported retrieval metrics).

gradedesk's records, one per score:
  id           stable across exports: a hash of what the score is of (`stable_key`): the answer and the person for a
               person's grade (so a revision, a new event in the store, updates the exported score), the machine
               grade's identity, the answer, the person (and the claim) for claim marks, or the answer, the scorer
               and the metric for a machine score (so re-scoring updates it); + ":" + name
  name         "grade" (CATEGORICAL: the four-level grade), "pass" (BOOLEAN: 1 when fully_correct, else 0), and for
               people the dimension scores "correctness", "grounding", "completeness", "conciseness" (NUMERIC, 1-5);
               from people's claim marks, "claim_mark" (CATEGORICAL, one a marked claim: supported, miscited,
               unsupported, not_claim) and, once every claim of the answer is marked, "faithfulness" (NUMERIC 0-1:
               supported or miscited / factual claims) and "citation_precision" (NUMERIC 0-1: supported / factual
               claims that cite something), each when it has something to count; from the scorers, the metric's
               name (NUMERIC 0-1): "faithfulness", "answer_relevance", "file_precision", "file_recall",
               "symbol_recall", "context_precision", "context_recall"; "preference" (CATEGORICAL: raw, bundled or
               tie; which answer of the question is better), scored on the bundled answer, from each person's current
               preference (metadata left_method, judge_visible, selection) and from the pairwise judge (null where
               its two orders disagree; metadata consistency: consistent | inconsistent | undecided, stability,
               by_order, rubric_version)
  value        the score; a machine score that is not defined for the answer (no claims, no labels, a failed call)
               is null, as in the store, never a number
  data_type    CATEGORICAL | BOOLEAN | NUMERIC
  source       HUMAN (a person at the desk) | EVAL (the LLM judge, the rule grader, imported grades, the scorers)
  comment      the person's note, the machine grader's reasoning (redacted), or the scorer's reason or error (why a value is
               not defined)
  grader       the person's name, or "judge:<model>", "rule:<name>", "imported:<source>", "scorer:<method>" (method:
               offline-rapidfuzz, llm:<model>, id-based, import:<file>)
  time         when the grade (or the newest of the claim marks, or the flag) was made (UTC ISO-8601)
  trace_id     "run<run>:<benchmark>:<question_id>" (one trace per question of a run)
  observation_id "answer:<answer id>"; plus run_id, answer_id, benchmark, question_id, method, budget
  metadata     failure_label, rubric_version, and mode / judge_visible (people) or confidence / repeat_index
               (machines); for claim marks scorers_visible (were the faithfulness scorers' verdicts on screen), with
               claim_index and claim_text (claim_mark) or the counts of each mark (faithfulness, citation_precision);
               for machine scores the scorer's detail (its JSON), every string in it redacted (core/text/redact.py):
               a failed call's detail quotes the server, and a store from before redaction may hold a key
A person's flag on a question (`flag_scores`: its gold answer or wording needs fixing) is one record of the question,
not of an answer: name "flag", value its reason (CATEGORICAL: bad_gold, ambiguous, other), source HUMAN, comment the
flag's note, id a hash of the run, the question and the person; trace_id, run_id, benchmark and question_id, no
observation or answer fields; metadata judge_visible (was a machine grade of the item on screen).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any, TextIO

from gradedesk.core.grading.claim_figures import marked_answers
from gradedesk.core.grading.pairwise_verdicts import PairVerdict, verdicts_of
from gradedesk.core.store.answers import answers_of_run
from gradedesk.core.store.pairwise import run_replies
from gradedesk.core.store.run_records import run_row
from gradedesk.core.store.machine_grades import run_scores
from gradedesk.core.grading.vocabulary import DIMENSIONS, is_pass
from gradedesk.core.store.answers import AnswerRef
from gradedesk.core.store.connection import Store
from gradedesk.core.store.flags import flag_listing
from gradedesk.core.store.grades import marked_answer_refs, run_human_grades
from gradedesk.core.store.machine_grades import run_machine_grades
from gradedesk.core.store.preferences import live_preferences
from gradedesk.core.text.redact import redact, redact_json


def stable_key(*identity: Any) -> str:
    """16 hex of a hash of what a score is of: the same on every export, so a re-export updates."""
    return hashlib.sha1(json.dumps(identity).encode()).hexdigest()[:16]


def answer_key(answer: dict, *identity: Any) -> str:
    """`stable_key` of a score of `answer` (named by run, question, method and budget, not by its row id) and of
    what else the score is of (grader, claim, metric)."""
    return stable_key(answer["run_id"], answer["benchmark"], answer["question_id"], answer["method"],
                      answer["budget"], *identity)

# a score's value: a label (CATEGORICAL), a number (NUMERIC, BOOLEAN as 0/1), None for a metric not defined there
ScoreValue = str | float | None


@dataclass(frozen=True)
class ScoreRow:
    """Scores one grader gave one answer of the run."""

    key: str  # stable across exports (see the module docstring)
    kind: str  # human | judge | rule | imported | scorer
    grader: str  # the person's name, or "<kind>:<model or name>"
    comment: str | None  # the person's note, the machine's reasoning, or the scorer's reason or error
    time: str
    answer: dict[str, Any]  # run_id, answer_id, benchmark, question_id, method, budget
    metadata: dict[str, Any]

    def scores(self) -> list[tuple[str, ScoreValue, str]]:
        """(name, value, data type) of every score this row makes."""
        raise NotImplementedError

    def flags(self) -> list[tuple[str, ScoreValue, str]]:
        """Labels that formats with one score per label (Langfuse) add as BOOLEAN scores."""
        return []

    @property
    def record_metadata(self) -> dict[str, Any]:
        """The metadata of gradedesk's records."""
        return self.metadata

    @property
    def identifier(self) -> str:
        """The grader, told apart from the same grader's other rows on the answer (a judge's repeat, a claim)."""
        return self.grader


@dataclass(frozen=True)
class GradeRow(ScoreRow):
    """One grade of an answer of the run, whoever made it."""

    grade: str
    failure_label: str | None
    dimensions: dict[str, int]  # a person's scores, 1-5 (those given)

    def scores(self) -> list[tuple[str, ScoreValue, str]]:
        out: list[tuple[str, ScoreValue, str]] = [("grade", self.grade, "CATEGORICAL"),
                                                  ("pass", int(is_pass(self.grade)), "BOOLEAN")]
        return out + [(name, value, "NUMERIC") for name, value in self.dimensions.items()]

    def flags(self) -> list[tuple[str, ScoreValue, str]]:
        return [(self.failure_label, 1, "BOOLEAN")] if self.failure_label else []

    @property
    def record_metadata(self) -> dict[str, Any]:
        return {"failure_label": self.failure_label, **self.metadata}

    @property
    def identifier(self) -> str:
        repeat = self.metadata.get("repeat_index")
        return self.grader + (f"#{repeat}" if repeat else "")


@dataclass(frozen=True)
class ClaimRow(ScoreRow):
    """A person's mark on one claim of an answer (claim: its index), or what all their marks on it add up to."""

    values: tuple[tuple[str, ScoreValue, str], ...]
    claim: int | None = None

    def scores(self) -> list[tuple[str, ScoreValue, str]]:
        return list(self.values)

    @property
    def identifier(self) -> str:
        return self.grader + (f"#claim{self.claim}" if self.claim else "")


@dataclass(frozen=True)
class PreferenceRow(ScoreRow):
    """Which answer of a question is better, scored on its bundled answer: a person's current preference, or the
    pairwise judge's verdict (None where its two orders disagree or it has none; metadata says its consistency)."""

    preference: str | None  # raw | bundled | tie

    def scores(self) -> list[tuple[str, ScoreValue, str]]:
        return [("preference", self.preference, "CATEGORICAL")]

    @property
    def identifier(self) -> str:
        rubric = self.metadata.get("rubric_version")
        return self.grader + (f"#{rubric}" if rubric else "")


@dataclass(frozen=True)
class MetricRow(ScoreRow):
    """A scorer's value of one metric for an answer (answer_scores); value None when it is not defined there."""

    metric: str
    value: float | None
    scorer: str  # the method that made it: offline-rapidfuzz, llm:<model>, id-based, import:<file>

    def scores(self) -> list[tuple[str, ScoreValue, str]]:
        return [(self.metric, self.value, "NUMERIC")]


def answer_fields(answer: AnswerRef) -> dict[str, Any]:
    """What names the answer of a score, in every format: run_id, answer_id, benchmark, question_id, method, budget."""
    return asdict(answer)


def grade_rows(store: Store, run_id: int) -> Iterator[GradeRow]:
    """People's current grades, then every machine grade of the run."""
    for ref, h in run_human_grades(store, run_id):
        a = answer_fields(ref)
        yield GradeRow(answer_key(a, h.grader, "grade"), "human", h.grader, h.note, h.created_at, a,
                       {"rubric_version": h.rubric_version, "mode": h.mode, "judge_visible": bool(h.judge_visible)},
                       h.grade or "", h.failure_label,  # never empty: only grades that set one are read
                       {d: getattr(h, d) for d in DIMENSIONS if getattr(h, d) is not None})
    for ref, g in run_machine_grades(store, run_id):
        a = answer_fields(ref)
        grader = f"{g.grader_kind}:{g.grader_model or 'unnamed'}"
        # a failed call's reasoning quotes the server; stored text is redacted, but a store from before may hold a key
        yield GradeRow(answer_key(a, grader, g.rubric_version, g.repeat_index), g.grader_kind, grader,
                       redact(g.reasoning), g.created_at, a,
                       {"rubric_version": g.rubric_version, "confidence": g.confidence,
                        "repeat_index": g.repeat_index}, g.grade, g.failure_label, {})


def claim_rows(store: Store, run_id: int) -> Iterator[ClaimRow]:
    """Per (answer, person) with live claim marks: one row a marked claim, then the figures of a fully marked answer."""
    answers = {answer_id: answer_fields(ref) for answer_id, ref in marked_answer_refs(store, run_id).items()}
    for m in marked_answers(store, run_id):
        a = answers[m.answer_id]
        for index, mark in m.marks.items():
            yield ClaimRow(answer_key(a, m.grader, "claims", index), "human", m.grader, None, mark.created_at, a,
                           {"claim_index": index, "claim_text": mark.claim_text,
                            "scorers_visible": bool(mark.scorers_visible)},
                           (("claim_mark", mark.mark, "CATEGORICAL"),), index)
        f = m.figures
        values = tuple((name, value, "NUMERIC") for name, value in (("faithfulness", f.faithfulness),
                                                                   ("citation_precision", f.citation_precision))
                       if value is not None)
        if f.complete and values:
            yield ClaimRow(answer_key(a, m.grader, "claims"), "human", m.grader, None,
                           max(mark.created_at for mark in m.marks.values()), a,
                           {"claims": f.claims, "supported": f.supported, "miscited": f.miscited,
                            "unsupported": f.unsupported, "not_claims": f.not_claims,
                            "cited_factual": f.cited_factual,
                            "scorers_visible": any(mark.scorers_visible for mark in m.marks.values())}, values)


def _why(detail: dict) -> str | None:
    """What a scorer's detail says about its value: the error and why, or the scorer's reason."""
    if detail.get("error"):
        return f"{detail['error']}: {detail['why']}" if detail.get("why") else str(detail["error"])
    return detail.get("reason")


def metric_rows(store: Store, run_id: int) -> Iterator[MetricRow]:
    """Every scorer's value of every metric for the run's answers; an undefined one (None) says why in its comment."""
    for row in run_scores(store, run_id):
        detail = redact_json(json.loads(row["detail"] or "{}"))
        a = answer_fields(AnswerRef(row["run_id"], row["answer_id"], row["benchmark"], row["question_id"],
                                    row["answer_method"], row["budget"]))
        grader = f"scorer:{row['method']}"
        yield MetricRow(answer_key(a, grader, row["metric"]), "scorer", grader,
                        _why(detail) or ("not defined" if row["value"] is None else None), row["created_at"], a,
                        {"detail": detail}, row["metric"], row["value"], row["method"])


PREFERENCE_NAMES = {"raw": "raw", "bundle": "bundled", "tie": "tie"}  # the exported categories


def _bundled_ref(run_id: int, r: PairVerdict) -> AnswerRef:
    return AnswerRef(run_id, r.bundle_answer_id, r.benchmark, r.question_id, "bundle", r.budget)


def preference_rows(store: Store, run_id: int) -> Iterator[PreferenceRow]:
    """People's current preferences (on the bundled answer at the preference's budget, which the desk showed beside
    raw; the run's primary where it was not recorded), then every pairwise judge verdict of the run, with its
    consistency."""
    primary = run_row(store, run_id).primary_budget
    bundled = {(a["question_pk"], a["budget"]): a for a in answers_of_run(store, run_id, only_ok=False)
               if a["method"] == "bundle"}
    for p in live_preferences(store, run_id):
        b = bundled.get((p.question_pk, primary if p.budget is None else p.budget))
        if b is None:
            continue
        a = answer_fields(AnswerRef(run_id, b["id"], b["benchmark"], b["question_id"], "bundle", b["budget"]))
        yield PreferenceRow(answer_key(a, p.grader, "preference"), "human", p.grader, None, p.created_at, a,
                            {"left_method": p.left_method, "selection": p.selection,
                             "judge_visible": None if p.judge_visible is None else bool(p.judge_visible)},
                            PREFERENCE_NAMES[p.preferred])
    for v in verdicts_of(run_replies(store, run_id)):
        a = answer_fields(_bundled_ref(run_id, v))
        grader = f"judge:{v.judge_model}"
        orders = ", ".join(f"{first} shown first -> {v.by_order[first] or 'no verdict'}" for first in ("raw", "bundle"))
        yield PreferenceRow(answer_key(a, grader, v.rubric_version, "preference"), "judge", grader,
                            f"{v.status}: {orders}", max(r.created_at for r in v.replies), a,
                            {"rubric_version": v.rubric_version, "consistency": v.status, "stability": v.stability,
                             "by_order": v.by_order, "raw_answer_id": v.raw_answer_id},
                            None if v.verdict is None else PREFERENCE_NAMES[v.verdict])


def score_rows(store: Store, run_id: int) -> Iterator[ScoreRow]:
    """Every score row of the run: grades, then claim marks, then the scorers' metrics, then preferences."""
    yield from grade_rows(store, run_id)
    yield from claim_rows(store, run_id)
    yield from metric_rows(store, run_id)
    yield from preference_rows(store, run_id)


@dataclass(frozen=True)
class FlagScore:
    """A person's current flag on a question of the run (core/store/flags.py): the CATEGORICAL score "flag" (its
    reason) of the question, so of its trace and of no one answer."""

    key: str  # stable across exports: the run, the question and the person
    grader: str
    reason: str  # bad_gold | ambiguous | other
    note: str | None
    time: str
    question: dict[str, Any]  # run_id, benchmark, question_id
    metadata: dict[str, Any]  # judge_visible: a machine grade of the item was on screen when it was flagged


def flag_key(q: dict, grader: str) -> str:
    """`stable_key` of a person's flag on question `q` (run_id, benchmark, question_id)."""
    return stable_key(q["run_id"], q["benchmark"], q["question_id"], grader, "flag")


def flag_scores(store: Store, run_id: int) -> Iterator[FlagScore]:
    """People's current flags on the run's questions."""
    for f in flag_listing(store, run_id):
        q = {"run_id": run_id, "benchmark": f.benchmark, "question_id": f.question_id}
        yield FlagScore(flag_key(q, f.flag.grader), f.flag.grader, f.flag.reason, f.flag.note, f.flag.created_at, q,
                        {"judge_visible": bool(f.flag.judge_visible)})


def trace_ref(q: dict) -> str:
    """gradedesk's trace id of a question of a run (`q`: run_id, benchmark, question_id)."""
    return f"run{q['run_id']}:{q['benchmark']}:{q['question_id']}"


def record_ids(a: dict) -> dict[str, Any]:
    """The trace, observation and answer fields of gradedesk's records of answer `a` (answer_fields)."""
    return {"trace_id": trace_ref(a), "observation_id": f"answer:{a['answer_id']}", **a}


def gradedesk_records(store: Store, run_id: int) -> Iterator[dict]:
    for g in score_rows(store, run_id):
        ids = record_ids(g.answer)
        common = {"source": "HUMAN" if g.kind == "human" else "EVAL", "comment": g.comment, "grader": g.grader,
                  "time": g.time, "metadata": g.record_metadata}
        for name, value, data_type in g.scores():
            yield {"id": f"{g.key}:{name}", "name": name, "value": value, "data_type": data_type, **common, **ids}
    for f in flag_scores(store, run_id):
        yield {"id": f"{f.key}:flag", "name": "flag", "value": f.reason, "data_type": "CATEGORICAL", "source": "HUMAN",
               "comment": f.note, "grader": f.grader, "time": f.time, "metadata": f.metadata,
               "trace_id": trace_ref(f.question), **f.question}


def export_scores(store: Store, run_id: int, out: TextIO) -> int:
    """Write every score record of the run as JSONL to `out`; return how many were written."""
    count = 0
    for record in gradedesk_records(store, run_id):
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        count += 1
    return count
