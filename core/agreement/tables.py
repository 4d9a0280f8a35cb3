"""The agreement report (core/agreement/report.py) as plain tables: what `gradedesk agree` prints and the desk shows.

Cells are plain strings or numbers (never markup); an estimate reads '0.712 [0.601, 0.805]' or 'not defined: <reason>'.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gradedesk.core.agreement.people import SelfConsistency
from gradedesk.core.agreement.report import AgreementReport, GroupAgreement
from gradedesk.core.agreement.samples import DIFFERENCE, PpiPassRate
from gradedesk.core.grading.vocabulary import GRADE_LABELS, GRADES
from gradedesk.core.stats.measures import Estimate, texts_once
from gradedesk.core.stats.weighted import JudgeGain

PAIR_MEASURES = (("percent_agreement", "percent agreement"), ("cohen_kappa", "Cohen's kappa"),
                 ("kappa_linear", "weighted kappa (linear)"), ("kappa_quadratic", "weighted kappa (quadratic)"),
                 ("gwet_ac1", "Gwet's AC1"))
MAX_FLAGGED = 20  # items listed for re-grading in a table; --json lists them all
GROUP_MEASURES = (("percent_agreement", "agreement"), ("cohen_kappa", "kappa"), ("gwet_ac1", "AC1"))


@dataclass
class Table:
    title: str
    headers: list[str]
    rows: list[list[Any]]

    def __post_init__(self) -> None:
        if not self.rows:  # say so rather than print a header over nothing
            self.rows = [["(none)"] + [""] * (len(self.headers) - 1)]


def est_text(e: Estimate | Mapping[str, Any] | None) -> str:
    """An estimate as text; also its JSON form, as kept in the store (the rubric history reads stored reports)."""
    if e is None:
        return "-"
    return (e if isinstance(e, Estimate) else Estimate(**e)).text()


def _more(e: Estimate) -> str:
    return "-" if e.more_for_target is None else str(e.more_for_target)


def headline(report: AgreementReport) -> str:
    machine = report.machine.label or "no machine grader"
    people = ", ".join(report.people) or "nobody"
    return f"run {report.run_id}: {report.pairs} graded pair(s), {people} vs {machine}"


def measures_table(report: AgreementReport) -> Table:
    four, binary = report.four_level, report.binary.estimates
    keys = [key for key, _ in PAIR_MEASURES]
    four_texts = texts_once([four[k] for k in keys])
    binary_texts = texts_once([binary[k] for k in (*keys, "tpr", "tnr")])
    rows: list[list[Any]] = [[label, f, _more(four[key]), b, _more(binary[key])]
                             for (key, label), f, b in zip(PAIR_MEASURES, four_texts, binary_texts)]
    rows += [[f"machine {key.upper()}", "", "", b, _more(binary[key])]
             for key, b in zip(("tpr", "tnr"), binary_texts[len(keys):])]
    level = int(report.settings.level * 100)
    return Table(f"Agreement ({level}% bootstrap intervals; 'more' = graded items still needed for +/-0.05)",
                 ["measure", "four grades", "more", "pass / not pass", "more"], rows)


def confusion_table(report: AgreementReport) -> Table:
    matrix = report.confusion.matrix
    rows: list[list[Any]] = [[f"person: {GRADE_LABELS[g]}"] + list(matrix[i]) + [sum(matrix[i])]
                             for i, g in enumerate(GRADES)]
    rows.append(["total"] + [sum(r[j] for r in matrix) for j in range(len(GRADES))] + [report.pairs])
    return Table("Confusion matrix (rows: person, columns: machine)",
                 ["", *(GRADE_LABELS[g] for g in GRADES), "total"], rows)


def per_class_table(report: AgreementReport) -> Table:
    pc = report.per_class
    precision = texts_once([pc[f"precision:{g}"] for g in GRADES])
    recall = texts_once([pc[f"recall:{g}"] for g in GRADES])
    rows: list[list[Any]] = [[GRADE_LABELS[g], p, r] for g, p, r in zip(GRADES, precision, recall)]
    return Table("Per grade: machine precision and recall (the person as reference)",
                 ["grade", "precision", "recall"], rows)


def group_table(title: str, first: str, groups: Sequence[GroupAgreement | SelfConsistency]) -> Table:
    rows: list[list[Any]] = [[g.group if isinstance(g, GroupAgreement) else g.grader, g.n,
                              *(est_text(g.estimates[k]) for k, _ in GROUP_MEASURES)] for g in groups]
    return Table(title, [first, "n", *(label for _, label in GROUP_MEASURES)], rows)


def people_table(report: AgreementReport) -> Table:
    table = group_table("Each person vs the machine", "person", report.people_agreement)
    table.rows.append(["Krippendorff's alpha (ordinal) across people", report.krippendorff_alpha.n,
                       est_text(report.krippendorff_alpha), "", ""])
    return table


def overlap_table(report: AgreementReport) -> Table:
    o = report.overlap
    rows: list[list[Any]] = [["Krippendorff's alpha (ordinal) on overlap items", o.overlap_answers, est_text(o.alpha)]]
    rows += [[f"Cohen's kappa {k.people}", k.n, est_text(k.kappa)] for k in o.pairwise_kappa]
    rows += [[f"settled grade vs machine: {label}", o.reference_pairs, est_text(o.reference_vs_machine[key])]
             for key, label in GROUP_MEASURES]
    return Table(f"People vs people on items assigned to several (gradedesk assign); the settled grade (a lead's "
                 f"decision on {o.adjudicated} answers, else the people's common grade; {o.undecided} disputed "
                 "answers undecided) vs the machine", ["", "n", "estimate"], rows)


def corrected_table(report: AgreementReport) -> Table | None:
    corr = report.corrected_pass_rates
    if corr is None:
        return None
    diff = corr.bundle_minus_raw
    texts = texts_once([*(a.corrected for a in corr.arms), diff.estimate])
    rows: list[list[Any]] = [[a.method, a.budget, a.judged, f"{a.observed_rate:.3f}", text]
                             for a, text in zip(corr.arms, texts)]
    rows.append([f"bundle - raw (paired, budget {diff.budget})", "", diff.paired_questions, "", texts[-1]])
    cal = corr.calibration
    title = (f"Corrected pass rates (Rogan-Gladen: the machine pass rate corrected by its TPR {est_text(cal.tpr)} "
             f"and TNR {est_text(cal.tnr)} on {cal.n} person-graded answers)")
    return Table(title, ["method", "budget", "judged", "machine pass rate", "corrected pass rate"], rows)


def switch_table(report: AgreementReport) -> Table:
    sw = report.switch_rate
    rows: list[list[Any]] = [["changed after the reveal", f"{sw.switched} of {sw.eligible}", est_text(sw.rate)],
                             ["toward the machine grade", sw.toward_machine, ""],
                             ["away from the machine grade", sw.away_from_machine, ""],
                             ["sideways (as far as before)", sw.sideways, ""]]
    return Table("Switch rate (blind grades changed after the machine grade was shown)", ["", "count", "rate"], rows)


def rubric_table(report: AgreementReport) -> Table:
    rub = report.rubrics
    table = group_table(f"Per rubric version (current: {rub.current or 'none recorded'})", "rubric", rub.per_version)
    if rub.machine_grades_under_older_rubric:
        table.rows.append([f"machine grades under an older rubric: {rub.machine_grades_under_older_rubric} "
                           "(grade again with the current rubric)", "", "", "", ""])
    flagged = rub.flagged_for_regrading
    for f in flagged[:MAX_FLAGGED]:
        table.rows.append([f"re-grade: {f.question_id} {f.method} ({f.grader}, rubric {f.rubric_version})",
                           "", "", "", ""])
    if len(flagged) > MAX_FLAGGED:
        table.rows.append([f"... and {len(flagged) - MAX_FLAGGED} more to re-grade (all of them: --json)", "", "", "", ""])
    return table


def judge_rubrics_table(report: AgreementReport) -> Table:
    jr = report.judge_rubrics
    rows: list[list[Any]] = [[f"{v.model} {v.rubric_version or '(unversioned)'}", v.n,
                              est_text(v.own["percent_agreement"]), est_text(v.common["percent_agreement"]),
                              est_text(v.common["cohen_kappa"]), est_text(v.common["gwet_ac1"])] for v in jr.versions]
    return Table(f"Per judge rubric version (side by side on the {jr.common_items} pair(s) every version graded)",
                 ["judge and rubric", "n", "agreement (own items)", "agreement", "kappa", "AC1"], rows)


def bias_table(report: AgreementReport) -> Table:
    infl = report.bias.grade_inflation
    rows: list[list[Any]] = [[label, est_text(infl[key])] for key, label in (
        ("person_pass_rate", "people's pass rate"), ("judge_pass_rate", "machine pass rate"),
        ("pass_rate_difference", "machine - people"), ("pass_rate_ratio", "machine / people"))]
    for t in report.bias.verbosity:
        span = "" if not t.n else f", {t.min_length}-{t.max_length}"
        rows.append([f"agreement, {t.tercile} (n={t.n}{span})", est_text(t.figures["percent_agreement"])])
    return Table("Biases of the machine grader: grade inflation (pass rates on the same items) and verbosity (by answer "
                 f"length in {report.bias.length_unit})", ["probe", "value"], rows)


def quality_table(report: AgreementReport) -> Table:
    rows: list[list[Any]] = [[q.method, q.budget, q.answers,
                              None if q.mean_tokens_in is None else round(q.mean_tokens_in), q.machine_pass_rate,
                              q.human_pass_rate] for q in report.quality_by_tokens]
    return Table("Answer quality against prompt tokens (budget sweep)",
                 ["method", "budget", "answers", "mean prompt tokens", "machine pass rate", "person pass rate"], rows)


def samples_table(report: AgreementReport) -> Table:
    """Agreement on each sample the people graded, each named: only the sampled one is weighted to the whole run."""
    samples = report.samples
    sampled = samples.sampled
    rows: list[list[Any]] = [[sampled.sample, sampled.pairs, f"{sampled.kish_effective_n}",
                              *texts_once([sampled.four_level[key] for key, _ in GROUP_MEASURES])]]
    rows += [[a.sample, a.pairs, "-", *(est_text(a.estimates[key]) for key, _ in GROUP_MEASURES)]
             for a in samples.apart]
    return Table(f"Samples (the tables above use {samples.headline_sample}; "
                 f"{sampled.pending_draws} draw(s) not graded yet)",
                 ["sample", "pairs", "effective n", *(label for _, label in GROUP_MEASURES)], rows)


def gain_cells(gain: JudgeGain | None) -> list[str]:
    """[lambda, what the judge bought] of a prediction-powered figure ('-' where it has no estimate)."""
    return ["-", "-"] if gain is None else [f"{gain.lam:.2f}", gain.line]


GAIN_HEADERS = ["lambda", "what machine grades bought"]
GAIN_NOTE = ("lambda: the machine grades' weight, 0 = people alone; what they bought: the people's grades it is worth, and the "
             "grades still needed for +/-0.05")


def ppi_table(report: AgreementReport) -> Table:
    samples = report.samples
    return ppi_rates_table(samples.pass_rates + ([samples.bundle_minus_raw] if samples.bundle_minus_raw else []))


def ppi_rates_table(rates: list[PpiPassRate]) -> Table:
    """Prediction-powered pass rates, each with its lambda and what the machine grades bought it (agree, summary)."""
    rows: list[list[Any]] = [[r.method if r.budget is None else f"{r.method} @ {r.budget}", r.judged,
                              r.human_sampled, text, *gain_cells(r.judge_bought)]
                             for r, text in zip(rates, texts_once([r.ppi for r in rates]))]
    return Table("Prediction-powered pass rates (the machine grader on every answer, corrected by the sampled human "
                 f"grades, power-tuned; {DIFFERENCE}: on the same questions, paired; {GAIN_NOTE})",
                 ["method", "judged", "human-graded draws", "pass rate", *GAIN_HEADERS], rows)


def people_bias_table(report: AgreementReport) -> Table:
    samples = report.samples
    anchoring = samples.anchoring
    rows: list[list[Any]] = [["preferred the left answer (sides are shuffled: fair is 0.5)",
                              est_text(samples.position_bias.preferred_left)],
                             ["agreement with the machine grade shown before grading", est_text(anchoring.open)],
                             ["agreement graded blind", est_text(anchoring.blind)],
                             ["difference, shown - blind (anchoring)", est_text(anchoring.difference)]]
    return Table("Biases of the people", ["measure", "estimate"], rows)


def faithfulness_tables(report: AgreementReport) -> list[Table]:
    """People's faithfulness per method (claim marks), and each faithfulness scorer against it."""
    f = report.faithfulness
    people = Table("Faithfulness by people (claim marks; answers with every claim marked)",
                   ["method", "answers", "partly marked", "faithfulness", "citation precision", "supported",
                    "miscited", "unsupported", "not claims"],
                   [[method, m.marked_answers, m.partly_marked, m.human_faithfulness, m.citation_precision,
                     m.supported, m.miscited, m.unsupported, m.not_claims]
                    for method, m in f.by_method.items()])
    level = int(report.settings.level * 100)
    scorers = Table(f"Faithfulness scorers vs people ({level}% bootstrap intervals; difference = scorer - person)",
                    ["scorer", "answers", "person mean", "scorer mean", "Pearson r", "mean |difference|",
                     "mean difference"],
                    [[s.scorer, s.n, s.mean_person, s.mean_scorer, est_text(s.estimates["pearson"]),
                      est_text(s.estimates["mean_abs_diff"]), est_text(s.estimates["mean_difference"])]
                     for s in f.scorers])
    return [people, scorers]


