"""gradedesk run: answer a benchmark raw vs bundled (one bundled answer per budget); the same command resumes."""

from __future__ import annotations

import argparse
from pathlib import Path

from gradedesk.core.cli.endpoint import add_embeddings_arguments, add_endpoint_arguments, add_spend_arguments
from gradedesk.core.config import ANSWER_MAX_TOKENS, DEFAULT_BUDGETS
from gradedesk.core.cli.output import input_file

ORDER = 30
DEFAULT_QUESTIONS = "benchmark-questions.jsonl"


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "run", parents=[common], help="answer a benchmark twice: raw top-k vs evidence bundles",
        description="Answer every question from the raw top-10 hits and from an evidence bundle per token budget. "
                    "Without --model/--base-url the offline extractive answerer is used. Running the same command "
                    "again resumes the run: answered questions are skipped, failed calls are retried.")
    input_file(p, "--questions", default=None, metavar="FILE.jsonl",
                   help=f"benchmark questions (default: ./{DEFAULT_QUESTIONS}; else gradedesk's own, which only "
                        f"fits a store that indexed gradedesk, like the demo's)")
    p.add_argument("--repo", default=None, metavar="NAME", help="indexed repository (default: the only one)")
    add_endpoint_arguments(p, "model name at the endpoint (e.g. gpt-4o-mini)", max_tokens=ANSWER_MAX_TOKENS,
                           max_tokens_what="an answer (not used by the offline answerer)")
    add_spend_arguments(p, "answer")
    add_embeddings_arguments(p)
    p.add_argument("--budgets", default=",".join(map(str, DEFAULT_BUDGETS)),
                   help="token budgets of the bundled answers (default: %(default)s)")
    p.add_argument("--tokenizer", default=None,
                   help="tokenizer for budgets (default: the one the repository was indexed with)")
    p.add_argument("--label", default=None, help="a name for the run (a different label makes a different run)")
    p.set_defaults(handler=run)


def questions_path(given: str | None, store, repo: str | None) -> str:
    """The questions file: as given, else ./benchmark-questions.jsonl, else gradedesk's own benchmark when the indexed
    repository is gradedesk; otherwise there are no questions to ask (never silently gradedesk's about another repo)."""
    if given:
        return given
    if Path(DEFAULT_QUESTIONS).exists():
        return DEFAULT_QUESTIONS
    from gradedesk.core.errors import UserError
    from gradedesk.core.index.indexer import resolve_repo
    from gradedesk.core.runs.questions import bundled_benchmark_fits, bundled_questions_path

    name = resolve_repo(store, repo).name
    if not bundled_benchmark_fits(store, name):
        raise UserError(f"--questions: no questions file given and no ./{DEFAULT_QUESTIONS}; gradedesk's own "
                        f"benchmark asks about gradedesk's code, not about {name!r}: pass --questions FILE.jsonl")
    return str(bundled_questions_path())


def check_questions(store, path: str, repo: str | None) -> None:
    """Refuse a questions file about another repository (most of its expected files are not indexed here), and warn
    about the expected files this repository lacks when only a few are missing."""
    from gradedesk.core.cli.output import info
    from gradedesk.core.index.indexer import resolve_repo
    from gradedesk.core.runs.questions import load_questions, unindexed_expected_files

    name = resolve_repo(store, repo).name
    missing = unindexed_expected_files(store, load_questions(path), name, path)
    if missing:
        shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
        info(f"gradedesk: warning: {path}: {len(missing)} expected file(s) not indexed in repository {name!r}: "
             f"{shown}")


def run(args: argparse.Namespace) -> int:
    from contextlib import nullcontext

    from gradedesk.core.runs.failures import failure_lines
    from gradedesk.core.runs.runner import run_benchmark
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.cli.endpoint import (DryRun, embedder_from_args, endpoint_warnings, probe_first,
                                             provider_from_args, say_spend)
    from gradedesk.core.cli.kept_replies import take_in_kept
    from gradedesk.core.cli.output import info, print_json, progress_bars

    # a model's own usage counts win; when absent, its own encoding (else o200k_base)
    provider = provider_from_args(args, tokenizer=None if args.model else args.tokenizer)
    embedder = embedder_from_args(args)
    model = provider.name == "openai-compatible"

    def before_calls(run_id: int, tasks) -> None:
        """The probes, then the plan, before the first call (a dry run stops after the plan)."""
        if model and not args.dry_run:
            probe_first(provider, store, run_id, role="answer")
        if model:
            say_spend(provider, [t.messages for t in tasks], args.max_tokens, "run", args.dry_run, store, run_id,
                      role="answer")
        elif args.dry_run:
            print(f"gradedesk: run offline: {len(tasks)} answers by the extractive answerer, no model (dry run)")
            raise DryRun

    sample = (args.sample, args.seed) if args.sample is not None else None
    with open_store(args.store) as store, progress_bars() as bar:
        path = questions_path(args.questions, store, args.repo)
        check_questions(store, path, args.repo)
        if not args.dry_run:
            take_in_kept(store)
        try:
            with store.transaction() if args.dry_run else nullcontext():  # a dry run's writes are rolled back
                summary = run_benchmark(store, path, provider, budgets=args.budgets, repo=args.repo,
                                        tokenizer=args.tokenizer, label=args.label, concurrency=args.concurrency,
                                        progress=bar, max_tokens=args.max_tokens, embedder=embedder,
                                        before_calls=before_calls, sample=sample, limit=args.limit)
                if args.dry_run:  # nothing left to ask
                    print(f"gradedesk: run: nothing to ask ({summary.already_done} answered, {summary.not_retried} "
                          f"failed for good) (dry run)")
                    raise DryRun
        except DryRun:
            return 0
        failures = failure_lines(store, summary.run_id) if summary.failed_now or summary.not_retried else []
    endpoint_warnings(provider)
    if args.json:
        print_json(summary.to_dict())
    else:
        verb = "created" if summary.created else "resumed"
        print(f"run {summary.run_id} ({verb}, {provider.name}{' ' + provider.model if args.model else ''}): "
              f"{summary.questions} question{'' if summary.questions == 1 else 's'}, {summary.answers_total} answers: "
              f"{summary.already_done} done before, "
              f"{summary.answered_now} answered now, {summary.failed_now} failed, {summary.pending} pending"
              + (f", {summary.not_retried} not retried (a retry cannot fix them)" if summary.not_retried else ""))
    if summary.interrupted:
        info(f"gradedesk: interrupted; run the same command again to resume run {summary.run_id}")
        return 130
    for line in failures:
        info(f"gradedesk: {line}")
    if summary.failed_now:
        return 1
    return 0
