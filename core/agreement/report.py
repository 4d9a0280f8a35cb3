"""The agreement report of one run: person vs machine grader, and what the grades say about raw vs bundled.

Reads the store (current human grades, the `machine_grades` view, human grade events, answers, questions, rubrics) and
computes everything with the pure statistics of core/stats. Its parts: the pairs compared and whom they are
compared with (grade_pairs.py), pass rates per method and the judge-corrected ones (pass_rates.py), people's switches,
self-consistency and alpha (people.py), the samples (samples.py), judge rubric versions and bias probes
(rubric_versions.py, machine_bias.py), faithfulness (faithfulness.py), people on the items assigned to several of them
and the adjudicated grade against the machine (overlap.py), which answer is better (pairwise.py). Here: the headline, the breakdowns, the
rubrics section and the notes, gathered in one typed `AgreementReport` (its `to_dict()` is what `agree --json` prints).

- Rubric versions: the newest row of `rubrics` is current; a person's grade saved under another version is flagged for
  re-grading. A run judged under several rubrics gets them side by side on the items all of them graded
  (rubric_versions.py); the headline uses each answer's machine grade as the `machine_grades` view picks it.
- Bias probes of the machine grader (machine_bias.py): its pass rate against the people's, and agreement by answer
  length.
- By budget (budget_curve.py): people's grades and preferences per budget, and the pass-rate curve of people and the
  machine grader over the budgets.
- Flagged items (core/store/flags.py: a person said the question's gold answer or wording needs fixing) are left out
  by the store's readers of every figure but faithfulness (claims against evidence, which the gold does not enter);
  the notes and `flagged_items_excluded` say how many.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from gradedesk.core.agreement.budget_curve import BudgetCurve, budget_curve
from gradedesk.core.agreement.faithfulness import Faithfulness, faithfulness_agreement
from gradedesk.core.agreement.grade_pairs import (
    KIND_NAMES, GraderChoice, Pair, choose_kind, load_pairs, machine_label, pair_from_row, pairs_matrix,
)
from gradedesk.core.agreement.machine_bias import MachineBias, machine_bias
from gradedesk.core.agreement.overlap import OverlapAgreement, overlap_agreement
from gradedesk.core.agreement.pairwise import PairwiseFigures, pairwise_figures
from gradedesk.core.agreement.pass_rates import (
    CorrectedPassRates, TokenQuality, arms_grader, corrected_pass_rates, quality_by_tokens, scan_answers,
)
from gradedesk.core.agreement.people import (
    SelfConsistency, SwitchRate, grade_histories, people_alpha_units, self_consistency, switches,
)
from gradedesk.core.agreement.rubric_versions import JudgeVersions, judge_versions
from gradedesk.core.agreement.samples import PpiPassRate, SampleReport, ppi_pass_rates, sample_report
from gradedesk.core.grading.vocabulary import GRADES, PASS_GRADE
from gradedesk.core.stats import measures as agree
from gradedesk.core.stats.krippendorff import krippendorff_alpha_ordinal
from gradedesk.core.stats.measures import Estimate
from gradedesk.core.stats.records import FLAT, Record
from gradedesk.core.store.connection import Store
from gradedesk.core.store.flags import flagged_questions
from gradedesk.core.store.gold import stale_grade_counts
from gradedesk.core.store.reports import PairRow, machine_graders
from gradedesk.core.store.rubrics import (
    FlaggedGrade, grades_under_other_rubric, machine_grades_under_other_rubric, newest_rubric_version,
)

FEW_PAIRS = 20  # below this, percentile-bootstrap intervals are too narrow to trust

# `gradedesk agree --by` names (core/cli/agree_cmd.BY_CHOICES repeats them so --help stays light)
BREAKDOWNS: dict[str, Callable[[Pair], str]] = {
    "category": lambda p: p.category,
    "method": lambda p: p.method,
    "label": lambda p: p.label,  # the person's failure label
    "mode": lambda p: p.mode,  # blind or open (judge in view)
}


@dataclass
class Settings:
    boot: int = agree.DEFAULT_BOOT
    seed: int = agree.DEFAULT_SEED


@dataclass
class GroupAgreement(Record):
    """Agreement on one group of pairs (a category, a method, a person, a rubric version): percent agreement, Cohen's
    kappa and AC1."""

    group: str
    n: int
    estimates: dict[str, Estimate] = field(metadata=FLAT)


def _grouped(pairs: list[Pair], key: Callable[[Pair], str], s: Settings) -> list[GroupAgreement]:
    groups: dict[str, list[Pair]] = defaultdict(list)
    for p in pairs:
        groups[key(p)].append(p)
    return [GroupAgreement(name, len(members),
                           agree.estimates(pairs_matrix(members), agree.summary_measures(), s.boot, s.seed))
            for name, members in sorted(groups.items())]


@dataclass
class Machine(Record):
    kind: str | None  # judge | imported | rule; None: no machine grader
    label: str | None  # 'judge (gpt-x)': what the people were compared with


@dataclass
class ReportSettings(Record):
    bootstrap: int
    seed: int
    level: float
    target_half_width: float


@dataclass
class Confusion(Record):
    rows: str  # whose grades the rows are
    columns: str
    labels: list[str]
    matrix: list[list[int]]


@dataclass
class BinaryAgreement(Record):
    """Agreement on pass / not pass, with the machine's TPR and TNR, and the 2x2 matrix."""

    estimates: dict[str, Estimate] = field(metadata=FLAT)
    labels: list[str]
    matrix: list[list[int]]


