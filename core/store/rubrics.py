"""Judge rubrics as stored: table rubrics (a version, its text, when it was stored, and its kind: a grade rubric or a
pairwise one, core/grading/pairwise_rubric.py; "the current rubric" is always the newest grade rubric).

What it gives: a version's text (`stored_text`), every version (`rubric_texts`), storing a new version (`add_rubric`),
the newest version (`newest_rubric_version`: the current rubric, stamped on each person's grade), the versions a name
or a prefix names (`newest_named`, `versions_starting`), and what of a run was graded under another version than a
given one (`machine_grades_under_other_rubric`, `grades_under_other_rubric`: the rubric flags of `gradedesk agree`).
What a rubric's text means is core/grading's.
"""

from __future__ import annotations

from dataclasses import dataclass

from gradedesk.core.store.connection import Store, utc_now


def stored_text(store: Store, version: str, kind: str | None = None) -> str | None:
    """The text of a stored version (of that kind, when given: grade or pairwise)."""
    text: str | None = store._scalar("SELECT text FROM rubrics WHERE version = ? AND (? IS NULL OR kind = ?)",
                                     (version, kind, kind))
    return text


def add_rubric(store: Store, version: str, text: str, kind: str = "grade") -> None:
    """Store a version that is not stored yet (the caller checked, in its transaction)."""
    store._insert("rubrics", {"version": version, "text": text, "created_at": utc_now(), "kind": kind})


def newest_named(store: Store, name: str, kind: str = "grade") -> str | None:
    """The newest stored version of rubric `name` (versions are `name/hash`) of that kind."""
    version: str | None = store._scalar("SELECT version FROM rubrics WHERE version LIKE ? || '/%' ESCAPE '\\' "
                                       "AND kind = ? ORDER BY created_at DESC, rowid DESC LIMIT 1",
                                       (_like(name), kind))
    return version


def versions_starting(store: Store, prefix: str, kind: str = "grade") -> list[str]:
    """Every stored version of that kind that starts with `prefix`."""
    return [r["version"] for r in store._query("SELECT version FROM rubrics WHERE version LIKE ? || '%' ESCAPE '\\' "
                                              "AND kind = ?", (_like(prefix), kind))]


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# rubric flags: what was graded under another version than the newest ------------------------------------------------
def newest_rubric_version(store: Store) -> str | None:
    version: str | None = store._scalar("SELECT version FROM rubrics WHERE kind = 'grade' "
                                       "ORDER BY created_at DESC, rowid DESC LIMIT 1")
    return version


def machine_grades_under_other_rubric(store: Store, run_id: int, version: str) -> int:
    """How many of the run's machine grades name a rubric version other than `version`."""
    n: int = store._scalar(
        "SELECT count(*) FROM auto_grades g JOIN answers a ON a.id = g.answer_id "
        "WHERE a.run_id = ? AND g.rubric_version IS NOT NULL AND g.rubric_version != ?", (run_id, version))
    return n


@dataclass(frozen=True, slots=True)
class FlaggedGrade:
    """A person's current grade saved under another rubric version than the current one."""

    answer_id: int
    question_id: str
    method: str
    budget: int
    grader: str
    rubric_version: str


def grades_under_other_rubric(store: Store, run_id: int, version: str) -> list[FlaggedGrade]:
    """People's current grades of the run saved under a rubric version other than `version`."""
    return [FlaggedGrade(**r) for r in store._query(
        """
        SELECT h.answer_id, q.question_id, a.method, a.budget, h.grader, h.rubric_version
        FROM current_human_grades h JOIN answers a ON a.id = h.answer_id JOIN questions q ON q.id = a.question_pk
        WHERE a.run_id = ? AND h.rubric_version IS NOT NULL AND h.rubric_version != ?
        ORDER BY h.answer_id, h.grader
        """,
        (run_id, version),
    )]


@dataclass(frozen=True, slots=True)
class RubricText:
    version: str
    text: str
    created_at: str


def rubric_texts(store: Store) -> list[RubricText]:
    """Every stored grade rubric version, oldest first."""
    return [RubricText(**r) for r in store._query(
        "SELECT version, text, created_at FROM rubrics WHERE kind = 'grade' ORDER BY created_at, rowid")]
