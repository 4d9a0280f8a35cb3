"""gradedesk grade-offline RUN: retrieval evals, the rule grader and offline faithfulness/relevance; no model needed."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager

ORDER = 40

STAGES = {"retrieval": "retrieval evals", "rules": "rule grader", "scores": "offline scores", "judge": "LLM judge"}


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "grade-offline", parents=[common], help="grade a run without a model: retrieval evals, rule grader, scores",
        description="Score retrieval (file/symbol precision and recall, context precision and recall), grade every "
                    "answer with the offline rule grader (rules/1: key terms of the gold answer, rapidfuzz; not an "
                    "LLM judge) and score faithfulness and relevance offline. Safe to run again.")
    p.add_argument("run", nargs="?", default="latest", metavar="RUN", help="run id or 'latest' (default)")
    p.set_defaults(handler=run)


@contextmanager
def grading_progress() -> Iterator:
    """A rich progress bar on stderr (only on a terminal), one bar per grading stage: a core.grade.Progress."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    with Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[failed]} failed", markup=False), TimeElapsedColumn(),
                  console=console, disable=not console.is_terminal) as bar:
        bars: dict[str, int] = {}

        def update(stage: str, done: int, total: int, failed: int) -> None:
            if stage not in bars:
                bars[stage] = bar.add_task(STAGES.get(stage, stage), total=total, failed=0)
            bar.update(bars[stage], completed=done, total=total, failed=failed)

        yield update


def offline_line(report) -> str:
    return (f"run {report.run_id}: retrieval evals for {report.retrieval_scored} answers, "
            f"{report.rule_graded} new grades by the rule grader {report.rule_grader} (not an LLM judge), "
            f"faithfulness/relevance ({report.scorer_method}) for {report.offline_scored} answers")


def run(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from ..bench import resolve_run
    from ..grade_offline import grade_offline
    from ..store import open_store
    from .output import print_json

    with open_store(args.store, create=False) as store:
        run_id = resolve_run(store, args.run)
        with grading_progress() as bar:
            report = grade_offline(store, run_id, bar)
    if args.json:
        print_json(asdict(report))
    else:
        print(offline_line(report))
    return 0
