"""Run comparisons (`gradedesk compare`): what changed from run A to run B, matched by (question id, method, budget),
by one grader both runs have (a judge when there is one, else an imported grader, else the rule grader): pass rate,
context precision and prompt tokens per method, pass rates per category, and each question whose grade changed.
JSON-ready data, counted as summary.py counts a run.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.grading.retrieval_evals import method_label
from gradedesk.core.grading.vocabulary import GRADES, GRADING_ERROR
from gradedesk.core.runs.summary import (
    GraderKey, answer_figures, grade_counts, grader_key, grader_label, method_order, score_means,
)
from gradedesk.core.store.answers import answer_outcomes
from gradedesk.core.store.connection import Store
from gradedesk.core.store.machine_grades import RunMachineGrade, machine_grade_rows
from gradedesk.core.store.run_records import resolve_run


def _pick_grader(store: Store, a: int, b: int, grader: str | None) -> GraderKey:
    """The grader both runs were graded by: the one named, else a judge, else an imported grader, else rules."""
    keys = {}
    for run_id in (a, b):
        keys[run_id] = Counter(grader_key(r) for r in machine_grade_rows(store, run_id))
    common = [k for k in keys[a] if k in keys[b]]
    if grader:
        common = [k for k in common if grader in (k[1], k[0], grader_label(*k))]
    if not common:
        what = f" by {grader!r}" if grader else ""
        raise UserError(f"runs {a} and {b} have no grader in common{what}: grade both the same way "
                        f"(`gradedesk judge RUN --model M` or `gradedesk grade-offline RUN`)")
    rank = {"judge": 0, "imported": 1, "rule": 2}
    return min(common, key=lambda k: (rank.get(k[0], 3), -(keys[a][k] + keys[b][k])))


def compare(store: Store, run_a: str | int, run_b: str | int, grader: str | None = None) -> dict[str, Any]:
    """What changed from run A to run B, matched by (question id, method, budget), per category and per question."""
    a, b = resolve_run(store, str(run_a)), resolve_run(store, str(run_b))
    key = _pick_grader(store, a, b, grader)
    grades = {}
    for run_id in (a, b):
        grades[run_id] = {(r.question_id, method_label(r.method, r.budget)): r
                          for r in machine_grade_rows(store, run_id) if grader_key(r) == key}
    matched = sorted(set(grades[a]) & set(grades[b]), key=lambda k: (k[0], method_order(k[1])))

    def outcome(r: RunMachineGrade) -> str:
        return GRADING_ERROR if r.failure_label == GRADING_ERROR else r.grade

    per_cat: dict[tuple[str, str], tuple[list[RunMachineGrade], list[RunMachineGrade]]] = defaultdict(lambda: ([], []))
    questions = []
    for k in matched:
        ra, rb = grades[a][k], grades[b][k]
        per_cat[(rb.category, k[1])][0].append(ra)
        per_cat[(rb.category, k[1])][1].append(rb)
        ga, gb = outcome(ra), outcome(rb)
        if ga != gb:
            direction = "changed"
            if GRADING_ERROR not in (ga, gb):
                direction = "better" if GRADES.index(gb) < GRADES.index(ga) else "worse"
            questions.append({"question_id": k[0], "category": rb.category, "method": k[1], "grade_a": ga,
                              "grade_b": gb, "direction": direction})
    categories = []
    for (cat, label) in sorted(per_cat, key=lambda k: (k[0], method_order(k[1]))):
        ca, cb = grade_counts(per_cat[(cat, label)][0]), grade_counts(per_cat[(cat, label)][1])
        delta = None if ca.pass_rate is None or cb.pass_rate is None else cb.pass_rate - ca.pass_rate
        categories.append({"category": cat, "method": label, "n": ca.n, "pass_rate_a": ca.pass_rate,
                           "pass_rate_b": cb.pass_rate, "delta": delta})
    return {
        "run_a": a, "run_b": b, "grader": grader_label(*key), "matched": len(matched),
        "methods": _method_deltas(store, a, b, grades),
        "only_in_a": len(set(grades[a]) - set(grades[b])), "only_in_b": len(set(grades[b]) - set(grades[a])),
        "categories": categories, "changed": questions,
        "better": sum(q["direction"] == "better" for q in questions),
        "worse": sum(q["direction"] == "worse" for q in questions),
    }


def _method_deltas(store: Store, a: int, b: int,
                   grades: dict[int, dict[tuple[str, str], RunMachineGrade]]) -> list[dict[str, Any]]:
    """Per method: pass rate, mean context precision and mean input tokens in A and in B."""
    sides = {}
    for run_id in (a, b):
        per_method: dict[str, list[RunMachineGrade]] = defaultdict(list)
        for (_, label), r in grades[run_id].items():
            per_method[label].append(r)
        precision = {x.method: x.mean for x in score_means(store, run_id, ("context_precision",))}
        tokens = {x.method: x.mean_tokens_in for x in answer_figures(answer_outcomes(store, run_id))}
        sides[run_id] = {
            label: {"pass_rate": grade_counts(per_method[label]).pass_rate if label in per_method else None,
                    "context_precision": precision.get(label), "mean_tokens_in": tokens.get(label)}
            for label in set(per_method) | set(precision) | set(tokens)}
    out = []
    for label in sorted(set(sides[a]) | set(sides[b]), key=method_order):
        row: dict[str, Any] = {"method": label}
        for field_name in ("pass_rate", "context_precision", "mean_tokens_in"):
            va, vb = sides[a].get(label, {}).get(field_name), sides[b].get(label, {}).get(field_name)
            row.update({f"{field_name}_a": va, f"{field_name}_b": vb})
        out.append(row)
    return out
