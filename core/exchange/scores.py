"""Human and machine grades of a run as score records (JSONL), the shape Langfuse-style tools import.

One record per score:
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
People's grades are their current grades (the event history stays in the store); every machine grade row is exported.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import TextIO

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


def _ids(row: dict) -> dict:
    return {
        "trace_id": f"run{row['run_id']}:{row['benchmark']}:{row['question_id']}",
        "observation_id": f"answer:{row['answer_id']}",
        "run_id": row["run_id"], "answer_id": row["answer_id"], "benchmark": row["benchmark"],
        "question_id": row["question_id"], "method": row["method"], "budget": row["budget"],
    }


def _records(base_id: str, row: dict, common: dict, numeric: dict[str, int]) -> Iterator[dict]:
    scores = [("grade", row["grade"], "CATEGORICAL"), ("pass", int(is_pass(row["grade"])), "BOOLEAN")]
    scores += [(name, value, "NUMERIC") for name, value in numeric.items() if value is not None]
    for name, value, data_type in scores:
        yield {"id": f"{base_id}:{name}", "name": name, "value": value, "data_type": data_type, **common,
               **_ids(row)}


def human_records(store: Store, run_id: int) -> Iterator[dict]:
    for row in store.db.query(_HUMAN_SQL, (run_id,)):
        common = {"source": "HUMAN", "comment": row["note"], "grader": row["grader"], "time": row["created_at"],
                  "metadata": {"failure_label": row["failure_label"], "rubric_version": row["rubric_version"],
                               "mode": row["mode"], "judge_visible": bool(row["judge_visible"])}}
        yield from _records(row["uuid"], row, common, {d: row[d] for d in DIMENSIONS})


def machine_records(store: Store, run_id: int) -> Iterator[dict]:
    for row in store.db.query(_MACHINE_SQL, (run_id,)):
        grader = f"{row['grader_kind']}:{row['grader_model'] or 'unnamed'}"
        identity = json.dumps([row["run_id"], row["benchmark"], row["question_id"], row["method"], row["budget"],
                               grader, row["rubric_version"], row["repeat_index"]])
        common = {"source": "EVAL", "comment": row["reasoning"], "grader": grader, "time": row["created_at"],
                  "metadata": {"failure_label": row["failure_label"], "rubric_version": row["rubric_version"],
                               "confidence": row["confidence"], "repeat_index": row["repeat_index"]}}
        yield from _records(hashlib.sha1(identity.encode()).hexdigest()[:16], row, common, {})


def export_scores(store: Store, run_id: int, out: TextIO) -> int:
    """Write every score record of the run as JSONL to `out`; return how many were written."""
    count = 0
    for records in (human_records(store, run_id), machine_records(store, run_id)):
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count
