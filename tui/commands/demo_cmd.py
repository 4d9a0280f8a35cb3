"""gradedesk demo: build a demo store offline (this repository, its benchmark, raw vs bundled, graded) and open the desk."""

from __future__ import annotations

import argparse
import shlex

from gradedesk.core.config import DEMO_STORE

ORDER = 10


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "demo", help="build the offline demo store and open the grading desk",
        description="Index gradedesk's own code, answer its benchmark raw vs bundled with the offline extractive "
                    "answerer, grade offline, then open the desk. Safe to run again: it resumes and reuses.")
    p.add_argument("--store", default=DEMO_STORE, metavar="PATH", help=f"demo store (default: ./{DEMO_STORE})")
    p.add_argument("--json", action="store_true", help="print the build report as JSON on stdout (with --no-desk)")
    p.add_argument("--no-desk", action="store_true", help="build the store only; do not open the desk")
    p.set_defaults(handler=run)


def next_steps(store: str) -> list[str]:
    """What to run after the demo, spelled with its store: the desk, the figures, and how to get answer quality."""
    at = f"--store {shlex.quote(store)}"
    return [f"gradedesk grade {at}    # grade raw vs bundled answers side by side, blind first",
            f"gradedesk summary {at}  # retrieval recall and tokens per method, with intervals",
            f"gradedesk agree {at}    # you vs the rule grader, once you graded a few",
            f"gradedesk run {at} --repo gradedesk --base-url URL --model M  # answer quality needs a model,",
            f"gradedesk judge {at} --base-url URL --model M                 # and an LLM judge"]


def run(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from gradedesk.core.cli.output import info, print_json, progress_bars
    from gradedesk.core.demo import build_demo_store

    with progress_bars() as bar:
        report = build_demo_store(args.store, progress=bar)
    if args.json:
        print_json(asdict(report))
    else:
        info(f"demo store {report.store}: run {report.run.run_id}, {report.run.questions} questions, "
             f"{report.run.answers_total} answers ({report.run.answered_now} new), {report.chunks} chunks indexed")
    if args.no_desk:
        if not args.json:
            info("next:\n" + "\n".join(f"  {line}" for line in next_steps(args.store)))
        return 0
    from gradedesk.tui.app import run_desk

    run_desk(args.store, run=report.run.run_id)
    return 0
