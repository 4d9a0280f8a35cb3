"""gradedesk import FILE.jsonl: bring in a run log made elsewhere (comparison files or harness run logs)."""

from __future__ import annotations

import argparse

ORDER = 62


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "import", parents=[common], help="import a run log (comparison or harness JSONL) as a run",
        description="Import answers made by another pipeline so they can be graded here. Comparison lines carry "
                    "raw_answer/bundle_answer (as `gradedesk export` writes them); harness lines carry one answer "
                    "(question_id, question, category, answer, evidence_files, grade, failure_label, "
                    "grading_notes). Grades in the log are stored as imported grades, named after the file. Any bad "
                    "line stops the import (nothing stored) unless --skip-invalid.")
    p.add_argument("file", metavar="FILE.jsonl")
    p.add_argument("--skip-invalid", action="store_true", help="import the good lines, report the bad ones")
    p.add_argument("--label", default=None, help="a name for the imported run (default: the file name)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.exchange.runlog_import import import_runlog
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.cli.output import info, print_json

    with open_store(args.store) as store:
        report = import_runlog(store, args.file, skip_invalid=args.skip_invalid, label=args.label)
    for problem in report.skipped:
        info(f"skipped {problem}")
    if args.json:
        print_json(report.to_dict())
    elif report.already_imported:
        print(f"{args.file}: already imported as run {report.run_id}; nothing added")
    else:
        print(f"{args.file}: imported as run {report.run_id}: {report.lines} lines, {report.answers} answers, "
              f"{report.grades} imported grades, {report.human_grades} human grades"
              + (f"; skipped {len(report.skipped)} bad line(s)" if report.skipped else ""))
    return 0
