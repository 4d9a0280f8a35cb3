"""How consistent the LLM judge is across repeats (`judge --repeat N`): the share of answers whose repeated grades are
identical, and the ones that changed. The read side of core/grading/judge.py's repeats, kept apart from making calls."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from gradedesk.core.grading.vocabulary import GRADING_ERROR
from gradedesk.core.stats.records import Record
from gradedesk.core.store import machine_grades
from gradedesk.core.store.connection import Store


@dataclass(frozen=True, slots=True)
class ChangedGrade(Record):
    """An answer whose repeated judge grades differ (a grading error counts as an outcome of its own)."""

    answer_id: int
    question_id: str
    category: str
    method: str
    budget: int
    judge_model: str | None
    rubric_version: str | None
    grades: list[str]  # one outcome per repeat, in repeat order


@dataclass(frozen=True, slots=True)
class JudgeConsistency(Record):
    """How often the judge gave the same grade across repeats (fields in `--json` order)."""

    answers_repeated: int  # answers graded at least twice, not counting those with only grading errors
    identical: int
    all_errors: int  # answers whose every repeat is a grading error: never judged, not counted as consistent
    share_identical: float | None  # None: nothing repeated
    changed: list[ChangedGrade]


def judge_consistency(store: Store, run_id: int, model: str | None = None, *,
                      rubric_versions: Collection[str] | None = None,
                      answer_ids: Collection[int] | None = None) -> JudgeConsistency:
    """Share of answers whose repeated judge grades are identical, and the ones that changed, counting the grades
    under `rubric_versions` when given (a judge run's rubric and its reference-free variant).

    Only answers graded at least twice by the same judge model under the same rubric count; a grading error is an
    outcome of its own ("grading_error"), so an error in one repeat counts as a change; an answer whose every repeat
    is a grading error was never judged and is counted apart (`all_errors`), not as consistent.
    """
    rows = [r for r in machine_grades.judge_repeats(store, run_id, model)
            if (answer_ids is None or r.answer_id in answer_ids)
            and (rubric_versions is None or r.rubric_version in rubric_versions)]
    groups: dict[tuple[int, str | None, str | None], list[machine_grades.RunMachineGrade]] = {}
    for r in rows:
        groups.setdefault((r.answer_id, r.grader_model, r.rubric_version), []).append(r)
    repeated = {k: v for k, v in groups.items() if len(v) >= 2}
    changed = []
    all_errors = 0
    for (_, judge_model, rubric), rs in repeated.items():
        outcomes = [GRADING_ERROR if r.failure_label == GRADING_ERROR else r.grade for r in rs]
        if set(outcomes) == {GRADING_ERROR}:
            all_errors += 1
        elif len(set(outcomes)) > 1:
            first = rs[0]
            changed.append(ChangedGrade(first.answer_id, first.question_id, first.category, first.method,
                                        first.budget, judge_model, rubric, outcomes))
    n = len(repeated) - all_errors
    return JudgeConsistency(n, n - len(changed), all_errors, None if n == 0 else (n - len(changed)) / n, changed)
