"""gradedesk assign [RUN] --graders ann,bob,cy --overlap 2: give each item of a run to `overlap` people, balanced."""

from __future__ import annotations

import argparse

ORDER = 36


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "assign", parents=[common], help="give each item of a run to several people (overlap), balanced",
        description="Assign each item (question) of a run, or a seeded random sample of them, to OVERLAP of the named "
                    "people, so that their loads differ by at most one. Run it again with more people to spread the "
                    "items that are not graded yet; graded items stay with whoever graded them. `gradedesk progress` "
                    "shows how far each person has got.")
    p.add_argument("run", nargs="?", default="latest", metavar="RUN", help="run id or 'latest' (default)")
    p.add_argument("--graders", required=True, metavar="NAMES",
                   help="the people, comma-separated (e.g. ann,bob,cy): the names they give the desk")
    p.add_argument("--overlap", type=int, default=2, metavar="K",
                   help="people per item (default 2; at most the number of people): items seen by two or more "
                        "measure agreement between people")
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="seeds the sample and the tie-breaks (default: the run's order seed)")
    p.add_argument("--items", type=int, default=None, metavar="N",
                   help="assign a simple random sample of N items (each one's inclusion probability is stored) "
                        "instead of all; only on a run's first assignment")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.cli.output import print_json, print_table
    from gradedesk.core.review.grader_names import parse_graders
    from gradedesk.core.review.team import assign_run
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.run_records import resolve_run

    graders = parse_graders(args.graders)
    with open_store(args.store, create=False) as store:
        report = assign_run(store, resolve_run(store, args.run), graders, args.overlap, seed=args.seed,
                            items=args.items)
    if args.json:
        print_json(report.to_dict())
        return 0
    sample = "all items" if report.inclusion_probability == 1 else \
        f"a sample, inclusion probability {report.inclusion_probability:.4g}"
    print(f"run {report.run_id}: {report.items} items ({sample}), {report.overlap} people each, seed {report.seed}; "
          f"{report.added} assignments added, {report.withdrawn} moved or taken back")
    print_table(["grader", "items"], list(report.loads.items()))
    return 0
