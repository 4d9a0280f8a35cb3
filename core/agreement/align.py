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
   intervals from one paired bootstrap over the test answers (paired.py); the lesson's 80% agreement target; the bias
   probes (bias.py); with repeat > 1, the judge's consistency under each rubric; the calls made and their cost;
5. the alignment, its report and both sides of the split are stored (alignments.py), so `gradedesk rubric history`
   can list each version with its test agreement.

A verdict that is a grading error (an unusable reply or a failed call) leaves its answer out of the comparison for both
rubrics, and is counted; failed calls are retried by running align again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gradedesk.core.config import VERDICT_MAX_TOKENS
from gradedesk.core.agreement import statistics as stats
from gradedesk.core.agreement.alignments import record_alignment, verdict_cost, verdicts
from gradedesk.core.agreement.examples import choose_examples, to_example
from gradedesk.core.agreement.paired import paired_estimates, paired_table
from gradedesk.core.agreement.rubric_versions import machine_bias
from gradedesk.core.agreement.split import (
    GradedItem, graded_items, leaks, pinned_questions, shows_answer, split_by_question,
)
from gradedesk.core.errors import UserError
from gradedesk.core.grading.judge import JudgeReport, judge_consistency, judge_run
from gradedesk.core.grading.retrieval_evals import method_label
from gradedesk.core.grading.rubric_format import Rubric, shown
from gradedesk.core.grading.rubric_lookup import store_rubric
from gradedesk.core.grading.vocabulary import GRADES, PASS_GRADE
from gradedesk.core.progress import Progress
from gradedesk.core.store.connection import Store

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


def _side(items: list[GradedItem]) -> dict:
    counts = {g: sum(i.grade == g for i in items) for g in GRADES}
    return {"questions": len({i.question_pk for i in items}), "answers": len(items), "by_grade": counts}


def _measures(people: list[str], base: list[str], new: list[str], s: AlignSettings) -> dict:
    table = paired_table(people, base, new, GRADES)
    four = [m for m in stats.pair_measures() if m.name in FOUR_LEVEL]
    figures = {**paired_estimates(table, four, s.boot, s.seed, names=ROLES),
               **paired_estimates(table, stats.binary_rates(), s.boot, s.seed, positive=GRADES.index(PASS_GRADE),
                                  names=ROLES)}
    return {name: {"base": p.a.to_dict(), "new": p.b.to_dict(), "difference": p.difference.to_dict()}
            for name, p in figures.items()}


def _bias(store: Store, items: list[GradedItem], judged: dict[int, str], s: AlignSettings) -> dict:
    return machine_bias(store, [(i.answer_id, i.grade, judged[i.answer_id]) for i in items], s.boot, s.seed)


def _target(measures: dict) -> dict:
    def met(role: str) -> bool | None:
        value = measures["percent_agreement"][role]["value"]
        return None if value is None else value >= TARGET

    return {"share": TARGET, "measure": "percent_agreement", "base_met": met("base"), "new_met": met("new")}


def _calls(reports: list[JudgeReport], cost: float | None, unknown: int, needed: int) -> dict:
    made = sum(r.grades_done + r.grading_errors + r.failed_calls for r in reports)
    return {"made": made, "reused": max(needed - made, 0), "failed": sum(r.failed_calls for r in reports),
            "unusable": sum(r.grading_errors for r in reports), "truncated": sum(r.truncated for r in reports),
            "cost_usd": cost, "verdicts_without_cost": unknown,
            "failures": [f for r in reports for f in r.failures]}


def _phase(progress: Progress | None, name: str) -> Progress | None:
    return (lambda _stage, done, total, failed: progress(name, done, total, failed)) if progress else None


