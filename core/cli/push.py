"""`export-scores --push`: a run's scores sent to Phoenix (span annotations) or Langfuse (scores) instead of written."""

from __future__ import annotations

import argparse
import os


def push(args: argparse.Namespace) -> int:
    from gradedesk.core.cli.output import info
    from gradedesk.core.errors import UserError
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.run_records import resolve_run

    if args.format == "gradedesk":
        raise UserError("--push: gradedesk's records are written, not pushed; add --format phoenix or langfuse")
    with open_store(args.store, create=False) as store:
        run_id = resolve_run(store, args.run)
        if args.format == "phoenix":
            from gradedesk.core.exchange.phoenix_push import push_phoenix

            if not args.push:
                raise UserError("--push: give the Phoenix server's URL, e.g. --push http://localhost:6006")
            report = push_phoenix(store, run_id, args.push)
            info(f"run {run_id}: {report.annotations} annotation(s) on {report.spans} span(s) pushed to {args.push}"
                 + (f" ({report.withdrawn} labelled withdrawn)" if report.withdrawn else ""))
            return 0
        from gradedesk.core.exchange.langfuse_push import push_langfuse

        host = args.push or os.environ.get("LANGFUSE_HOST", "")
        sent = push_langfuse(store, run_id, host)
    info(f"run {run_id}: {sent.scores} score(s) pushed to {host}"
         + (f", {sent.deleted} withdrawn score(s) deleted" if sent.deleted else ""))
    return 0
