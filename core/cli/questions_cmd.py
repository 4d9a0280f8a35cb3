"""gradedesk questions check|load FILE.jsonl: validate a benchmark file, or store its questions."""

from __future__ import annotations

import argparse

ORDER = 70


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("questions", help="check or load a benchmark questions file")
    qsub = p.add_subparsers(dest="questions_command", metavar="ACTION", required=True)
    for name, helptext in (("check", "validate a benchmark JSONL file; store nothing"),
                           ("load", "validate and store the questions (all or nothing)")):
        q = qsub.add_parser(name, parents=[common], help=helptext, description=helptext)
        q.add_argument("file", metavar="FILE.jsonl")
        q.add_argument("--benchmark", help="benchmark name to store under (default: the file's stem)")
        q.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.runs.questions import benchmark_name, load_questions, store_questions
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.cli.output import info, print_json

    questions = load_questions(args.file)
    name = args.benchmark or benchmark_name(args.file)
    stored = 0
    if args.questions_command == "load":
        with open_store(args.store) as store:
            stored = len(store_questions(store, name, questions))
    summary = {"file": args.file, "benchmark": name, "questions": len(questions), "stored": stored}
    if args.json:
        print_json(summary)
    else:
        verb = "stored" if args.questions_command == "load" else "valid"
        info(f"{args.file}: {len(questions)} questions {verb} (benchmark {name})")
    return 0
