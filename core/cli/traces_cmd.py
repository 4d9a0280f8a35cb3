"""gradedesk import-traces: an application's traces as a run to grade: Phoenix (through its client) or a Langfuse
trace export, one side or two sides (two projects, or one project's traces split by an attribute) paired by a key."""

from __future__ import annotations

import argparse

from gradedesk.core.cli.output import input_file

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
    input_file(src, "--langfuse", metavar="FILE.json",
                     help="read a Langfuse trace export: the public API's traces with their observations (JSON)")
    p.add_argument("--project", default="default", metavar="NAME",
                   help="the Phoenix project to read, side A when two sides are read (default: default)")
    p.add_argument("--side-b-project", default=None, metavar="NAME",
                   help="also read this Phoenix project, as the other side: its answers sit beside side A's, paired "
                        "by --pair-by; the desk shows the project names instead of raw/bundled")
    p.add_argument("--side-by", default=None, metavar="ATTR",
                   help="two sides within one project (or Langfuse export): a trace's side is the value of its "
                        "metadata attribute ATTR (e.g. variant = baseline or rag-v2; side A is the value first in sorted "
                        "order), paired by --pair-by; the desk shows the values instead of raw/bundled. More than two values, or a new trace without the "
                        "attribute, is refused and nothing is imported (--since leaves older traces out)")
    p.add_argument("--pair-by", default="input", metavar="KEY",
                   help="with two sides, what pairs a trace of side A with one of side B: input (the input text, "
                        "hashed; default) or the name of a metadata attribute; a trace without a partner is graded "
                        "alone")
    p.add_argument("--since", default=None, metavar="TIME", help="only traces started at or after this ISO time")
    p.add_argument("--limit", type=int, default=None, metavar="N",
                   help="at most N new traces per side (the oldest first)")
    p.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                   help="per request to the server (default: 30)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.cli.output import info, print_json
    from gradedesk.core.errors import UserError
    from gradedesk.core.exchange.traces import TraceRead, import_traces, known_traces, split_by_attribute
    from gradedesk.core.store.connection import open_store

    if args.limit is not None and args.limit < 1:
        raise UserError(f"--limit: must be at least 1, got {args.limit}")
    if args.side_b_project is not None and args.side_b_project == args.project:
        raise UserError(f"--side-b-project: {args.side_b_project!r} is side A's project too")
    if not args.pair_by.strip():
        raise UserError("--pair-by: empty; give input or an attribute name")
    if args.side_by is not None:
        if not args.side_by.strip():
            raise UserError("--side-by: empty; give the name of the attribute whose value names a trace's side")
        if args.side_b_project is not None:
            raise UserError("--side-by and --side-b-project: name the sides one way, by an attribute within "
                            "--project or by a second project")
        if args.side_by == args.pair_by:
            raise UserError(f"--side-by and --pair-by: both {args.side_by!r}; the two sides' traces never share a "
                            "side's value, so pair them by input or another attribute")
    two = args.side_b_project is not None or args.side_by is not None
    pair_by = args.pair_by if two else None
    # with --side-by the sides are known only once read: --limit cuts each side after the split
    limit = None if args.side_by else args.limit
    with open_store(args.store) as store:
        if args.phoenix:
            from gradedesk.core.exchange.traces_phoenix import parse_since, read_phoenix

            since = parse_since(args.since)
            url = args.phoenix.rstrip("/")
            projects = (args.project,) if args.side_b_project is None else (args.project, args.side_b_project)
            read = TraceRead("phoenix", url, projects, pair_by, args.side_by)
            known = known_traces(store, read)
            sides, skipped = [], []
            for project in projects:
                answers, bad = read_phoenix(url, project, since=since, limit=limit, known=known, timeout=args.timeout)
                sides.append(answers)
                skipped += bad
        else:
            from gradedesk.core.exchange.traces_langfuse import read_langfuse_export

            if args.side_b_project is not None:
                raise UserError("--side-b-project: Langfuse exports are read one at a time (one side); "
                                "--side-by splits one by a metadata attribute")
            read, sides, skipped = read_langfuse_export(args.langfuse, since=args.since, pair_by=pair_by,
                                                        side_by=args.side_by)
            known = known_traces(store, read)
            sides = [[t for t in side if t.trace_id not in known][:limit] for side in sides]
        if args.side_by:
            read, sides = split_by_attribute(store, read, sides[0], args.limit)
        report = import_traces(store, read, sides, skipped)
    for line in report.skipped:
        info(line)
    if args.json:
        print_json(report.to_dict())
        return 0
    where = f"{read.source} {read.endpoint or ''}".rstrip() + f" {read.title}"
    print(f"{where}: {report.traces} new trace(s) {'as' if report.created else 'added to'} run {report.run_id} "
          f"({report.questions} new question(s), {report.paired} paired)"
          + (f"; {report.already} already imported" if report.already else "")
          + (f"; skipped {len(report.skipped)}" if report.skipped else ""))
    return 0
