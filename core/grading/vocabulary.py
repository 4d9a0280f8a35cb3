"""The grading vocabulary every grader shares: people at the desk, the LLM judge, the rule grader, agreement stats."""

from __future__ import annotations

# the failure label of an unusable judge reply; the store owns it, since its verdict queries leave such grades out
from gradedesk.core.store.machine_grades import GRADING_ERROR as GRADING_ERROR

# Ordinal, best first: weighted kappa and Krippendorff's alpha rely on this order.
GRADES = ("fully_correct", "partially_correct", "unsupported", "wrong")
PASS_GRADE = "fully_correct"  # the binary collapse: fully_correct vs the rest

FAILURE_LABELS = (
    "hallucination",     # asserts what neither evidence nor gold supports
    "missing_evidence",  # needed evidence was not retrieved
    "retrieval_miss",    # evidence came back but lacked what was needed
    "wrong_chunk",       # related but wrong evidence
    "reasoning_error",   # right evidence, wrong conclusion
    "scope_confusion",   # answers another question
)
DIMENSIONS = ("correctness", "grounding", "completeness", "conciseness")  # human scores, 1-5
METHODS = ("raw", "bundle")
# Why a person flags an item (a question of a run) for fixing the benchmark; "other" says why in its note.
FLAG_REASONS = {
    "bad_gold": "bad gold answer",
    "ambiguous": "ambiguous question",
    "other": "other (say why in the note)",
}

GRADE_LABELS = {
    "fully_correct": "fully correct",
    "partially_correct": "partially correct",
    "unsupported": "unsupported",
    "wrong": "wrong",
}
# the same grades in a word each, where columns are narrow (the desk's queue at 100 columns or fewer)
GRADE_SHORT_LABELS = {
    "fully_correct": "correct",
    "partially_correct": "partial",
    "unsupported": "unsupported",
    "wrong": "wrong",
}


def grade_rank(grade: str) -> int:
    """0 for fully_correct ... 3 for wrong."""
    return GRADES.index(grade)


def is_pass(grade: str) -> bool:
    return grade == PASS_GRADE
