"""Judge alignment: examples from people's grades, agreement measured on items the judge never saw as examples.

`align(store, run_id, base, provider, settings)` takes one step of the evals lesson's loop:

1. the run's current human grades (split.graded_items) are split by question into train and test, seeded and
   stratified by grade; questions the base rubric's examples came from stay in train (split.py);
2. the base rubric's judge grades the train answers, and examples are chosen from train only, preferring answers
   where it disagreed with the people (examples.py);
3. the new rubric (the base plus those examples) is checked to share no question with test (split.leaks), written to
   `settings.out` if given, and stored as a version;
4. base and new judge the test answers with the same provider and settings (core/grading/judge.py: verdicts stored
   like any judge run, reused when already there); on the test answers both judged usably it reports, for each
   rubric, percent agreement, Cohen's kappa, AC1 and the judge's TPR/TNR, and new - base for each, all with
   intervals from one paired bootstrap over the test answers (core/stats/paired_graders.py); the lesson's 80%
   agreement target; the bias probes (machine_bias.py); with repeat > 1, the judge's consistency under each rubric;
   the calls made and their cost;
5. the alignment, its report and both sides of the split are stored (core/store/alignments.py), so `gradedesk rubric
   history` can list each version with its test agreement (rubric_history.py).

The report is a typed `AlignmentReport`; its `to_dict()` is what `align --json` prints and the store keeps.

A verdict that is a grading error (an unusable reply or a failed call) leaves its answer out of the comparison for both
rubrics, and is counted; failed calls are retried by running align again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradedesk.core.agreement.examples import choose_examples, to_example
from gradedesk.core.agreement.machine_bias import MachineBias, machine_bias
from gradedesk.core.agreement.split import (
    GradedItem, graded_items, leaks, pinned_questions, shows_answer, split_by_question,
)
from gradedesk.core.config import VERDICT_MAX_TOKENS
from gradedesk.core.errors import UserError
from gradedesk.core.grading.judge import JudgeReport, judge_run
from gradedesk.core.grading.judge_consistency import JudgeConsistency, judge_consistency
from gradedesk.core.grading.retrieval_evals import method_label
from gradedesk.core.grading.rubric_format import Rubric, shown
from gradedesk.core.grading.rubric_lookup import store_rubric
from gradedesk.core.grading.vocabulary import GRADES, PASS_GRADE
from gradedesk.core.outputs import check_outputs, write_texts
from gradedesk.core.progress import Progress
from gradedesk.core.stats import measures as stats
from gradedesk.core.stats.measures import Estimate
from gradedesk.core.stats.paired_graders import paired_grader_estimates, paired_table
from gradedesk.core.stats.records import Record
from gradedesk.core.store.alignments import AlignmentItem, record_alignment
from gradedesk.core.store.connection import Store
from gradedesk.core.store.machine_grades import judge_verdicts, verdict_cost
from gradedesk.core.store.run_records import run_row

TARGET = 0.80  # the evals lesson: below 80% agreement the rubric needs work
FEW_ITEMS = 20
FOUR_LEVEL = ("percent_agreement", "cohen_kappa", "gwet_ac1")
ROLES = ("base", "new")


@dataclass
class AlignSettings:
    examples: int | None = None  # None: two per grade level present in train
    test_share: float = 0.5
    seed: int = stats.DEFAULT_SEED
    grader: str | None = None    # None: every person's grades, where they agree
    repeat: int = 1
    boot: int = stats.DEFAULT_BOOT
    out: Path | None = None      # the new rubric's file, or a folder for NAME-HASH.rubric; None: not written
    max_tokens: int = VERDICT_MAX_TOKENS  # of each judge reply


# -- the report --------------------------------------------------------------------------------------------------------

@dataclass
class ReportSettings(Record):
    seed: int
    test_share: float
    examples: int | None
    repeat: int
    bootstrap: int
    level: float


@dataclass
class BaseRubric(Record):
    version: str
    examples: int


@dataclass
class NewRubric(Record):
    version: str
    examples: int
    file: str | None  # where it was written


@dataclass
class Items(Record):
    answers: int  # person-graded answers with a gold answer
    questions: int
    left_out: dict[str, int]  # people_disagree, no_gold_answer


@dataclass
class Side(Record):
    questions: int
    answers: int
    by_grade: dict[str, int]


@dataclass
class SplitSummary(Record):
    train: Side
    test: Side
    pinned_questions: list[str]  # question keys kept in train for the base rubric's examples


@dataclass
class ChosenExample(Record):
    answer_id: int
    question_id: str  # benchmark:question_id
    method: str
    grade: str  # the people's
    label: str | None
    base_judge: str | None  # the base rubric judge's grade of it (None: no usable verdict)
    disagreed: bool


@dataclass
class RubricComparison(Record):
    """One measure under the base and the new rubric, and new - base (paired)."""

    base: Estimate
    new: Estimate
    difference: Estimate


@dataclass
class LeftOut(Record):
    base_grading_errors: int
    new_grading_errors: int


@dataclass
class Target(Record):
    share: float
    measure: str
    base_met: bool | None  # None: not measured
    new_met: bool | None


@dataclass
class BiasByRubric(Record):
    base: MachineBias
    new: MachineBias


@dataclass
class HeldOutItem(Record):
    answer_id: int
    question_id: str
    method: str
    person: str
    base: str
    new: str


@dataclass
class HeldOutFigures(Record):
    n: int  # test answers both rubrics judged usably
    left_out: LeftOut
    measures: dict[str, RubricComparison]
    target: Target
    bias: BiasByRubric
    consistency: dict[str, JudgeConsistency] | None  # per role (base, new); None: repeat 1
    items: list[HeldOutItem]


@dataclass
class Calls(Record):
    made: int
    reused: int
    failed: int
    unusable: int
    truncated: int
    cost_usd: float | None
    verdicts_without_cost: int
    failures: list[str]


@dataclass
class AlignmentReport(Record):
    """What `gradedesk align` prints and stores (fields in `--json` order)."""

    run_id: int
    judge_model: str
    grader: str | None
    alignment_id: int | None  # set once stored
    settings: ReportSettings
    base: BaseRubric
    new: NewRubric
    items: Items
    split: SplitSummary
    examples: list[ChosenExample]
    test: HeldOutFigures
    calls: Calls
    warnings: list[str]


def _side(items: list[GradedItem]) -> Side:
    return Side(len({i.question_pk for i in items}), len(items), {g: sum(i.grade == g for i in items) for g in GRADES})


def _measures(people: list[str], base: list[str], new: list[str], s: AlignSettings) -> dict[str, RubricComparison]:
    table = paired_table(people, base, new, GRADES)
    four = [m for m in stats.pair_measures() if m.name in FOUR_LEVEL]
    figures = {**paired_grader_estimates(table, four, s.boot, s.seed, names=ROLES),
               **paired_grader_estimates(table, stats.binary_rates(), s.boot, s.seed,
                                         positive=GRADES.index(PASS_GRADE), names=ROLES)}
    return {name: RubricComparison(p.a, p.b, p.difference) for name, p in figures.items()}


def _bias(store: Store, items: list[GradedItem], judged: dict[int, str], s: AlignSettings) -> MachineBias:
    return machine_bias(store, [(i.answer_id, i.grade, judged[i.answer_id]) for i in items], s.boot, s.seed)


def _target(measures: dict[str, RubricComparison]) -> Target:
    def met(e: Estimate) -> bool | None:
        return None if e.value is None else e.value >= TARGET

    agreement = measures["percent_agreement"]
    return Target(TARGET, "percent_agreement", met(agreement.base), met(agreement.new))


def _calls(reports: list[JudgeReport], cost: float | None, unknown: int, needed: int) -> Calls:
    made = sum(r.grades_done + r.grading_errors + r.failed_calls for r in reports)
    return Calls(made, max(needed - made, 0), sum(r.failed_calls for r in reports),
                 sum(r.grading_errors for r in reports), sum(r.truncated for r in reports), cost, unknown,
                 [f"{where}: {why}" for r in reports for where, why in r.failures])


def _phase(progress: Progress | None, name: str) -> Progress | None:
    return (lambda _stage, done, total, failed=0, *, unusable=None: progress(name, done, total, failed,
                                                                              unusable=unusable)) if progress else None


def align(store: Store, run_id: int, base: Rubric, provider: Any, settings: AlignSettings | None = None,
          progress: Progress | None = None,
          before_calls: Callable[[list[list[dict[str, Any]]]], None] | None = None) -> AlignmentReport:
    """One step of the alignment loop (see the module docstring); returns the report, as stored. `before_calls`
    hears of each judging pass's prompts before its first call (a pass with nothing to ask calls nothing)."""
    s = settings or AlignSettings()
    if s.repeat < 1:
        raise UserError("--repeat: must be at least 1")
    if s.examples is not None and s.examples < 1:
        raise UserError("--examples: must be at least 1")
    items, left_out = graded_items(store, run_id, s.grader)
    if not items:
        who = f"grader {s.grader!r}" if s.grader else "people"
        raise UserError(f"run {run_id}: no answer with a gold answer has a grade by {who}; grade some at the desk "
                        "(gradedesk grade) first")
    split = split_by_question(items, s.test_share, s.seed, pinned_questions(items, base.examples))
    train_ids, test_ids = {i.answer_id for i in split.train}, {i.answer_id for i in split.test}
    model = provider.model

    def judge(rubric: Rubric, ids: set[int], repeat: int, phase: str) -> JudgeReport:
        return judge_run(store, run_id, provider, repeat, scores=False, progress=_phase(progress, phase),
                         rubric=rubric, answer_ids=ids, max_tokens=s.max_tokens, before_calls=before_calls)

    reports = [judge(base, train_ids, 1, "base rubric, train"), judge(base, test_ids, s.repeat, "base rubric, test")]
    base_version = reports[0].rubric_version
    base_train = judge_verdicts(store, model, base_version, train_ids)
    taken = {i.answer_id for i in split.train if any(shows_answer(e, i) for e in base.examples)}
    chosen = choose_examples(split.train, base_train, s.seed, s.examples, exclude=taken)
    if not chosen:
        raise UserError("no train answer is left to take an example from (all are examples of the base rubric already)")
    new = base.with_examples([to_example(i, run_id) for i in chosen], base_version)
    found = leaks(new.examples, split.test)
    if found:  # the split keeps every example's question in train; reaching this is a bug, never a judged result
        raise RuntimeError("align: an example belongs to a test question: " + "; ".join(found[:3]))
    out = s.out / f"{new.version.replace('/', '-')}.rubric" if s.out is not None and s.out.is_dir() else s.out
    if out is not None:
        check_outputs({"--out": out}, store=store.path)  # a folder given: the file's name is known only now
        write_texts([(str(out), shown(new))])
    new_version = store_rubric(store, new)
    reports.append(judge(new, test_ids, s.repeat, "new rubric, test"))

    base_test = judge_verdicts(store, model, base_version, test_ids)
    new_test = judge_verdicts(store, model, new_version, test_ids)
    compared = [i for i in split.test if i.answer_id in base_test and i.answer_id in new_test]
    people = [i.grade for i in compared]
    measures = _measures(people, [base_test[i.answer_id] for i in compared],
                         [new_test[i.answer_id] for i in compared], s)
    cost, unknown = verdict_cost(store, model, [(base_version, train_ids | test_ids), (new_version, test_ids)])
    warnings = []
    if model == run_row(store, run_id).model:
        warnings.append(f"the judge model {model} also wrote the answers: self-evaluation bias; prefer another model")
    unusable, truncated = sum(r.grading_errors for r in reports), sum(r.truncated for r in reports)
    if not compared:
        cut = f", {truncated} cut at --max-tokens {s.max_tokens}" if truncated else ""
        warnings.append(f"no test answer has a usable verdict under both rubrics ({unusable} unusable replies{cut}), "
                        f"so nothing was compared; does {model} follow the rubric's JSON format?")
    elif len(compared) < FEW_ITEMS:
        warnings.append(f"only {len(compared)} test answer(s) compared: the intervals are rough below about "
                        f"{FEW_ITEMS}; grade more answers at the desk")
    report = AlignmentReport(
        run_id=run_id, judge_model=model, grader=s.grader, alignment_id=None,
        settings=ReportSettings(s.seed, s.test_share, s.examples, s.repeat, s.boot, stats.LEVEL),
        base=BaseRubric(base_version, len(base.examples)),
        new=NewRubric(new_version, len(new.examples), str(out) if out else None),
        items=Items(len(items), len({i.question_pk for i in items}), left_out),
        split=SplitSummary(_side(split.train), _side(split.test), split.pinned),
        examples=[ChosenExample(i.answer_id, i.question_key, method_label(i.method, i.budget), i.grade, i.label,
                                base_train.get(i.answer_id), base_train.get(i.answer_id) not in (None, i.grade))
                  for i in chosen],
        test=HeldOutFigures(
            n=len(compared),
            left_out=LeftOut(len(test_ids - set(base_test)), len(test_ids - set(new_test))),
            measures=measures, target=_target(measures),
            bias=BiasByRubric(_bias(store, compared, base_test, s), _bias(store, compared, new_test, s)),
            consistency=None if s.repeat < 2 else {
                role: judge_consistency(store, run_id, model, rubric_versions=(v,), answer_ids=test_ids)
                for role, v in (("base", base_version), ("new", new_version))},
            items=[HeldOutItem(i.answer_id, i.question_key, method_label(i.method, i.budget), i.grade,
                            base_test[i.answer_id], new_test[i.answer_id]) for i in compared],
        ),
        calls=_calls(reports, cost, unknown, len(train_ids) + 2 * s.repeat * len(test_ids)),
        warnings=warnings,
    )
    examples = {i.answer_id for i in chosen}

    def stored(alignment_id: int) -> dict[str, Any]:
        report.alignment_id = alignment_id
        return report.to_dict()

    record_alignment(store, run_id=run_id, base_version=base_version, new_version=new_version, judge_model=model,
                     grader=s.grader, seed=split.seed, test_share=split.test_share,
                     items=[AlignmentItem(i.answer_id, i.question_pk, side, i.grade, i.answer_id in examples)
                            for side, part in (("train", split.train), ("test", split.test)) for i in part],
                     report=stored)
    return report
