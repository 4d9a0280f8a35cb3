"""gradedesk import-traces: an application's traces as a run to grade: Phoenix (through its client) or a Langfuse
trace export, one side or two sides paired by a key."""

from __future__ import annotations

import argparse

ORDER = 63


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "import-traces", parents=[common], help="import an application's traces (Phoenix, Langfuse) as a run to grade",
        description="Each trace with an LLM span becomes a question (its input), an answer (the LLM span's output) and "
                    "its evidence (the retriever spans' documents: ids, scores, content, file paths and lines when "
                    "their metadata has them); the trace and span ids are kept, so `export-scores --push` puts the "
                    "grades back on the span. Questions have no gold answer: the judge grades them with its "
                    "reference-free rubric, the rule grader skips them. Importing again adds only new traces; a "
                    "trace that cannot be read is skipped with one line.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--phoenix", metavar="URL", help="read from the Phoenix server at URL (needs gradedesk[phoenix])")
    src.add_argument("--langfuse", metavar="FILE.json",
                     help="read a Langfuse trace export: the public API's traces with their observations (JSON)")
    p.add_argument("--project", default="default", metavar="NAME",
                   help="the Phoenix project to read, side A when two sides are read (default: default)")
    p.add_argument("--side-b-project", default=None, metavar="NAME",
                   help="also read this Phoenix project, as the other side: its answers sit beside side A's, paired "
                        "by --pair-by; the desk shows the project names instead of raw/bundled")
    p.add_argument("--pair-by", default="input", metavar="KEY",
                   help="with two sides, what pairs a trace of side A with one of side B: input (the input text, "
                        "hashed; default) or the name of a metadata attribute; a trace without a partner is graded "
                        "alone")
    p.add_argument("--since", default=None, metavar="TIME", help="only traces started at or after this ISO time")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="at most N new traces per side")
    p.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                   help="per request to the server (default: 30)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.cli.output import info, print_json
    from gradedesk.core.errors import UserError
    from gradedesk.core.exchange.traces import TraceRead, import_traces, known_traces
    from gradedesk.core.store.connection import open_store

    if args.limit is not None and args.limit < 1:
        raise UserError(f"--limit: must be at least 1, got {args.limit}")
    if args.side_b_project is not None and args.side_b_project == args.project:
        raise UserError(f"--side-b-project: {args.side_b_project!r} is side A's project too")
    if not args.pair_by.strip():
        raise UserError("--pair-by: empty; give input or an attribute name")
    two = args.side_b_project is not None
    with open_store(args.store) as store:
        if args.phoenix:
            from gradedesk.core.exchange.traces_phoenix import parse_since, read_phoenix

            since = parse_since(args.since)
            url = args.phoenix.rstrip("/")
            projects = (args.project, args.side_b_project) if two else (args.project,)
            read = TraceRead("phoenix", url, projects, args.pair_by if two else None)
            known = known_traces(store, read)
            sides, skipped = [], []
            for project in projects:
                answers, bad = read_phoenix(url, project, since=since, limit=args.limit, known=known,
                                            timeout=args.timeout)
                sides.append(answers)
                skipped += bad
        else:
            from gradedesk.core.exchange.traces_langfuse import read_langfuse_export

            if two:
                raise UserError("--side-b-project: Langfuse exports are read one at a time (one side)")
            read, sides, skipped = read_langfuse_export(args.langfuse, since=args.since)
            known = known_traces(store, read)
            sides = [[t for t in side if t.trace_id not in known][:args.limit] for side in sides]
        report = import_traces(store, read, sides, skipped)
    for line in report.skipped:
        info(line)
    if args.json:
        print_json(report.to_dict())
        return 0
    where = f"{read.source} {read.endpoint or ''}".rstrip() + f" {' + '.join(read.projects)}"
    print(f"{where}: {report.traces} new trace(s) {'as' if report.created else 'added to'} run {report.run_id} "
          f"({report.questions} new question(s), {report.paired} paired)"
          + (f"; {report.already} already imported" if report.already else "")
          + (f"; skipped {len(report.skipped)}" if report.skipped else ""))
    return 0
