"""gradedesk summary RUN: grades by method and category, retrieval, faithfulness, claims and invalid citations, tokens
and cost, grading cost; once people graded items the desk drew, the prediction-powered pass rates `agree` prints, each
with its lambda and what the machine grades bought it (--json: `prediction_powered`, beside the run summary's own
fields: core/runs does not reach into core/agreement, so the two are joined here)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

ORDER = 42

GRADE_COLUMNS = ("fully_correct", "partially_correct", "unsupported", "wrong", "grading_error")

if TYPE_CHECKING:
    from gradedesk.core.agreement.samples import PpiPassRate
    from gradedesk.core.runs.headline import GradeCounts
    from gradedesk.core.runs.summary import RunSummary


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "summary", parents=[common], help="summarize a run: grades, retrieval, faithfulness, tokens and cost",
        description="Tables on stdout (--json for machines): answers, tokens and cost per method; grades per grader "
                    "by method and by category; failure labels; retrieval precision/recall; faithfulness and "
                    "relevance; claims, citations and invalid citations; grading cost against answering cost; "
                    "judge consistency; prediction-powered pass rates (the judge corrected by the sampled human "
                    "grades, with lambda and what the judge bought them); notes.")
    p.add_argument("run", nargs="?", default="latest", metavar="RUN", help="run id or 'latest' (default)")
    p.set_defaults(handler=run)


def usd(value: float | None) -> str | None:
    """Costs keep their small digits (a table float shows three decimals)."""
    return None if value is None else f"{value:.6f}"


def section(title: str) -> None:
    print(f"\n== {title}")


def count_cells(c: GradeCounts) -> list[Any]:
    """n, each grade of GRADE_COLUMNS (the grades, then grading_error) and the pass rate."""
    return [c.n, *(c.by_grade[g] for g in GRADE_COLUMNS[:-1]), c.grading_error, c.pass_rate]


def budget_section(s: RunSummary) -> None:
    """People's grades and preferences by budget, once they graded or compared at more than one (--json: always)."""
    from gradedesk.core.cli.output import print_table
    from gradedesk.core.stats.measures import texts_once

    people = s.by_budget
    if len(people.budgets) < 2:
        return
    section("people by budget (a raw answer's grade is its own, whichever budget it was shown beside; flagged items "
            "left out, as in agree; 95% bootstrap intervals)")
    print_table(("method", "graded", "passed", "pass_rate", "raw graded beside"),
                [[g.method, g.graded, g.passed, text, g.beside_text] for g, text in zip(people.grades, texts_once([g.pass_rate for g in people.grades]))])
    print_table(people.PREFERENCE_HEADERS, people.preference_rows())


def ppi_section(rates: list[PpiPassRate]) -> None:
    """The prediction-powered pass rates, once a sampled human grade makes one of them (agree says why not, else)."""
    from gradedesk.core.agreement.tables import ppi_rates_table
    from gradedesk.core.cli.output import print_table

    if not any(r.ppi.value is not None for r in rates):
        return
    table = ppi_rates_table(rates)
    section(table.title[0].lower() + table.title[1:])
    print_table(table.headers, table.rows)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.agreement.report import prediction_powered
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.runs.headline import RAW_VS_BUNDLES, headline_table, names_code
    from gradedesk.core.runs.summary import summarize
    from gradedesk.core.cli.output import print_json, print_table

    with open_store(args.store, create=False) as store:
        s = summarize(store, args.run)
        rates = prediction_powered(store, s.run.id)
    if args.json:
        print_json({**s.to_dict(), "prediction_powered": [r.to_dict() for r in rates]})
        return 0
    r = s.run
    print(f"run {r.id} ({r.source}, {r.created_at}): {r.provider} {r.model or ''}".rstrip()
          + (f", label {r.label}" if r.label else ""))
    title = s.headline.title.lower() if s.headline.title == RAW_VS_BUNDLES else s.headline.title
    code = "the labelled symbols' code the evidence shows, " if names_code(s.headline) else ""
    section(f"headline: {title}, {code}recall of the evidence against the expected files and symbols, prompt "
            "tokens, pass rates (means with 95% bootstrap intervals)")
    print_table(*headline_table(s.headline))
    if s.headline.quality_note:
        print(s.headline.quality_note)
    section("answers, tokens and cost per method")
    print_table(("method", "answers", "ok", "truncated", "error", "pending", "tokens_in", "tokens_out", "mean_in",
                 "cost_usd", "mean_latency_ms"),
                [[a.method, a.answers, a.ok, a.truncated, a.error, a.pending, a.tokens_in,
                  a.tokens_out, a.mean_tokens_in, usd(a.cost_usd), a.mean_latency_ms] for a in s.answers])
    section("grades by method, machine graders and people (judge: first repeat; pass = fully_correct over usable "
            "grades)")
    print_table(("grader", "method", "n", *GRADE_COLUMNS, "pass_rate", "ungraded"),
                [[g.grader, g.method, *count_cells(g.counts), g.ungraded] for g in [*s.grades, *s.people]])
    section("grades by category")
    print_table(("grader", "category", "method", "n", *GRADE_COLUMNS, "pass_rate"),
                [[g.grader, g.category, g.method, *count_cells(g.counts)] for g in s.by_category])
    if s.failure_labels:
        section("failure labels")
        print_table(("grader", "method", "failure_label", "n"),
                    [[f.grader, f.method, f.failure_label, f.n] for f in s.failure_labels])
    for title, scores in (("retrieval (id-based; unlabelled questions are not zeros)", s.retrieval),
                          ("faithfulness and answer relevance", s.answer_scores)):
        section(title)
        print_table(("method", "metric", "scorer", "mean", "n", "unlabelled", "undefined", "errors"),
                    [[x.method, x.metric, x.scorer, x.mean, x.n, x.unlabelled, x.undefined, x.errors] for x in scores])
    section("claims and citations (invalid: a label, file or lines not in the answer's evidence; people: answers "
            "with every claim marked)")
    print_table(("method", "answers", "claims", "cited", "citations", "invalid", "answers_with_invalid",
                 "people_answers", "human_faithfulness", "citation_precision"),
                [[n.method, n.answers, n.claims, n.cited, n.citations, n.invalid_citations, n.answers_with_invalid,
                  p.marked_answers, p.human_faithfulness, p.citation_precision]
                 for n, p in ((c.counts, c.people) for c in s.claims)])
    section("cost: answering vs grading")
    cost = s.cost
    judge, llm = cost.grading.judge, cost.grading.llm_scores
    print_table(("what", "calls", "tokens", "cost_usd"), [
        ["answering", sum(a.ok for a in s.answers), cost.answering.tokens, usd(cost.answering.cost_usd)],
        ["judge", judge.calls, judge.tokens_in + judge.tokens_out, usd(judge.cost_usd)],
        ["llm scores", llm.calls, llm.tokens_in + llm.tokens_out, usd(llm.cost_usd)],
    ])
    if cost.grading_to_answering is not None:
        print(f"grading cost / answering cost: {cost.grading_to_answering:.2f}")
    if s.consistency:
        k = s.consistency
        section("judge consistency across repeats")
        print(f"{k.identical}/{k.answers_repeated} identical ({k.share_identical:.1%})")
        print_table(("question", "method", "budget", "judge", "grades"),
                    [[x.question_id, x.method, x.budget, x.judge_model, " -> ".join(x.grades)] for x in k.changed])
    budget_section(s)
    ppi_section(rates)
    if s.warnings:
        section("notes")
        for w in s.warnings:
            print(f"- {w}")
    return 0
