"""gradedesk export-scores [RUN]: human and machine grades as Langfuse-style score records (JSONL)."""

from __future__ import annotations

import argparse

ORDER = 47


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "export-scores", parents=[common], help="export grades as score records (JSONL) for Langfuse-style tools",
        description="One JSON object per line: name, value, data_type, source (HUMAN or EVAL), comment, grader, time, "
                    "trace_id, observation_id, run/answer/question ids, metadata. People's current grades and every "
                    "machine grade of the run.")
    p.add_argument("run", nargs="?", default="latest", metavar="RUN", help="run id or 'latest' (default)")
    p.add_argument("--out", metavar="FILE.jsonl", help="write here instead of stdout")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import sys

    from gradedesk.core.store.runs import resolve_run
    from gradedesk.core.errors import UserError
    from gradedesk.core.exchange.scores import export_scores
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.cli.output import info

    with open_store(args.store, create=False) as store:
        run_id = resolve_run(store, args.run)
        if args.out is None:
            count = export_scores(store, run_id, sys.stdout)
        else:
            try:
                with open(args.out, "w", encoding="utf-8") as out:
                    count = export_scores(store, run_id, out)
            except OSError as exc:
                raise UserError(f"{args.out}: cannot write ({exc.strerror})") from None
    info(f"{count} score record(s) of run {run_id}" + (f" written to {args.out}" if args.out else ""))
    return 0
