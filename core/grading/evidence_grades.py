"""The figures of a run's evidence that need no model: retrieval evals (files and symbols found) and code coverage
(the answering code shown), computed together over the same answers, as soon as the answers are stored (`run`) and
again by `grade-offline` (labels and the index may have changed since)."""

from __future__ import annotations

from gradedesk.core.grading.code_coverage import grade_code_coverage
from gradedesk.core.grading.retrieval_evals import grade_retrieval
from gradedesk.core.progress import Progress
from gradedesk.core.store.connection import Store


def grade_evidence(store: Store, run_id: int, progress: Progress | None = None) -> int:
    """Retrieval evals and code coverage of every answer of a run; returns how many answers retrieval scored."""
    scored = grade_retrieval(store, run_id, progress)
    grade_code_coverage(store, run_id, progress)
    return scored
