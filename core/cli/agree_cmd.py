"""gradedesk agree [RUN]: how far people and the machine grader agree, and the judge-corrected pass rates."""

from __future__ import annotations

import argparse

ORDER = 45
BY_CHOICES = ("category", "method", "label", "mode")


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "agree", parents=[common], help="agreement between people and the judge; corrected pass rates",
        description="Person vs machine grader agreement (percent, Cohen's kappa, weighted kappa, Gwet's AC1, "
                    "confusion matrix, TPR/TNR) with seeded bootstrap intervals; judge-corrected pass rates per "
                    "method; switch rate; self-consistency; Krippendorff's alpha across people; rubric versions; "
                    "people's faithfulness from their claim marks against each faithfulness scorer (Pearson r, mean "
                    "absolute and mean difference, with intervals); which answer is better: the pairwise judge's "
                    "position bias, tie and inconsistency rates and stability, its agreement with people's "
                    "preferences, and the win rate of bundled over raw from people, from the judge and "
                    "prediction-powered.")
    p.add_argument("run", nargs="?", default="latest", metavar="RUN", help="run id or 'latest' (default)")
    p.add_argument("--by", action="append", choices=BY_CHOICES, metavar="|".join(BY_CHOICES),
                   help="breakdown to print (repeatable; default: category, method and label)")
    p.add_argument("--bootstrap", type=int, default=None, metavar="N",
                   help="bootstrap resamples per interval (default 2000; 0: no intervals)")
    p.add_argument("--seed", type=int, default=None, help="bootstrap seed (default fixed, so reruns agree)")
    p.add_argument("--grader", default=None, metavar="judge:MODEL|rules|imported:NAME",
                   help="compare every grade with this machine grader (default: the one on the desk when each grade "
                        "was saved)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.agreement.grade_pairs import GraderChoice
    from gradedesk.core.agreement.report import Settings, agreement_report
    from gradedesk.core.agreement.pairwise_tables import pairwise_tables
    from gradedesk.core.agreement.tables import headline, report_tables
    from gradedesk.core.cli.output import info, print_json, print_table
    from gradedesk.core.errors import UserError
    from gradedesk.core.stats.measures import DEFAULT_BOOT, DEFAULT_SEED
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.run_records import resolve_run

    boot = DEFAULT_BOOT if args.bootstrap is None else args.bootstrap
    if boot < 0:
        raise UserError(f"--bootstrap: {boot} is negative")
    settings = Settings(boot=boot, seed=DEFAULT_SEED if args.seed is None else args.seed)
    grader = GraderChoice.parse(args.grader) if args.grader is not None else None
    with open_store(args.store, create=False) as store:
        report = agreement_report(store, resolve_run(store, args.run), settings, grader)
    if args.json:
        print_json(report.to_dict())
        return 0
    print(headline(report))
    print(f"compared with: {report.compared_with}")
    tables = report_tables(report, args.by or ["category", "method", "label"])
    tables += pairwise_tables(report.pairwise, report.samples.position_bias.preferred_left)
    for table in tables:
        print()
        print(table.title)
        print_table(table.headers, table.rows)
    for note in report.notes:
        info(f"note: {note}")
    return 0