@dataclass
class Rubrics(Record):
    current: str | None  # the newest rubric version in the store
    per_version: list[GroupAgreement]
    flagged_for_regrading: list[FlaggedGrade]
    machine_grades_under_older_rubric: int


@dataclass
class AgreementReport(Record):
    """Everything `gradedesk agree` prints and the desk's agreement screen shows (fields in `--json` order)."""

    run_id: int
    machine: Machine
    compared_with: str
    pairs: int
    people: list[str]
    settings: ReportSettings
    four_level: dict[str, Estimate]
    confusion: Confusion
    per_class: dict[str, Estimate]
    binary: BinaryAgreement
    breakdowns: dict[str, list[GroupAgreement]]
    people_agreement: list[GroupAgreement]
    krippendorff_alpha: Estimate
    overlap: OverlapAgreement  # people vs people on items assigned to several, and the settled grade vs the machine
    corrected_pass_rates: CorrectedPassRates | None
    switch_rate: SwitchRate
    self_consistency: list[SelfConsistency]
    rubrics: Rubrics
    judge_rubrics: JudgeVersions
    bias: MachineBias
    quality_by_tokens: list[TokenQuality]
    samples: SampleReport
    faithfulness: Faithfulness
    notes: list[str]
    stale_grades: dict[str, int]
    by_budget: BudgetCurve
    pairwise: PairwiseFigures  # which answer is better: the pairwise judge, people's preferences, win rates
    flagged_items_excluded: int = 0  # questions someone flagged for fixing the benchmark, left out of every figure
    # each person's own confusion matrix (rows: their grade, columns: the machine's), of the pairs `confusion` pools:
    # a person's desk shows theirs, named, beside the pooled figures
    confusion_by_person: dict[str, list[list[int]]] = field(default_factory=dict)


def _rubrics(store: Store, run_id: int, pairs: list[Pair], s: Settings) -> Rubrics:
    current = newest_rubric_version(store)
    per_version = _grouped(pairs, lambda p: p.rubric_version or "(unversioned)", s)
    flagged: list[FlaggedGrade] = []
    machine_older = 0
    if current is not None:
        machine_older = machine_grades_under_other_rubric(store, run_id, current)
        flagged = grades_under_other_rubric(store, run_id, current)
    return Rubrics(current, per_version, flagged, machine_older)


