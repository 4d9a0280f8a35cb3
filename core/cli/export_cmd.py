"""gradedesk export RUN: a run as JSONL: gradedesk's run log (one line per question: answers, evidence, bundle, grades),
the evidence-bundles lesson's comparison log, or RAGAS rows."""

from __future__ import annotations

import argparse

from gradedesk.core.exchange.formats import EXPORT_FORMATS
from gradedesk.core.cli.output import output_file

ORDER = 60


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("export", parents=[common], help="export a run as JSONL (gradedesk, comparison or RAGAS)",
                       description="gradedesk (default): one JSON line per question: raw and bundled answers with "
                                   "their chunks, bundle tokens and coverage, headline grades and, once graded, "
                                   "every human, judge and rule grade marked with its grader. comparison: the "
                                   "evidence-bundles lesson's bundle-comparison log, people's grades in "
                                   "raw_grade/bundle_grade. ragas: one row per answer (user_input, "
                                   "retrieved_contexts, response, reference) plus its grade. RUN is an id or "
                                   "'latest'. `gradedesk import` reads all three back.")
    p.add_argument("run", metavar="RUN", nargs="?", default="latest", help="run id or 'latest' (default)")
    p.add_argument("--format", default="gradedesk", choices=EXPORT_FORMATS, help="what to write (default: gradedesk)")
    p.add_argument("--jsonl", action="store_true", help="JSON Lines output (every format is; accepted for clarity)")
    output_file(p, "-o", "--output", default="-", metavar="FILE", help="write here instead of stdout")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.cli.output import info, write_lines
    from gradedesk.core.exchange.export_formats import comparison_lines, ragas_rows
    from gradedesk.core.exchange.runlog_export import export_run
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.run_records import resolve_run

    write = {"gradedesk": export_run, "comparison": comparison_lines, "ragas": ragas_rows}[args.format]
    with open_store(args.store, create=False) as store:
        run_id = resolve_run(store, args.run)
        records = list(write(store, run_id))
    count = write_lines(records, args.output)
    if args.output != "-":
        what = "rows" if args.format == "ragas" else "questions"
        info(f"run {run_id}: {count} {what} written to {args.output}")
    return 0
