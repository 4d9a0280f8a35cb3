"""What `gradedesk align` prints: the report of core/agreement/judge_alignment.py as lines and plain tables (the same
figures as --json; estimates read '0.712 [0.601, 0.805]')."""

from __future__ import annotations

from gradedesk.core.agreement.judge_alignment import AlignmentReport, Side
from gradedesk.core.agreement.tables import est_text
from gradedesk.core.cli.output import print_table
from gradedesk.core.grading.vocabulary import GRADES
from gradedesk.core.stats.measures import Estimate

MEASURES = (("percent_agreement", "percent agreement"), ("cohen_kappa", "Cohen's kappa"), ("gwet_ac1", "Gwet's AC1"),
            ("tpr", "judge TPR (pass)"), ("tnr", "judge TNR (not pass)"))
INFLATION = (("judge_pass_rate", "judge pass rate"), ("pass_rate_difference", "judge - people pass rate"),
             ("pass_rate_ratio", "judge / people pass rate"))


def _grades(counts: dict[str, int]) -> str:
    return ", ".join(f"{g} {counts[g]}" for g in GRADES if counts.get(g))


def _signed(e: Estimate) -> str:
    text = est_text(e)
    return "+" + text if e.value is not None and e.value > 0 else text


def _side(name: str, side: Side) -> str:
    return f"{name} {side.questions} questions / {side.answers} answers ({_grades(side.by_grade)})"


def _header(r: AlignmentReport) -> None:
    left = r.items.left_out
    print(f"run {r.run_id}: align {r.base.version} with judge {r.judge_model} on {r.items.answers} "
          f"person-graded answer(s) of {r.items.questions} question(s) (left out: {left['people_disagree']} "
          f"where people disagree, {left['no_gold_answer']} without a gold answer)")
    st = r.settings
    pinned = ", ".join(r.split.pinned_questions) or "none"
    print(f"split by question (seed {st.seed}, test share {st.test_share}, stratified by grade): "
          f"{_side('train', r.split.train)}; {_side('test', r.split.test)}; "
          f"kept in train for the base rubric's examples: {pinned}")
    ex = r.examples
    by_grade = {g: sum(e.grade == g for e in ex) for g in GRADES}
    print(f"examples: {len(ex)} from train, {sum(e.disagreed for e in ex)} where the base judge disagreed with "
          f"the people ({_grades(by_grade)})")
    where = f"written to {r.new.file} and stored" if r.new.file else "stored"
    print(f"new rubric {r.new.version} ({r.new.examples} examples, based on {r.base.version}): {where}")


def _measures(r: AlignmentReport) -> None:
    t = r.test
    level = int(r.settings.level * 100)
    print()
    print(f"On the {t.n} test answer(s) both rubrics judged (questions never used for examples; {level}% paired "
          f"bootstrap intervals over them, {r.settings.bootstrap} resamples)")
    rows = [[label, est_text(t.measures[k].base), est_text(t.measures[k].new), _signed(t.measures[k].difference)]
            for k, label in MEASURES]
    print_table(["measure", f"base {r.base.version}", f"new {r.new.version}", "new - base"], rows)
    left = t.left_out
    if left.base_grading_errors or left.new_grading_errors:
        print(f"left out: {left.base_grading_errors} test answer(s) with a grading error under the base rubric, "
              f"{left.new_grading_errors} under the new one")
    target = t.target
    agreement = t.measures["percent_agreement"]

    def verdict(met: bool | None, e: Estimate) -> str:
        return "not measured" if met is None else f"{'met' if met else 'not met'} ({e.value:.3f})"

    print(f"{target.share:.0%} agreement target on test: base {verdict(target.base_met, agreement.base)}, "
          f"new {verdict(target.new_met, agreement.new)}")


def _bias(r: AlignmentReport) -> None:
    base, new = r.test.bias.base, r.test.bias.new
    print()
    print(f"Bias probes on the test answers (people's pass rate {est_text(base.grade_inflation['person_pass_rate'])}; "
          f"answer length in {base.length_unit})")
    rows = [[label, est_text(base.grade_inflation[k]), est_text(new.grade_inflation[k])] for k, label in INFLATION]
    for base_t, new_t in zip(base.verbosity, new.verbosity):
        span = "-" if base_t.n == 0 else f"{base_t.min_length}-{base_t.max_length}"
        rows.append([f"agreement, {base_t.tercile} (n={base_t.n}, {span})",
                     est_text(base_t.figures["percent_agreement"]), est_text(new_t.figures["percent_agreement"])])
    print_table(["probe", "base", "new"], rows)


def _consistency(r: AlignmentReport) -> None:
    c = r.test.consistency
    if not c:
        return
    parts = []
    for role in ("base", "new"):
        x = c[role]
        share = "-" if x.share_identical is None else f"{x.share_identical:.1%}"
        parts.append(f"{role} {x.identical}/{x.answers_repeated} identical ({share})")
    print()
    print(f"judge consistency across {r.settings.repeat} repeats on test: " + ", ".join(parts))


def print_report(r: AlignmentReport) -> None:
    _header(r)
    _measures(r)
    _bias(r)
    _consistency(r)
    calls = r.calls
    cost = "unknown (no price known for the judge model; give --price IN,OUT)" if calls.cost_usd is None \
        else f"${calls.cost_usd:.4f}"
    if calls.cost_usd is not None and calls.verdicts_without_cost:
        cost += f" ({calls.verdicts_without_cost} verdict(s) without a known cost)"
    print()
    cut = f", {calls.truncated} of them cut at --max-tokens" if calls.truncated else ""
    print(f"judge calls: {calls.made} made now, {calls.reused} verdict(s) reused from the store "
          f"({calls.failed} failed, {calls.unusable} unusable replies{cut}); cost of the verdicts used: {cost}")
    print(f"alignment {r.alignment_id} stored; `gradedesk rubric history` lists every version with its test "
          "agreement")
