"""gradedesk ask "question": the evidence bundle the compiler makes for a question under a token budget."""

from __future__ import annotations

import argparse

from gradedesk.core.cli.endpoint import add_embeddings_arguments

ORDER = 22


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("ask", parents=[common], help="compile the evidence bundle for a question",
                       description="retrieve → compile (dedup, slice, exact token budget) → evidence bundle with "
                                   "roles, selection reasons, coverage notes and warnings.")
    p.add_argument("question")
    p.add_argument("--repo", help="repository name (default: the only one in the store)")
    p.add_argument("--budget", type=int, default=4000, help="token budget of the prompt context (default 4000)")
    add_embeddings_arguments(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.evidence.compile import ask
    from gradedesk.core.text.prompt_layout import reason_line
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.cli.endpoint import embedder_from_args
    from gradedesk.core.cli.output import print_json

    embedder = embedder_from_args(args)
    with open_store(args.store, create=False) as store:
        bundle = ask(store, args.question, repo=args.repo, budget=args.budget, embedder=embedder)
    if args.json:
        print_json(bundle.to_dict())
        return 0
    print(f"question type: {bundle.question_type}")
    print(f"tokens: {bundle.total_tokens} of {bundle.token_budget} ({bundle.tokenizer}); "
          f"strategies: {', '.join(bundle.retrieval_strategies_used) or '-'}")
    for note in bundle.coverage_notes:
        print(f"coverage: {note}")
    for warning in bundle.warnings:
        print(f"warning: {warning}")
    for i, s in enumerate(bundle.snippets, start=1):
        print(f"\n{s.scored_header(i)} role={s.evidence_role}")
        print(reason_line(str(s.selection_reason)))
        print(s.text)
    return 0
