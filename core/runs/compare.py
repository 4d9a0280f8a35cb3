"""Run comparisons (`gradedesk compare`): what changed from run A to run B, matched by (question id, method, budget),
by one grader both runs have (a judge when there is one, else an imported grader, else the rule grader): pass rate,
context precision and prompt tokens per method, pass rates per category, and each question whose grade changed.
A typed `Comparison` (its `to_dict()` is what `compare --json` prints), counted as summary.py counts a run.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from gradedesk.core.errors import UserError
from gradedesk.core.grading.retrieval_evals import method_label
from gradedesk.core.grading.vocabulary import GRADES, GRADING_ERROR
from gradedesk.core.runs.headline import MethodNames, grade_counts, grader_label, method_order
from gradedesk.core.runs.summary import GraderKey, answer_figures, grader_key, score_means
from gradedesk.core.stats.records import Record
from gradedesk.core.store.answers import answer_outcomes
from gradedesk.core.store.connection import Store
from gradedesk.core.store.machine_grades import RunMachineGrade, machine_grade_rows
from gradedesk.core.store.run_records import resolve_run


@dataclass(frozen=True, slots=True)
class MethodDelta(Record):
    """One answer method in A and in B; None where a run has no such figure."""

    method: str
    pass_rate_a: float | None
    pass_rate_b: float | None
    context_precision_a: float | None
    context_precision_b: float | None
    mean_tokens_in_a: float | None
    mean_tokens_in_b: float | None


@dataclass(frozen=True, slots=True)
class CategoryDelta(Record):
    category: str
    method: str
    n: int  # matched answers of this category and method
    pass_rate_a: float | None
    pass_rate_b: float | None
    delta: float | None  # B - A; None when either rate is


@dataclass(frozen=True, slots=True)
class ChangedQuestion(Record):
    question_id: str
    category: str
    method: str
    grade_a: str  # a grade, or grading_error
    grade_b: str
    direction: str  # better | worse | changed (to or from a grading error)


@dataclass(frozen=True, slots=True)
class Comparison(Record):
    """What `gradedesk compare` prints (fields in `--json` order)."""

    run_a: int
    run_b: int
    grader: str
    matched: int
    methods: list[MethodDelta]
    only_in_a: int
    only_in_b: int
    categories: list[CategoryDelta]
    changed: list[ChangedQuestion]
    better: int
    worse: int


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


def compare(store: Store, run_a: str | int, run_b: str | int, grader: str | None = None) -> Comparison:
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
            questions.append(ChangedQuestion(k[0], rb.category, k[1], ga, gb, direction))
    categories = []
    for (cat, label) in sorted(per_cat, key=lambda k: (k[0], method_order(k[1]))):
        ca, cb = grade_counts(per_cat[(cat, label)][0]), grade_counts(per_cat[(cat, label)][1])
        delta = None if ca.pass_rate is None or cb.pass_rate is None else cb.pass_rate - ca.pass_rate
        categories.append(CategoryDelta(cat, label, ca.n, ca.pass_rate, cb.pass_rate, delta))
    return Comparison(
        run_a=a, run_b=b, grader=grader_label(*key), matched=len(matched),
        methods=_method_deltas(store, a, b, grades),
        only_in_a=len(set(grades[a]) - set(grades[b])), only_in_b=len(set(grades[b]) - set(grades[a])),
        categories=categories, changed=questions,
        better=sum(q.direction == "better" for q in questions),
        worse=sum(q.direction == "worse" for q in questions),
    )


_Side = tuple[float | None, float | None, float | None]  # pass rate, context precision, mean input tokens
_NO_SIDE: _Side = (None, None, None)


def _method_deltas(store: Store, a: int, b: int,
                   grades: dict[int, dict[tuple[str, str], RunMachineGrade]]) -> list[MethodDelta]:
    """Per method: pass rate, mean context precision and mean input tokens in A and in B."""
    sides: dict[int, dict[str, _Side]] = {}
    for run_id in (a, b):
        per_method: dict[str, list[RunMachineGrade]] = defaultdict(list)
        for (_, label), r in grades[run_id].items():
            per_method[label].append(r)
        plain = MethodNames()  # runs are compared method by method: raw and bundle@<budget>, whatever their sides
        precision = {x.method: x.mean for x in score_means(store, run_id, ("context_precision",), plain)}
        tokens = {x.method: x.mean_tokens_in for x in answer_figures(answer_outcomes(store, run_id), plain)}
        sides[run_id] = {
            label: (grade_counts(per_method[label]).pass_rate if label in per_method else None,
                    precision.get(label), tokens.get(label))
            for label in set(per_method) | set(precision) | set(tokens)}
    out = []
    for label in sorted(set(sides[a]) | set(sides[b]), key=method_order):
        pass_a, precision_a, tokens_a = sides[a].get(label, _NO_SIDE)
        pass_b, precision_b, tokens_b = sides[b].get(label, _NO_SIDE)
        out.append(MethodDelta(label, pass_a, pass_b, precision_a, precision_b, tokens_a, tokens_b))
    return out
