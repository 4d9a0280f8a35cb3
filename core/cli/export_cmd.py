"""gradedesk export RUN --jsonl: a run as JSONL, one line per question (answers, evidence, bundle, grades)."""

from __future__ import annotations

import argparse

ORDER = 60


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("export", parents=[common], help="export a run as JSONL (one line per question)",
                       description="Write one JSON line per question: raw and bundled answers with their chunks, "
                                   "bundle tokens and coverage, headline grades and, once graded, every human, "
                                   "judge and rule grade marked with its grader. RUN is an id or 'latest'.")
    p.add_argument("run", metavar="RUN", nargs="?", default="latest", help="run id or 'latest' (default)")
    p.add_argument("--jsonl", action="store_true", help="JSON Lines output (the only format; accepted for clarity)")
    p.add_argument("-o", "--output", default="-", metavar="FILE", help="write here instead of stdout")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import json
    import os
    import sys

    from gradedesk.core.store.runs import resolve_run
    from gradedesk.core.errors import UserError
    from gradedesk.core.exchange.runlog_export import export_run
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.cli.output import info

    with open_store(args.store, create=False) as store:
        run_id = resolve_run(store, args.run)
        lines = [json.dumps(line, ensure_ascii=False, default=str) for line in export_run(store, run_id)]
    text = "".join(line + "\n" for line in lines)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        tmp = f"{args.output}.tmp{os.getpid()}"
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, args.output)  # a reader never sees half a file
        except OSError as exc:
            raise UserError(f"{args.output}: cannot write ({exc.strerror})") from None
        info(f"run {run_id}: {len(lines)} questions written to {args.output}")
    return 0
