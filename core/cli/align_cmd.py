"""gradedesk align [RUN] --rubric BASE --model M: a new rubric with examples from people's grades of train questions,
and base vs new agreement on the test questions the judge never saw as examples
(core/agreement/judge_alignment.py)."""

from __future__ import annotations

import argparse

from gradedesk.core.cli.endpoint import add_endpoint_arguments
from gradedesk.core.config import VERDICT_MAX_TOKENS
from gradedesk.core.cli.output import input_file, output_file

ORDER = 48


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "align", parents=[common], help="add examples from people's grades to a rubric; measure it on held-out items",
        description="Split the run's person-graded answers by question into train and test (seeded, stratified by "
                    "grade; both sides stored), take examples from train only (preferring answers where the base "
                    "rubric's judge disagreed with the people), write and store the new rubric, judge the test "
                    "answers with the base and the new rubric, and report each one's agreement with the people "
                    "(percent, Cohen's kappa, AC1, TPR/TNR) and new - base, with paired bootstrap intervals; the "
                    "80% agreement target; grade inflation and verbosity probes; calls and cost.")
    p.add_argument("run", nargs="?", default="latest", metavar="RUN", help="run id or 'latest' (default)")
    input_file(p, "--rubric", default=None, metavar="BASE",
                   help="the rubric to start from: a file, a stored version, or 'builtin' (default)")
    add_endpoint_arguments(p, "judge model (required; use a different model from the one that answered)",
                           max_tokens=VERDICT_MAX_TOKENS, max_tokens_what="a verdict reply")
    p.add_argument("--examples", type=int, default=None, metavar="K",
                   help="examples to add (default: 2 per grade level present in train)")
    p.add_argument("--test-share", type=float, default=0.5, metavar="SHARE",
                   help="share of the graded questions held out for testing (default 0.5)")
    p.add_argument("--seed", type=int, default=None, help="seed of the split, the examples and the intervals")
    p.add_argument("--grader", default=None, metavar="NAME",
                   help="use this person's grades (default: every person's, where they agree)")
    output_file(p, "--out", default=None, metavar="NEW_RUBRIC",
                   help="file (or folder) for the new rubric (default: ./NAME-HASH.rubric, after its version)")
    p.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="judge each test answer N times with both rubrics and report consistency (default 1)")
    p.add_argument("--bootstrap", type=int, default=None, metavar="N",
                   help="bootstrap resamples per interval (default 2000)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gradedesk.core.agreement.judge_alignment import AlignSettings, align
    from gradedesk.core.cli.align_output import print_report
    from gradedesk.core.cli.endpoint import endpoint_warnings, probe_first, provider_from_args
    from gradedesk.core.cli.output import info, print_json, progress_bars
    from gradedesk.core.errors import UserError
    from gradedesk.core.grading.rubric_format import REPLY_SHAPE
    from gradedesk.core.grading.rubric_lookup import resolve_rubric
    from gradedesk.core.stats.measures import DEFAULT_BOOT, DEFAULT_SEED
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.run_records import resolve_run

    if args.model is None and args.base_url is None:
        raise UserError("align needs a judge: give --model M (and --base-url URL for a local server)")
    out = Path(args.out or ".")
    if out.exists() and not out.is_dir():
        raise UserError(f"--out: {out} exists; align never overwrites a file (remove it or pick another name)")
    if not out.exists() and not out.parent.is_dir():
        raise UserError(f"--out: folder {out.parent} does not exist")
    boot = DEFAULT_BOOT if args.bootstrap is None else args.bootstrap
    if boot < 0:
        raise UserError(f"--bootstrap: {boot} is negative")
    settings = AlignSettings(examples=args.examples, test_share=args.test_share, max_tokens=args.max_tokens,
                             seed=DEFAULT_SEED if args.seed is None else args.seed, grader=args.grader,
                             repeat=args.repeat, boot=boot, out=out)
    provider = provider_from_args(args)
    with open_store(args.store, create=False) as store:
        run_id = resolve_run(store, args.run)
        base = resolve_rubric(store, args.rubric)
        probed = False

        def before_calls(_prompts: list[list[dict]]) -> None:
            """Before the first verdict is asked (not before bad input is caught): the endpoint's probes, so align
            sends the verdict's schema in the form `judge` does (recorded on the run: judge's probe is reused)."""
            nonlocal probed
            if not probed:
                probe_first(provider, store, run_id, REPLY_SHAPE)
                probed = True

        with progress_bars() as bar:
            report = align(store, run_id, base, provider, settings, bar, before_calls)
    endpoint_warnings(provider)
    for warning in report.warnings:
        info(f"gradedesk: warning: {warning}")
    for failure in report.calls.failures[:20]:
        info(f"gradedesk: {failure}")
    if args.json:
        print_json(report.to_dict())
    else:
        print_report(report)
    if report.calls.failed:
        info(f"gradedesk: {report.calls.failed} judge call(s) failed (those answers are left out); "
             "run the same command again to retry them")
        return 1
    return 0 if report.test.n else 1  # nothing compared: the warning above says why
