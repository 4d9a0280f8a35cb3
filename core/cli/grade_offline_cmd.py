"""gradedesk grade-offline RUN: retrieval evals, the rule grader, claims and citations, offline faithfulness/relevance;
no model needed."""

from __future__ import annotations

import argparse

ORDER = 40



def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "grade-offline", parents=[common], help="grade a run without a model: retrieval evals, rule grader, scores",
        description="Score retrieval (file/symbol precision and recall, context precision and recall), grade every "
                    "answer with the offline rule grader (rules/1: key terms of the gold answer, rapidfuzz; not an "
                    "LLM judge), cut every answer into claims and check its citations against its evidence, and "
                    "score faithfulness and relevance offline. Safe to run again.")
    p.add_argument("run", nargs="?", default="latest", metavar="RUN", help="run id or 'latest' (default)")
    p.set_defaults(handler=run)


def offline_line(report) -> str:
    return (f"run {report.run_id}: retrieval evals for {report.retrieval_scored} answers, "
            f"{report.rule_graded} new grades by the rule grader {report.rule_grader} (not an LLM judge"
            + (f"; {report.stale_regraded} replace grades made against an older gold answer" if report.stale_regraded
               else "") + "), "
            f"claims and citations of {report.claims_split} answers, "
            f"faithfulness/relevance ({report.scorer_method}) for {report.offline_scored} answers"
            + (f"; the rule grader skipped {report.no_gold} answers without a gold answer (nothing to compare with; "
               "`gradedesk judge` grades them reference-free when they came from traces)" if report.no_gold else ""))


def run(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from gradedesk.core.store.run_records import resolve_run
    from gradedesk.core.grading.offline_grading import grade_offline
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.cli.output import print_json, progress_bars

    with open_store(args.store, create=False) as store:
        run_id = resolve_run(store, args.run)
        with progress_bars() as bar:
            report = grade_offline(store, run_id, bar)
    if args.json:
        print_json(asdict(report))
    else:
        print(offline_line(report))
    return 0
