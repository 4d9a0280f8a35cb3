"""gradedesk merge OTHER.db: bring another store's human grades, claim marks, preferences, sampler draws and item flags
into this store (idempotent)."""

from __future__ import annotations

import argparse

from gradedesk.core.cli.output import input_file

ORDER = 46


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "merge", parents=[common], help="merge another store's human grades and claim marks into this one",
        description="Copy the human grade events, claim marks, preferences, sampler draws (which the weighted "
                    "figures of `agree` count) and item flags of OTHER.db that this store does not have yet (by uuid, so merging "
                    "twice adds nothing). Answers are matched by run configuration, question, method, budget and "
                    "answer text; what cannot be matched is counted by reason. OTHER.db is only read.")
    input_file(p, "other", metavar="OTHER.db")
    p.add_argument("--dry-run", action="store_true", help="report what would be merged; write nothing")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.exchange.merge import merge_store
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.cli.output import print_json, print_table

    with open_store(args.store, create=False) as store:
        report = merge_store(store, args.other, dry_run=args.dry_run)
    if args.json:
        print_json(report.to_dict())
        return 0
    verb = "would add" if report.dry_run else "added"
    rows = [[f"human grade events {verb}", report.grades_added],
            ["human grade events already here", report.grades_already_here],
            [f"claim marks {verb}", report.claim_marks_added],
            ["claim marks already here", report.claim_marks_already_here],
            [f"preferences {verb}", report.preferences_added],
            ["preferences already here", report.preferences_already_here],
            [f"sampler draws {verb}", report.draws_added],
            ["sampler draws already here", report.draws_already_here],
            [f"item flags {verb}", report.flags_added],
            ["item flags already here", report.flags_already_here],
            [f"assignment rows {verb}", report.assignments_added],
            ["assignment rows already here", report.assignments_already_here],
            [f"adjudication rows {verb}", report.decisions_added],
            ["adjudication rows already here", report.decisions_already_here],
            [f"pairwise judge replies {verb}", report.pairwise_added],
            ["pairwise judge replies already here", report.pairwise_already_here]]
    for what, unmatched in (("grade events", report.unmatched_grades), ("claim marks", report.unmatched_claim_marks),
                            ("preferences", report.unmatched_preferences), ("sampler draws", report.unmatched_draws),
                            ("item flags", report.unmatched_flags), ("assignment rows", report.unmatched_assignments),
                            ("adjudication rows", report.unmatched_decisions),
                            ("pairwise judge replies", report.unmatched_pairwise)):
        rows += [[f"{what} not matched: {reason}", n] for reason, n in unmatched.items()]
    print(f"merge {report.other} -> {args.store}" + (f" (graders: {', '.join(report.graders)})" if report.graders else ""))
    print_table(["", "count"], rows)
    return 0
