"""gradedesk questions check|load FILE.jsonl: validate a benchmark file, or store its questions; gradedesk questions
flags: the questions people flagged at the desk for fixing the benchmark."""

from __future__ import annotations

import argparse

from gradedesk.core.cli.output import input_file

ORDER = 70


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("questions", help="check or load a benchmark questions file")
    qsub = p.add_subparsers(dest="questions_command", metavar="ACTION", required=True)
    for name, helptext in (("check", "validate a benchmark JSONL file; store nothing"),
                           ("load", "validate and store the questions (all or nothing)")):
        q = qsub.add_parser(name, parents=[common], help=helptext, description=helptext)
        input_file(q, "file", metavar="FILE.jsonl")
        q.add_argument("--benchmark", help="benchmark name to store under (default: the file's stem)")
        q.set_defaults(handler=run)
    helptext = "list the questions people flagged at the desk (bad gold answer, ambiguous question, other), to fix"
    f = qsub.add_parser("flags", parents=[common], help=helptext,
                        description=helptext + " the benchmark file: question id, question, person, reason, note, "
                                               "time. Flagged questions are left out of `gradedesk agree`.")
    f.add_argument("--run", default=None, metavar="RUN", help="only this run (an id or 'latest'; default: every run)")
    f.set_defaults(handler=list_flags)


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


def list_flags(args: argparse.Namespace) -> int:
    from gradedesk.core.cli.output import info, print_json, print_table
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.flags import flag_listing
    from gradedesk.core.store.run_records import resolve_run

    with open_store(args.store, create=False) as store:
        listing = flag_listing(store, None if args.run is None else resolve_run(store, args.run))
    records = [{"run_id": f.flag.run_id, "benchmark": f.benchmark, "question_id": f.question_id,
                "question": f.question, "grader": f.flag.grader, "reason": f.flag.reason, "note": f.flag.note,
                "time": f.flag.created_at} for f in listing]
    if args.json:
        print_json(records)
        return 0
    print_table(("run", "benchmark", "question", "person", "reason", "note", "time", "text"),
                [[r["run_id"], r["benchmark"], r["question_id"], r["grader"], r["reason"], r["note"], r["time"],
                  r["question"]] for r in records])
    info(f"{len(records)} flag(s)" + ("" if records else ": nobody has flagged a question"))
    return 0
