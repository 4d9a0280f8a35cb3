"""The demo store: gradedesk's own repository, its own benchmark, answered raw vs bundled offline, graded offline.

`build_demo_store(path)` indexes gradedesk's own source (the checkout, or the installed package), loads its
benchmark-questions.jsonl (package data), runs
the benchmark with the offline extractive provider and grades the run with the offline graders (retrieval evals, rule
grader, offline faithfulness and relevance). No network, no keys. Every step is idempotent: indexing is incremental,
the run resumes (same configuration, same run) and grading adds only what is missing, so running it again is cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gradedesk.core.config import DEFAULT_BUDGETS
from gradedesk.core.progress import Progress
from gradedesk.core.runs.runner import RunSummary, run_benchmark
from gradedesk.core.providers import OfflineExtractiveProvider
from gradedesk.core.runs.questions import bundled_questions_path
from gradedesk.core.store.connection import open_store

DEMO_REPO = "gradedesk"


@dataclass
class DemoReport:
    store: str
    root: str
    files_indexed: int
    chunks: int
    run: RunSummary
    rule_graded: int
    retrieval_scored: int


def source_root() -> Path:
    """The folder holding gradedesk's core/ and tui/: the checkout (editable install) or site-packages/gradedesk."""
    import gradedesk.core

    return Path(gradedesk.core.__file__).resolve().parent.parent


def build_demo_store(path: str | Path, progress: Progress | None = None) -> DemoReport:
    from gradedesk.core.grading.offline_grading import grade_offline
    from gradedesk.core.index.indexer import index_repository

    report: Progress = progress or (lambda *args, **kw: None)
    root = source_root()
    with open_store(path) as store:
        indexed = index_repository(store, root, name=DEMO_REPO,
                                   progress=lambda done, total, _path: report("index", done, total, 0))
        summary = run_benchmark(store, str(bundled_questions_path()), OfflineExtractiveProvider(),
                                budgets=list(DEFAULT_BUDGETS), repo=DEMO_REPO, label="demo", progress=report)
        if summary.interrupted:
            raise KeyboardInterrupt
        graded = grade_offline(store, summary.run_id, report)
    return DemoReport(str(path), str(root), indexed.files_indexed, indexed.chunks, summary, graded.rule_graded,
                      graded.retrieval_scored)
