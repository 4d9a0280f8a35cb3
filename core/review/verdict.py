"""The machine verdict the grading desk uses for an answer, defined once: the panes show it, and the queue table, its
filters ("judge says X", confidence, "people and judge disagree"), the disagreement key and the progress line compare
with it. No textual here.

By default it is the `machine_grades` view's (the judge's, first repeat, newest; else an imported grade; else the rule
grader's). When the person has chosen a rubric version on the desk (GradingScreen.judge_rubric), it is the judge's
verdict under that version (first repeat, newest), or none where the judge did not grade the answer under it.
"""

from __future__ import annotations

from typing import Any


def verdict_id(answer: str, judge_rubric: str | None) -> tuple[str, dict[str, Any]]:
    """An SQL expression for the auto_grades id of the verdict the desk uses for answer `answer` (an SQL expression:
    "a.id", ":answer"), and the named parameters it needs. Correlated and index-driven: one lookup per answer."""
    if judge_rubric is None:
        return f"(SELECT dv.id FROM machine_grades dv WHERE dv.answer_id = {answer})", {}
    return (f"(SELECT dv.id FROM auto_grades dv WHERE dv.answer_id = {answer} AND dv.grader_kind = 'judge' "
            "AND dv.rubric_version = :judge_rubric AND dv.repeat_index = 0 ORDER BY dv.id DESC LIMIT 1)",
            {"judge_rubric": judge_rubric})
