"""The grading vocabulary every grader shares: people at the desk, the LLM judge, the rule grader, agreement stats."""

from __future__ import annotations

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
GRADING_ERROR = "grading_error"  # the judge's reply could not be used; counted, never a NaN


def verdict_sql(grade: str) -> str:
    """SQL: the machine grade in `grade` (an auto_grades alias) as a verdict: NULL for a grading_error, which is stored
    as `unsupported` but is no verdict, so it neither agrees nor disagrees with a person and never passes or fails."""
    return f"CASE WHEN {grade}.failure_label IS '{GRADING_ERROR}' THEN NULL ELSE {grade}.grade END"

DIMENSIONS = ("correctness", "grounding", "completeness", "conciseness")  # human scores, 1-5
METHODS = ("raw", "bundle")

GRADE_LABELS = {
    "fully_correct": "fully correct",
    "partially_correct": "partially correct",
    "unsupported": "unsupported",
    "wrong": "wrong",
}


def grade_rank(grade: str) -> int:
    """0 for fully_correct ... 3 for wrong."""
    return GRADES.index(grade)


def is_pass(grade: str) -> bool:
    return grade == PASS_GRADE
