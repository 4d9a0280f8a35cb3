"""Pass rates per method and budget: the machine grader's, the judge-corrected ones, and the budget-sweep data.

- Judge-corrected pass rates use one calibration set (all person-graded answers, both methods): the judge's TPR/TNR are
  assumed to be the same for raw and bundled answers. The paired raw-vs-bundled difference uses the run's primary
  budget (the bundled answer the desk shows beside raw). The samples section's prediction-powered pass rates take the
  same grader's pass rates (`arms_grader`: the chosen one, else the one grader on the desk, else the view's pick of
  the kind).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gradedesk.core.agreement.grade_pairs import GraderChoice, Pair, pairs_matrix
from gradedesk.core.grading.vocabulary import GRADES, PASS_GRADE
from gradedesk.core.stats import measures as agree
from gradedesk.core.stats.rogan_gladen import corrected_difference, corrected_pass_rate
from gradedesk.core.stats.measures import Estimate
from gradedesk.core.stats.records import Record
from gradedesk.core.store.connection import Store
from gradedesk.core.store.reports import PairRow, answer_verdicts, human_pass_rates
from gradedesk.core.store.run_records import run_row


@dataclass
class Arm:
    """One (method, budget) of the run: its answers, their prompt tokens and machine grades of the chosen kind."""

    method: str
    budget: int
    answers: int = 0
    tokens: int = 0
    counted: int = 0  # answers with a prompt token count
    judged: int = 0
    passed: int = 0


def scan_answers(store: Store, run_id: int, kind: str | None,
                 choice: GraderChoice | None) -> tuple[list[Arm], np.ndarray, int | None]:
    """One pass over the run's answers: per-arm counts, and the paired raw-vs-primary-bundle table of machine passes
    (by `choice`, the grader the people were compared with, else by the `machine_grades` view's pick of `kind`).

    One scan because the machine grade costs a correlated lookup per answer (seconds at a million answers).
    The paired table is [[raw pass & bundle pass, raw pass & bundle fail], [raw fail & ..., ...]]. A machine grade
    that is a grading_error (stored as `unsupported`) is not judged: it is no verdict, pass or fail.
    """
    primary = run_row(store, run_id).primary_budget
    arms: dict[tuple[str, int], Arm] = {}
    by_question: dict[int, list[bool | None]] = {}
    rows = (answer_verdicts(store, run_id, choice.kind, choice.model) if choice
            else answer_verdicts(store, run_id))
    for question_pk, method, budget, tokens_in, grade, grader_kind in rows:
        arm = arms.get((method, budget))
        if arm is None:
            arm = arms[(method, budget)] = Arm(method, budget)
        arm.answers += 1
        if tokens_in is not None:
            arm.tokens += tokens_in
            arm.counted += 1
        if grader_kind != kind or kind is None or grade is None:  # None: a grading_error, no verdict
            continue
        arm.judged += 1
        arm.passed += grade == PASS_GRADE
        if method == "raw" or budget == primary:
            by_question.setdefault(question_pk, [None, None])[method == "bundle"] = grade == PASS_GRADE
    paired = np.zeros((2, 2), dtype=np.int64)
    for raw_pass, bundle_pass in by_question.values():
        if raw_pass is not None and bundle_pass is not None:
            paired[1 - raw_pass, 1 - bundle_pass] += 1
    ordered = sorted(arms.values(), key=lambda a: (a.method != "raw", a.budget))
    return ordered, paired, primary


@dataclass
class ArmPassRate(Record):
    method: str
    budget: int
    judged: int
    judge_passed: int
    observed_rate: float
    corrected: Estimate


@dataclass
class Calibration(Record):
    """The machine grader's error rates against the people, on the person-graded answers."""

    n: int
    tpr: Estimate
    tnr: Estimate


@dataclass
class BundleMinusRaw(Record):
    budget: int | None  # the bundled answer compared with raw: the run's primary budget
    paired_questions: int
    estimate: Estimate


@dataclass
class CorrectedPassRates(Record):
    calibration: Calibration
    arms: list[ArmPassRate]
    bundle_minus_raw: BundleMinusRaw


def corrected_pass_rates(arms: list[Arm], paired: np.ndarray, primary: int | None, pairs: list[Pair],
                         boot: int, seed: int) -> CorrectedPassRates:
    """Each arm's machine pass rate corrected by the machine grader's TPR/TNR against the people, and bundle - raw."""
    cm2 = agree.collapse_binary(pairs_matrix(pairs), GRADES.index(PASS_GRADE))
    out_arms = [ArmPassRate(arm.method, arm.budget, arm.judged, arm.passed, arm.passed / arm.judged,
                            corrected_pass_rate(cm2, arm.passed, arm.judged, boot, seed))
                for arm in arms if arm.judged]
    diff = corrected_difference(cm2, paired, boot, seed)
    tpr, tnr = (agree.estimate(cm2, m) for m in agree.binary_rates())
    return CorrectedPassRates(Calibration(int(cm2.sum()), tpr, tnr), out_arms,
                              BundleMinusRaw(primary, int(paired.sum()), diff))


@dataclass
class TokenQuality(Record):
    """One (method, budget) of the budget sweep: its answers, mean prompt tokens and pass rates."""

    method: str
    budget: int
    answers: int
    mean_tokens_in: float | None
    machine_pass_rate: float | None
    human_pass_rate: float | None


def quality_by_tokens(store: Store, run_id: int, arms: list[Arm]) -> list[TokenQuality]:
    """Per (method, budget): mean prompt tokens and pass rates, the data of the budget-sweep plot."""
    human = human_pass_rates(store, run_id, PASS_GRADE)
    return [TokenQuality(a.method, a.budget, a.answers, a.tokens / a.counted if a.counted else None,
                         a.passed / a.judged if a.judged else None, human.get((a.method, a.budget))) for a in arms]


def arms_grader(choice: GraderChoice | None, chosen: list[PairRow]) -> GraderChoice | None:
    """Whose pass rates the corrected rates correct: the chosen grader, or the one grader on the desk for every pair."""
    if choice is not None:
        return choice
    on_desk = {(r.grader_kind, r.grader_model) for r in chosen}
    if len(on_desk) == 1 and any(r.recorded for r in chosen):
        kind, model = on_desk.pop()
        if kind is not None:
            return GraderChoice(kind, model)
    return None
