"""A run's grades as score records, JSONL: gradedesk's own records (`export-scores`, default).

`grade_rows` reads every grade of a run once, for all the score formats (core/exchange/scores_langfuse.py, Langfuse's
score API; core/exchange/scores_phoenix.py, Phoenix span annotations). People's grades are their current grades (the
event history stays in the store); every machine grade row is exported.

gradedesk's records, one per score:
  id           stable across exports: the human event's uuid, or a hash of the machine grade's identity, + ":" + name
  name         "grade" (CATEGORICAL: the four-level grade), "pass" (BOOLEAN: 1 when fully_correct, else 0), and for
               people the dimension scores "correctness", "grounding", "completeness", "conciseness" (NUMERIC, 1-5)
  value        the score
  data_type    CATEGORICAL | BOOLEAN | NUMERIC
  source       HUMAN (a person at the desk) | EVAL (the LLM judge, the rule grader or imported grades)
  comment      the person's note, or the machine grader's reasoning
  grader       the person's name, or "judge:<model>", "rule:<name>", "imported:<source>"
  time         when the grade was made (UTC ISO-8601)
  trace_id     "run<run>:<benchmark>:<question_id>" (one trace per question of a run)
  observation_id "answer:<answer id>"; plus run_id, answer_id, benchmark, question_id, method, budget
  metadata     failure_label, rubric_version, and mode / judge_visible (people) or confidence / repeat_index (machines)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from gradedesk.core.grading.vocabulary import DIMENSIONS, is_pass
from gradedesk.core.store.connection import Store

_HUMAN_SQL = """
    SELECT h.*, a.run_id, a.method, a.budget, q.benchmark, q.question_id
    FROM current_human_grades h JOIN answers a ON a.id = h.answer_id JOIN questions q ON q.id = a.question_pk
    WHERE a.run_id = ? AND h.grade IS NOT NULL ORDER BY h.answer_id, h.grader
"""
_MACHINE_SQL = """
    SELECT g.*, a.run_id, a.method, a.budget, q.benchmark, q.question_id
    FROM auto_grades g JOIN answers a ON a.id = g.answer_id JOIN questions q ON q.id = a.question_pk
    WHERE a.run_id = ? ORDER BY g.answer_id, g.id
"""


@dataclass(frozen=True)
class GradeRow:
    """One grade of an answer of the run, whoever made it."""
    key: str  # stable across exports: the human event's uuid, or a hash of the machine grade's identity
    kind: str  # human | judge | rule | imported
    grader: str  # the person's name, or "<kind>:<model or name>"
    grade: str
    failure_label: str | None
    dimensions: dict[str, int]  # a person's scores, 1-5 (those given)
    comment: str | None  # the person's note, or the machine's reasoning
    time: str
    answer: dict[str, Any]  # run_id, answer_id, benchmark, question_id, method, budget
    metadata: dict[str, Any]  # rubric_version, and mode / judge_visible (people) or confidence / repeat_index

    def scores(self) -> list[tuple[str, Any, str]]:
        """(name, value, data type) of every score this grade makes."""
        out = [("grade", self.grade, "CATEGORICAL"), ("pass", int(is_pass(self.grade)), "BOOLEAN")]
        return out + [(name, value, "NUMERIC") for name, value in self.dimensions.items()]


def _answer(row: dict) -> dict[str, Any]:
    return {k: row[k] for k in ("run_id", "answer_id", "benchmark", "question_id", "method", "budget")}


def grade_rows(store: Store, run_id: int) -> Iterator[GradeRow]:
    """People's current grades, then every machine grade of the run."""
    for row in store.db.query(_HUMAN_SQL, (run_id,)):
        yield GradeRow(row["uuid"], "human", row["grader"], row["grade"], row["failure_label"],
                       {d: row[d] for d in DIMENSIONS if row[d] is not None}, row["note"], row["created_at"],
                       _answer(row), {"rubric_version": row["rubric_version"], "mode": row["mode"],
                                      "judge_visible": bool(row["judge_visible"])})
    for row in store.db.query(_MACHINE_SQL, (run_id,)):
        grader = f"{row['grader_kind']}:{row['grader_model'] or 'unnamed'}"
        identity = json.dumps([row["run_id"], row["benchmark"], row["question_id"], row["method"], row["budget"],
                               grader, row["rubric_version"], row["repeat_index"]])
        yield GradeRow(hashlib.sha1(identity.encode()).hexdigest()[:16], row["grader_kind"], grader, row["grade"],
                       row["failure_label"], {}, row["reasoning"], row["created_at"], _answer(row),
                       {"rubric_version": row["rubric_version"], "confidence": row["confidence"],
                        "repeat_index": row["repeat_index"]})


def gradedesk_records(store: Store, run_id: int) -> Iterator[dict]:
    for g in grade_rows(store, run_id):
        a = g.answer
        ids = {"trace_id": f"run{a['run_id']}:{a['benchmark']}:{a['question_id']}",
               "observation_id": f"answer:{a['answer_id']}", **a}
        common = {"source": "HUMAN" if g.kind == "human" else "EVAL", "comment": g.comment, "grader": g.grader,
                  "time": g.time, "metadata": {"failure_label": g.failure_label, **g.metadata}}
        for name, value, data_type in g.scores():
            yield {"id": f"{g.key}:{name}", "name": name, "value": value, "data_type": data_type, **common, **ids}


def export_scores(store: Store, run_id: int, out: TextIO) -> int:
    """Write every score record of the run as JSONL to `out`; return how many were written."""
    count = 0
    for record in gradedesk_records(store, run_id):
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        count += 1
    return count