@dataclass
class Compared:
    """Whom people's grades are compared with: every current grade (`rows`), the machine graders seen, the kind
    compared, the rows graded by it and their pairs."""

    rows: list[PairRow]
    graders: list[tuple[str | None, str | None]]
    kind: str | None
    chosen: list[PairRow]
    pairs: list[Pair]


def compared(store: Store, run_id: int, grader: GraderChoice | None) -> Compared:
    """People's grades and the machine grades they are compared with: `grader`'s, else the one on the desk when
    each was saved."""
    rows = load_pairs(store, run_id, grader)
    # nobody graded yet: still name the run's machine grader and its pass rates
    graders: list[tuple[str | None, str | None]] = ([(r.grader_kind, r.grader_model) for r in rows]
                                                    or list(machine_graders(store, run_id)))
    kind = grader.kind if grader else choose_kind(graders)
    chosen = [r for r in rows if r.grader_kind == kind and r.machine is not None] if kind else []
    return Compared(rows, graders, kind, chosen, [pair_from_row(r) for r in chosen])


def prediction_powered(store: Store, run_id: int, settings: Settings | None = None) -> list[PpiPassRate]:
    """The prediction-powered pass rates of the report alone (raw, bundled per budget, bundle - raw; empty without a
    machine grader), each with its lambda and what the judge bought it: what `summary` prints."""
    s = settings or Settings()
    c = compared(store, run_id, None)
    if not c.kind:
        return []
    arms, paired, primary = scan_answers(store, run_id, c.kind, arms_grader(None, c.chosen))
    return ppi_pass_rates(store, run_id, c.pairs, (arms, paired), s, primary)


