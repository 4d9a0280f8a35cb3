"""gradedesk explore ["QUESTION"]: the explore screen on its own (textual is imported only inside the handler)."""

from __future__ import annotations

import argparse

from gradedesk.core.cli.endpoint import add_embeddings_arguments
from gradedesk.core.cli.output import output_file

ORDER = 23


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "explore", parents=[common], help="ask questions and watch retrieval and the bundle change with the budget",
        description="A screen with a question input, the raw top-k hits beside the evidence bundle, each hit's rank "
                    "and score in every method, and the candidates left out. +/- step the budget (500 to 8,000), "
                    "digits then Enter set any budget, s keeps the question in --questions FILE.")
    p.add_argument("question", nargs="?", default="", help="the question to ask first (default: type one)")
    p.add_argument("--repo", help="repository name (default: the only one in the store)")
    p.add_argument("--budget", type=int, default=2000, help="token budget of the first bundle (default 2000)")
    output_file(p, "--questions", metavar="FILE.jsonl",
                   help="benchmark questions file that s appends to (made when missing; never rewritten)")
    add_embeddings_arguments(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.cli.endpoint import embedder_from_args
    from gradedesk.tui.app import run_explore

    if args.questions:
        from pathlib import Path

        from gradedesk.core.runs.questions import load_questions

        if Path(args.questions).exists() and Path(args.questions).stat().st_size:
            load_questions(args.questions)  # a bad file is refused now, not when the first question is kept
    run_explore(args.store, args.question, repo=args.repo, budget=args.budget, questions=args.questions,
                embedder=embedder_from_args(args))
    return 0
