"""The demo store: gradedesk's own repository, its own benchmark, answered raw vs bundled offline, graded offline.

`build_demo_store(path)` indexes the checkout gradedesk is installed from, loads its benchmark-questions.jsonl, runs
the benchmark with the offline extractive provider and grades the run with the offline graders (retrieval evals, rule
grader, offline faithfulness and relevance). No network, no keys. Every step is idempotent: indexing is incremental,
the run resumes (same configuration, same run) and grading adds only what is missing, so running it again is cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .bench import DEFAULT_BUDGETS, RunSummary, run_benchmark
from .errors import UserError
from .providers import OfflineExtractiveProvider
from .store import open_store

DEMO_REPO = "gradedesk"
QUESTIONS_FILE = "benchmark-questions.jsonl"
Progress = Callable[..., None]  # (phase, done, total[, failed]): phases index, retrieve, answer, then grading stages


@dataclass
class DemoReport:
    store: str
    root: str
    files_indexed: int
    chunks: int
    run: RunSummary
    rule_graded: int
    retrieval_scored: int


def checkout_root() -> Path:
    """The repository gradedesk is installed from (an editable install: `pip install -e .`)."""
    import core

    root = Path(core.__file__).resolve().parent.parent
    if not (root / QUESTIONS_FILE).exists():
        raise UserError(f"{root}: no {QUESTIONS_FILE}; the demo needs gradedesk installed from its checkout "
                        f"(pip install -e .)")
    return root


def build_demo_store(path: str | Path, progress: Progress | None = None) -> DemoReport:
    from .grade_offline import grade_offline
    from .index import index_repository

    report = progress or (lambda *args: None)
    root = checkout_root()
    with open_store(path) as store:
        indexed = index_repository(store, root, name=DEMO_REPO,
                                   progress=lambda done, total, _path: report("index", done, total))
        summary = run_benchmark(store, str(root / QUESTIONS_FILE), OfflineExtractiveProvider(),
                                budgets=list(DEFAULT_BUDGETS), repo=DEMO_REPO, label="demo", progress=report)
        if summary.interrupted:
            raise KeyboardInterrupt
        graded = grade_offline(store, summary.run_id, report)
    return DemoReport(str(path), str(root), indexed.files_indexed, indexed.chunks, summary, graded.rule_graded,
                      graded.retrieval_scored)
