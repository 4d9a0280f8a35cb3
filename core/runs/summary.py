"""Run summaries (the CLI prints tables or JSON from them): a typed `RunSummary` whose `to_dict()` is what
`summary --json` prints. Its per-method counts and labels serve run comparisons too (compare.py).

A summary covers one run: answers, tokens and cost per method (raw, bundle@<budget>); grades per grader and method, and
per category; people's grades and preferences by budget; failure labels; retrieval metrics; faithfulness and relevance per scorer; claims, invalid citations and
people's faithfulness from their claim marks; what grading cost against what answering cost; judge consistency across
repeats; and warnings (self-evaluation, grading errors, failed answers, claims not computed, answers truncated at
max_tokens, grades made against a gold answer that has been corrected since).

Conventions: every grader is named as what it is (an LLM judge with its model and rubric version, the rule grader, an
imported grade); only the judge's first repeat counts in grade tables (the others feed consistency); grading errors are
their own column, never folded into a grade, and pass rates are over usable grades; a mean is None when nothing could
be measured, and the count of unlabelled or undefined values is given beside it.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from gradedesk.core.grading.budget_figures import PeopleByBudget, people_by_budget
from gradedesk.core.grading.claim_figures import MethodClaims, claim_summary
from gradedesk.core.grading.judge_consistency import JudgeConsistency, judge_consistency
from gradedesk.core.grading.retrieval_evals import METRICS as RETRIEVAL_METRICS
from gradedesk.core.grading.scorers import SCORE_METRICS
from gradedesk.core.providers import TRUNCATED
from gradedesk.core.runs.failures import failure_lines
from gradedesk.core.runs.headline import (
    GradeCounts, Headline, MethodNames, grade_counts, grader_label, grader_order, headline, method_names,
)
from gradedesk.core.stats.records import FLAT, Record
from gradedesk.core.store.answers import AnswerOutcome, answer_outcomes
from gradedesk.core.store.connection import Store
from gradedesk.core.store.gold import stale_grade_counts
from gradedesk.core.store.machine_grades import RunMachineGrade, machine_grade_rows, run_scores
from gradedesk.core.store.grades import PersonGradeRow, person_grade_rows
from gradedesk.core.store.reports import CallCost, judge_cost, llm_score_details
from gradedesk.core.store.run_records import RunRow, resolve_run, run_row

GraderKey = tuple[str, str | None, str | None]  # (kind, model, rubric version)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


@dataclass
class RunHeader(Record):
    """What the run was: when, from where, which provider and model, which benchmark and primary budget."""

    id: int
    created_at: str
    source: str
    label: str | None
    provider: str
    model: str | None
    endpoint_host: str | None
    benchmark: str | None
    primary_budget: int | None

    @classmethod
    def of(cls, run: RunRow) -> RunHeader:
        return cls(run.id, run.created_at, run.source, run.label, run.provider, run.model, run.endpoint_host,
                   run.benchmark, run.primary_budget)


def grader_key(r: RunMachineGrade) -> GraderKey:
    return (r.grader_kind, r.grader_model, r.rubric_version)


@dataclass
class AnswerFigures(Record):
    """One answer method of a run: its answers by status, tokens, cost and latency."""

    method: str  # raw | bundle@<budget>
    answers: int
    ok: int
    error: int
    pending: int
    truncated: int
    tokens_in: int
    tokens_out: int
    mean_tokens_in: float | None
    cost_usd: float | None
    unpriced: int  # answers without a known cost
    mean_latency_ms: float | None


def answer_figures(answers: list[AnswerOutcome], names: MethodNames) -> list[AnswerFigures]:
    groups: dict[str, list[AnswerOutcome]] = defaultdict(list)
    for a in answers:
        groups[names.label(a.method, a.budget)].append(a)
    out = []
    for label in sorted(groups, key=names.order):
        rows = groups[label]
        ok = [a for a in rows if a.status == "ok"]
        costs = [a.cost_usd for a in ok if a.cost_usd is not None]
        out.append(AnswerFigures(
            label, len(rows), len(ok), sum(a.status == "error" for a in rows), sum(a.status == "pending" for a in rows),
            sum(a.finish_reason == TRUNCATED for a in ok), sum(a.tokens_in or 0 for a in ok),
            sum(a.tokens_out or 0 for a in ok), _mean([a.tokens_in for a in ok if a.tokens_in is not None]),
            sum(costs) if costs else None, len(ok) - len(costs),
            _mean([a.latency_ms for a in ok if a.latency_ms is not None])))
    return out


@dataclass
class ScoreMean(Record):
    """Mean of one metric for one answer method and scorer; values that could not be measured counted apart."""

    method: str
    scorer: str
    metric: str
    mean: float | None
    n: int
    unlabelled: int
    errors: int
    undefined: int


def score_means(store: Store, run_id: int, metrics: tuple[str, ...], names: MethodNames) -> list[ScoreMean]:
    """Mean of each metric per answer method and scorer method; unlabelled / undefined / errors counted apart."""
    rows = run_scores(store, run_id, metrics)
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(names.label(r["answer_method"], r["budget"]), r["method"], r["metric"])].append(r)
    out = []
    for (label, scorer, metric), rs in sorted(groups.items(), key=lambda kv: (names.order(kv[0][0]), kv[0][1],
                                                                              metrics.index(kv[0][2]))):
        details = [json.loads(r["detail"] or "{}") for r in rs]
        values = [r["value"] for r in rs if r["value"] is not None]
        out.append(ScoreMean(label, scorer, metric, _mean(values), len(values),
                             sum(bool(d.get("unlabelled")) for d in details),
                             sum(bool(d.get("error")) for d in details),
                             sum(r["value"] is None and not d.get("unlabelled") and not d.get("error")
                                 for r, d in zip(rs, details))))
    return out


@dataclass
class GradingCost(Record):
    judge: CallCost
    llm_scores: CallCost
    cost_usd: float | None  # None: no cost known at all
    tokens: int


def _grading_cost(store: Store, run_id: int) -> GradingCost:
    judge = judge_cost(store, run_id)
    details = [json.loads(d or "{}") for d in llm_score_details(store, run_id)]
    costs = [d["cost_usd"] for d in details if d.get("cost_usd") is not None]
    llm_scores = CallCost(sum(d.get("tokens_in") or 0 for d in details), sum(d.get("tokens_out") or 0 for d in details),
                          sum(costs) if costs else None, len(details))
    total = None if judge.cost_usd is None and llm_scores.cost_usd is None else \
        (judge.cost_usd or 0.0) + (llm_scores.cost_usd or 0.0)
    return GradingCost(judge, llm_scores, total,
                       judge.tokens_in + judge.tokens_out + llm_scores.tokens_in + llm_scores.tokens_out)


@dataclass
class GraderInfo(Record):
    grader: str  # named as what it is: 'judge gpt-x (rubric)', 'rule grader rules/1', ...
    kind: str
    model: str | None
    rubric_version: str | None
    self_evaluation: bool  # a judge whose model also wrote the answers


@dataclass
class GradeRow(Record):
    grader: str
    method: str
    counts: GradeCounts = field(metadata=FLAT)
    ungraded: int  # answered, not graded by this grader


@dataclass
class CategoryRow(Record):
    grader: str
    category: str
    method: str
    counts: GradeCounts = field(metadata=FLAT)


@dataclass
class FailureCount(Record):
    grader: str
    method: str
    failure_label: str
    n: int


@dataclass
class AnsweringCost(Record):
    tokens: int
    cost_usd: float | None


@dataclass
class Cost(Record):
    answering: AnsweringCost
    grading: GradingCost
    grading_to_answering: float | None


@dataclass
class RunSummary(Record):
    """Everything `gradedesk summary` prints (fields in `--json` order)."""

    run: RunHeader
    headline: Headline  # retrieval, tokens and pass rates per method with intervals: what `summary` leads with
    answers: list[AnswerFigures]
    graders: list[GraderInfo]
    grades: list[GradeRow]
    people: list[GradeRow]  # each person's current grades per method ('person NAME'), beside the machine graders'
    by_category: list[CategoryRow]
    failure_labels: list[FailureCount]
    retrieval: list[ScoreMean]
    answer_scores: list[ScoreMean]
    claims: list[MethodClaims]
    cost: Cost
    consistency: JudgeConsistency | None  # None: no repeats
    stale_grades: dict[str, int]
    warnings: list[str]
    by_budget: PeopleByBudget  # people's grades and preferences per budget of the bundled answer


def people_grades(store: Store, run_id: int, answered: dict[str, int], names: MethodNames) -> list[GradeRow]:
    """Each person's current grades per method, counted as the machine graders' are (a person makes no grading
    errors: that column stays 0); ungraded = answered answers this person has not graded."""
    groups: dict[tuple[str, str], list[PersonGradeRow]] = defaultdict(list)
    for r in person_grade_rows(store, run_id):
        groups[(r.grader, names.label(r.method, r.budget))].append(r)
    out = []
    for grader, label in sorted(groups, key=lambda k: (k[0], names.order(k[1]))):
        counts = grade_counts(groups[(grader, label)])
        out.append(GradeRow(f"person {grader}", label, counts, max(0, answered.get(label, 0) - counts.n)))
    return out


def summarize(store: Store, run: str | int) -> RunSummary:
    run_id = resolve_run(store, str(run))
    info = run_row(store, run_id)
    answers = answer_outcomes(store, run_id)
    names = method_names(store, run_id)
    answer_table = answer_figures(answers, names)
    answered = {a.method: a.ok for a in answer_table}
    machine = machine_grade_rows(store, run_id)
    by_grader: dict[GraderKey, list[RunMachineGrade]] = defaultdict(list)
    for r in machine:
        by_grader[grader_key(r)].append(r)
    graders: list[GraderInfo] = []
    grade_table: list[GradeRow] = []
    category_table: list[CategoryRow] = []
    label_table: list[tuple[str, str, str]] = []
    for key in sorted(by_grader, key=lambda k: grader_order(*k)):
        kind, model, rubric = key
        name = grader_label(kind, model, rubric)
        rows = by_grader[key]
        graders.append(GraderInfo(name, kind, model, rubric,
                                  kind == "judge" and bool(info.model) and model == info.model))
        per_method: dict[str, list[RunMachineGrade]] = defaultdict(list)
        per_cat: dict[tuple[str, str], list[RunMachineGrade]] = defaultdict(list)
        for r in rows:
            label = names.label(r.method, r.budget)
            per_method[label].append(r)
            per_cat[(r.category, label)].append(r)
            if r.failure_label:
                label_table.append((name, label, r.failure_label))
        for label in sorted(per_method, key=names.order):
            counts = grade_counts(per_method[label])
            grade_table.append(GradeRow(name, label, counts, max(0, answered.get(label, 0) - counts.n)))
        for (cat, label) in sorted(per_cat, key=lambda k: (k[0], names.order(k[1]))):
            category_table.append(CategoryRow(name, cat, label, grade_counts(per_cat[(cat, label)])))
    labels = Counter(label_table)
    failure_table = [FailureCount(g, m, lab, n)
                     for (g, m, lab), n in sorted(labels.items(), key=lambda kv: (kv[0][0], names.order(kv[0][1]),
                                                                                   -kv[1], kv[0][2]))]
    answering_costs = [a.cost_usd for a in answer_table if a.cost_usd is not None]
    answering = AnsweringCost(sum(a.tokens_in + a.tokens_out for a in answer_table),
                              sum(answering_costs) if answering_costs else None)
    grading = _grading_cost(store, run_id)
    consistency = judge_consistency(store, run_id)
    stale = stale_grade_counts(store, run_id)
    warnings = _warnings(graders, grade_table, answer_table, consistency, stale)
    warnings += failure_lines(store, run_id, "the same `gradedesk run` again retries them")  # failed answers
    claims = claim_summary(store, run_id, names.label)
    missing = sum(c.counts.not_computed for c in claims)
    if missing:
        warnings.append(f"the claims of {missing} answer(s) are not computed yet: `gradedesk grade-offline {run_id}` "
                        "computes them (the desk does too, answer by answer)")
    return RunSummary(
        run=RunHeader.of(info), headline=headline(store, run_id, answers, machine, names), answers=answer_table,
        graders=graders, grades=grade_table, people=people_grades(store, run_id, answered, names),
        by_category=category_table,
        failure_labels=failure_table, retrieval=score_means(store, run_id, RETRIEVAL_METRICS, names),
        answer_scores=score_means(store, run_id, SCORE_METRICS, names), claims=claims,
        cost=Cost(answering, grading, (grading.cost_usd / answering.cost_usd)
                  if grading.cost_usd is not None and answering.cost_usd else None),
        consistency=consistency if consistency.answers_repeated else None,
        stale_grades=stale,
        warnings=warnings,
        by_budget=people_by_budget(store, run_id),
    )


def _warnings(graders: list[GraderInfo], grade_table: list[GradeRow], answer_table: list[AnswerFigures],
              consistency: JudgeConsistency, stale: dict[str, int]) -> list[str]:
    out = []
    for g in graders:
        if g.self_evaluation:
            out.append(f"the judge model {g.model} also wrote the answers: self-evaluation bias; "
                       f"prefer a different judge model")
    for g in graders:
        if g.kind == "rule":
            out.append(f"{g.grader} is an offline rule grader (key terms, rapidfuzz), not an LLM judge")
    errors = sum(r.counts.grading_error for r in grade_table)
    if errors:
        out.append(f"{errors} grade(s) are grading errors (unusable judge replies or failed calls); "
                   f"`gradedesk judge` again retries the failed calls, unusable replies are kept as they are")
    truncated = sum(a.truncated for a in answer_table)
    if truncated:
        out.append(f"{truncated} answer(s) were truncated: cut at the run's max_tokens (finish_reason length)")
    if stale:
        out.append(f"{sum(stale.values())} machine grade(s) were made against a gold answer that has been corrected "
                   f"since ({', '.join(f'{kind}: {n}' for kind, n in sorted(stale.items()))}); "
                   f"`gradedesk grade-offline` and `gradedesk judge` grade them again")
    if consistency.changed:
        out.append(f"the judge changed its grade on {len(consistency.changed)} of "
                   f"{consistency.answers_repeated} repeated answer(s)")
    return out