def budget_tables(report: AgreementReport) -> list[Table]:
    """People's grades and preferences by budget, beside the machine grader's pass rates: printed once people graded
    or compared at more than one budget (--json always has them)."""
    curve = report.by_budget
    if len(curve.people.budgets) < 2:
        return []
    graded = {g.method: g for g in curve.people.grades}
    texts = texts_once([e for p in curve.points for e in (p.people, p.machine)])
    rows: list[list[Any]] = []
    for i, p in enumerate(curve.points):
        g = graded.get(p.method)
        rows.append([p.method, g.graded if g else 0, texts[2 * i], texts[2 * i + 1], g.beside_text if g else ""])
    level = int(report.settings.level * 100)
    grades = Table(f"Pass rate by budget, people and machine ({level}% bootstrap intervals; a raw answer's grade is "
                   "its own, whichever budget it was shown beside)",
                   ["method", "people's grades", "people's pass rate", "machine pass rate", "raw graded beside"], rows)
    preferences = Table("Preferences by budget (raw against the bundled answer at that budget)",
                        list(curve.people.PREFERENCE_HEADERS), curve.people.preference_rows())
    return [grades, preferences]


def report_tables(report: AgreementReport, by: list[str]) -> list[Table]:
    """Every table of the report, with the breakdowns named in `by` (category, method, label, mode)."""
    tables = [measures_table(report), confusion_table(report), per_class_table(report)]
    tables += [group_table(f"By {name}", name, report.breakdowns[name]) for name in by]
    tables.append(people_table(report))
    if report.overlap.overlap_answers or report.overlap.reference_pairs:  # the run was assigned (gradedesk assign)
        tables.append(overlap_table(report))
    corrected = corrected_table(report)
    if corrected:
        tables.append(corrected)
    tables += [switch_table(report),
               group_table("Self-consistency (blind re-check vs the earlier grade)", "person", report.self_consistency),
               rubric_table(report), judge_rubrics_table(report), quality_table(report), samples_table(report)]
    if report.samples.pass_rates:
        tables.append(ppi_table(report))
    tables += [bias_table(report), people_bias_table(report)]
    tables += faithfulness_tables(report)
    tables += budget_tables(report)
    return tables
