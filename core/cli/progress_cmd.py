"""gradedesk progress [RUN]: per person assigned and graded items, and what people-vs-people agreement still needs."""

from __future__ import annotations

import argparse

ORDER = 37


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "progress", parents=[common], help="per person: items assigned and graded; overlap items agreement needs",
        description="For a run assigned with `gradedesk assign`: each person's assigned and graded items, "
                    "Krippendorff's alpha between people on the items assigned to two or more of them (with its "
                    "bootstrap interval), and a projection of how many more such items the interval needs to narrow "
                    "to --width (widths shrink about as 1/sqrt(n)).")
    p.add_argument("run", nargs="?", default="latest", metavar="RUN", help="run id or 'latest' (default)")
    p.add_argument("--width", type=float, default=0.2, metavar="W",
                   help="the alpha interval width to project to (default 0.2, i.e. about +/-0.1)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.cli.output import print_json, print_table
    from gradedesk.core.review.team import team_progress
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.run_records import resolve_run

    with open_store(args.store, create=False) as store:
        report = team_progress(store, resolve_run(store, args.run), args.width)
    if args.json:
        print_json(report.to_dict())
        return 0
    if not report.people:
        print(f"run {report.run_id}: nothing assigned yet; assign items with `gradedesk assign`")
        return 0
    print(f"run {report.run_id}: {report.items} items assigned, {report.overlap_items} to two or more people")
    print_table(["grader", "assigned", "graded", "adjudicated", "flagged"],
                [[p.grader, p.assigned, p.graded, p.adjudicated, p.flagged] for p in report.people])
    print(f"{report.disputed} items where people disagree, {report.adjudicated} of them adjudicated "
          "(gradedesk grade --adjudicate)")
    print(f"alpha between people ({report.alpha_items} overlap items graded by two or more): {report.alpha.text()}")
    if report.more_for_width is not None:
        print(f"{report.more_for_width} more overlap items for an interval width of {report.target_width:g} "
              f"({report.projection})")
    return 0
