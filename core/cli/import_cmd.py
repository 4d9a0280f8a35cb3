"""gradedesk import FILE.jsonl: bring in a run log made elsewhere (gradedesk run logs, the lesson's comparison and
harness logs, RAGAS rows), each line's shape told by its fields or forced with --format."""

from __future__ import annotations

import argparse

from gradedesk.core.exchange.formats import RUNLOG_SHAPES
from gradedesk.core.cli.output import input_file

ORDER = 62


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "import", parents=[common], help="import a run log (gradedesk, comparison, harness or RAGAS JSONL) as a run",
        description="Import answers made by another pipeline so they can be graded here. Each line's shape is told "
                    "by its fields: gradedesk run logs (as `gradedesk export` writes them); the evidence-bundles "
                    "lesson's bundle-comparison log (raw_chunks/bundle_chunks as counts; raw_grade/bundle_grade are "
                    "a person's grades); harness logs, one answer a line (a graded one names its judge_model and "
                    "carries the retrieval grader's metrics); RAGAS rows (user_input, retrieved_contexts, response, "
                    "reference). Any bad line stops the import (nothing stored) unless --skip-invalid.")
    input_file(p, "file", metavar="FILE.jsonl")
    p.add_argument("--format", dest="shape", choices=tuple(RUNLOG_SHAPES), default=None,
                   help="read every line as this shape instead of telling it by its fields")
    p.add_argument("--grader", default=None, metavar="NAME",
                   help="the person whose grades the log's hand-filled grades are (default: the file's name)")
    p.add_argument("--grades-from", default=None, metavar="WHO",
                   help="who made the log's grades: human (a person, named by --grader), judge:MODEL, or imported "
                        "(an unnamed grader); default: what the log says (the lesson's comparison grades are a "
                        "person's, a graded harness log names its judge_model)")
    p.add_argument("--skip-invalid", action="store_true", help="import the good lines, report the bad ones")
    p.add_argument("--label", default=None, help="a name for the imported run (default: the file name)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.cli.output import info, print_json
    from gradedesk.core.errors import UserError
    from gradedesk.core.exchange.runlog_fields import GradedBy
    from gradedesk.core.review.grader_names import checked_name
    from gradedesk.core.exchange.runlog_import import import_runlog
    from gradedesk.core.store.connection import open_store

    grades_from = None
    if args.grades_from is not None:
        grades_from = GradedBy.parse(args.grades_from)
        if grades_from is None or grades_from.kind == "rule":
            raise UserError(f"--grades-from: {args.grades_from!r} is not human, judge:MODEL or imported")
    if args.grader is not None:
        args.grader = checked_name(args.grader, "--grader")
    with open_store(args.store) as store:
        report = import_runlog(store, args.file, skip_invalid=args.skip_invalid, label=args.label, shape=args.shape,
                               grader=args.grader, grades_from=grades_from)
    for problem in report.skipped:
        info(f"skipped {problem}")
    if args.json:
        print_json(report.to_dict())
    elif report.already_imported:
        print(f"{args.file}: already imported as run {report.run_id}; nothing added")
    else:
        shapes = ", ".join(RUNLOG_SHAPES[s] + (f" ({n} lines)" if len(report.shapes) > 1 else "")
                           for s, n in report.shapes.items())
        print(f"{args.file}: imported as run {report.run_id}: {report.lines} lines, {report.answers} answers, "
              f"{report.grades} imported grades, {report.human_grades} human grades"
              + (f", {report.metrics} retrieval metrics" if report.metrics else "")
              + (f"; skipped {len(report.skipped)} bad line(s)" if report.skipped else "") + f" (read as {shapes})")
    return 0