def agreement_report(store: Store, run_id: int, settings: Settings | None = None,
                     grader: GraderChoice | None = None) -> AgreementReport:
    """Everything `gradedesk agree` prints and the desk's agreement screen shows. `grader`: whom every grade is
    compared with (default: the machine grader on the desk when it was saved)."""
    s = settings or Settings()
    c = compared(store, run_id, grader)
    rows, graders, kind, chosen, pairs = c.rows, c.graders, c.kind, c.chosen, c.pairs
    notes = []
    flagged = len(flagged_questions(store, run_id))  # the store's readers below leave them out
    if flagged:
        notes.append(f"{flagged} flagged item(s) (questions someone flagged for fixing the benchmark) are left out of "
                     "every figure but faithfulness; `gradedesk questions flags` lists them")
    unusable = sum(1 for r in rows if r.unusable)
    if unusable:
        notes.append(f"{unusable} person grade(s) are on answers whose machine grade is a grading_error (its reply "
                     f"could not be used) and are not compared")
    ungraded_by_machine = sum(1 for r in rows if r.machine is None and not r.unusable)
    if ungraded_by_machine and grader:
        notes.append(f"{ungraded_by_machine} person grade(s) have no grade by {grader.text} and are not compared")
    elif ungraded_by_machine:
        notes.append(f"{ungraded_by_machine} person grade(s) have no machine grade and are not compared")
    other = len(rows) - ungraded_by_machine - unusable - len(chosen)
    if other:
        notes.append(f"{other} person grade(s) are on answers graded by another kind of machine grader than "
                     f"{KIND_NAMES.get(kind or '', kind)} and are left out")
    open_grades = sum(1 for p in pairs if p.mode != "blind")
    if open_grades:
        notes.append(f"{open_grades} of {len(pairs)} compared grades were saved with the machine grade in view "
                     "(mode open); see the breakdown by mode")
    if kind == "rule":
        notes.append("no LLM judge graded this run: people are compared with the offline rule grader")
    if grader is None and any(r.recorded for r in chosen):
        notes.append("each grade is compared with the machine grader on the desk when it was saved; "
                     "--grader judge:MODEL|rules|imported:NAME compares all with one")
    stale = stale_grade_counts(store, run_id)
    if stale:
        notes.append(f"{sum(stale.values())} machine grade(s) were made against a gold answer that has been corrected "
                     f"since (stale); `gradedesk grade-offline` / `gradedesk judge` grade them again")
    events = grade_histories(store, run_id)
    arms, paired, primary = scan_answers(store, run_id, kind, arms_grader(grader, chosen))
    machine = {p.answer_id: p.machine for p in pairs}
    models = {model for k, model in ([(r.grader_kind, r.grader_model) for r in chosen] if grader else graders)
              if k == kind}
    cm = pairs_matrix(pairs)
    cm2 = agree.collapse_binary(cm, GRADES.index(PASS_GRADE))
    report = AgreementReport(
        run_id=run_id,
        machine=Machine(kind, machine_label(kind, models or {grader.model if grader else None}) if kind else None),
        compared_with=grader.text if grader else "the machine grader on the desk when each grade was saved",
        pairs=len(pairs),
        people=sorted({r.grader for r in rows}),  # everyone with a current grade, compared or not
        settings=ReportSettings(s.boot, s.seed, agree.LEVEL, agree.TARGET_HALF_WIDTH),
        four_level=agree.estimates(cm, agree.pair_measures(), s.boot, s.seed),
        confusion=Confusion("person", "machine", list(GRADES), cm.tolist()),
        per_class=agree.estimates(
            cm, agree.class_measures(GRADES, col_name=KIND_NAMES.get(kind or "", "machine grader")), s.boot, s.seed),
        binary=BinaryAgreement(agree.estimates(cm2, agree.pair_measures() + agree.binary_rates(), s.boot, s.seed),
                               [PASS_GRADE, "not " + PASS_GRADE], cm2.tolist()),
        breakdowns={name: _grouped(pairs, key, s) for name, key in BREAKDOWNS.items()},
        people_agreement=_grouped(pairs, lambda p: p.grader, s),
        confusion_by_person={g: pairs_matrix([p for p in pairs if p.grader == g]).tolist()
                             for g in sorted({p.grader for p in pairs})},
        krippendorff_alpha=krippendorff_alpha_ordinal(people_alpha_units(store, run_id), len(GRADES), s.boot,
                                                            s.seed),
        overlap=overlap_agreement(store, run_id, machine, s.boot, s.seed),
        corrected_pass_rates=corrected_pass_rates(arms, paired, primary, pairs, s.boot, s.seed) if kind else None,
        switch_rate=switches(events, machine, s.boot, s.seed),
        self_consistency=self_consistency(events, s.boot, s.seed),
        rubrics=_rubrics(store, run_id, pairs, s),
        judge_rubrics=judge_versions(store, run_id, s.boot, s.seed),
        bias=machine_bias(store, [(p.answer_id, p.human, p.machine) for p in pairs], s.boot, s.seed),
        quality_by_tokens=quality_by_tokens(store, run_id, arms),
        samples=sample_report(store, run_id, pairs, (arms, paired) if kind else None, s, primary),
        faithfulness=faithfulness_agreement(store, run_id, s.boot, s.seed),
        notes=notes,
        stale_grades=stale,
        by_budget=budget_curve(store, run_id, arms, pairs, s.boot, s.seed),
        pairwise=pairwise_figures(store, run_id, s),
        flagged_items_excluded=flagged,
    )
    report.notes += report.faithfulness.notes + report.pairwise.notes
    judged_under = len(report.judge_rubrics.versions)
    if kind == "judge" and judged_under > 1:
        report.notes.append(f"the judge graded this run under {judged_under} rubric versions (or models): the "
                            "headline takes each answer's newest judge grade; see them side by side on the same "
                            "items under 'per judge rubric version'")
    if not pairs:
        report.notes.append("no answer of this run has both a person's grade and a machine grade")
    elif len(pairs) < FEW_PAIRS:
        report.notes.append(f"only {len(pairs)} graded pair(s): bootstrap intervals (and the items still needed "
                            "for +/-0.05) are rough below about 20")
    return report