def align(store: Store, run_id: int, base: Rubric, provider, settings: AlignSettings | None = None,
          progress: Progress | None = None) -> dict:
    """One step of the alignment loop (see the module docstring); returns the report, as stored."""
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
                         rubric=rubric, answer_ids=ids, max_tokens=s.max_tokens)

    reports = [judge(base, train_ids, 1, "base rubric, train"), judge(base, test_ids, s.repeat, "base rubric, test")]
    base_version = reports[0].rubric_version
    base_train = verdicts(store, model, base_version, train_ids)
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
        try:
            out.write_text(shown(new), encoding="utf-8")
        except OSError as exc:
            raise UserError(f"--out: {out}: cannot write ({exc.strerror})") from None
    new_version = store_rubric(store, new)
    reports.append(judge(new, test_ids, s.repeat, "new rubric, test"))

    base_test, new_test = verdicts(store, model, base_version, test_ids), verdicts(store, model, new_version, test_ids)
    compared = [i for i in split.test if i.answer_id in base_test and i.answer_id in new_test]
    people = [i.grade for i in compared]
    measures = _measures(people, [base_test[i.answer_id] for i in compared],
                         [new_test[i.answer_id] for i in compared], s)
    cost, unknown = verdict_cost(store, model, [(base_version, train_ids | test_ids), (new_version, test_ids)])
    answer_model = store.scalar("SELECT model FROM runs WHERE id = ?", (run_id,))
    warnings = []
    if model == answer_model:
        warnings.append(f"the judge model {model} also wrote the answers: self-evaluation bias; prefer another model")
    unusable, truncated = sum(r.grading_errors for r in reports), sum(r.truncated for r in reports)
    if not compared:
        cut = f", {truncated} cut at --max-tokens {s.max_tokens}" if truncated else ""
        warnings.append(f"no test answer has a usable verdict under both rubrics ({unusable} unusable replies{cut}), "
                        f"so nothing was compared; does {model} follow the rubric's JSON format?")
    elif len(compared) < FEW_ITEMS:
        warnings.append(f"only {len(compared)} test answer(s) compared: the intervals are rough below about "
                        f"{FEW_ITEMS}; grade more answers at the desk")
    report = {
        "run_id": run_id, "judge_model": model, "grader": s.grader, "alignment_id": None,
        "settings": {"seed": s.seed, "test_share": s.test_share, "examples": s.examples, "repeat": s.repeat,
                     "bootstrap": s.boot, "level": stats.LEVEL},
        "base": {"version": base_version, "examples": len(base.examples)},
        "new": {"version": new_version, "examples": len(new.examples), "file": str(out) if out else None},
        "items": {"answers": len(items), "questions": len({i.question_pk for i in items}), "left_out": left_out},
        "split": {"train": _side(split.train), "test": _side(split.test), "pinned_questions": split.pinned},
        "examples": [{"answer_id": i.answer_id, "question_id": i.question_key,
                      "method": method_label(i.method, i.budget), "grade": i.grade, "label": i.label,
                      "base_judge": base_train.get(i.answer_id),
                      "disagreed": base_train.get(i.answer_id) not in (None, i.grade)} for i in chosen],
        "test": {
            "n": len(compared),
            "left_out": {"base_grading_errors": len(test_ids - set(base_test)),
                         "new_grading_errors": len(test_ids - set(new_test))},
            "measures": measures, "target": _target(measures),
            "bias": {"base": _bias(store, compared, base_test, s), "new": _bias(store, compared, new_test, s)},
            "consistency": None if s.repeat < 2 else {
                role: judge_consistency(store, run_id, model, rubric_version=v, answer_ids=test_ids)
                for role, v in (("base", base_version), ("new", new_version))},
            "items": [{"answer_id": i.answer_id, "question_id": i.question_key,
                       "method": method_label(i.method, i.budget), "person": i.grade,
                       "base": base_test[i.answer_id], "new": new_test[i.answer_id]} for i in compared],
        },
        "calls": _calls(reports, cost, unknown, len(train_ids) + 2 * s.repeat * len(test_ids)),
        "warnings": warnings,
    }
    record_alignment(store, run_id, base_version, new_version, model, s.grader, split,
                     [i.answer_id for i in chosen], report)
    return report
