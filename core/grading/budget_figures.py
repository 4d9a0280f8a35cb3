"""People's figures by budget: how their grades and preferences change with the bundled answer's token budget (the
seed's own question), for `agree` and `summary` alike.

The desk shows raw beside the bundled answer at any budget of the run (core/store/run_records.py RunInfo.showing), so
people grade points of the curve: each bundled answer's grade belongs to its budget. A raw answer is the same answer
whichever budget it is shown beside, so its grade is one figure (raw), with how many of those grades were saved beside
each budget (human_grades.budget). A preference compares raw with the bundled answer at one budget
(human_preferences.budget): preferences are counted per budget, each person's live one per question and budget.
Pass rates and the bundle's share of preferences carry bootstrap intervals. Items someone flagged are left out, as
from every figure of `agree` (core/store/flags.py unflagged_sql, through the store's readers).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, ClassVar

from gradedesk.core.grading.retrieval_evals import method_label
from gradedesk.core.grading.vocabulary import PASS_GRADE
from gradedesk.core.stats import measures as agree
from gradedesk.core.stats.measures import Estimate, texts_once
from gradedesk.core.stats.records import Record
from gradedesk.core.store.connection import Store
from gradedesk.core.store.grades import person_grade_rows
from gradedesk.core.store.preferences import live_preferences

UNRECORDED = "unrecorded"  # a grade or preference saved before the budget beside was recorded (imports)


@dataclass
class BudgetGrades(Record):
    """People's current grades of raw answers, or of the bundled answers at one budget."""

    method: str  # raw | bundle@<budget>
    budget: int  # 0 for raw
    graded: int
    passed: int
    pass_rate: Estimate  # people's share of fully_correct
    beside: dict[str, int]  # how many of the grades were saved beside each bundled budget (raw: any; bundle: its own)

    @property
    def beside_text(self) -> str:
        """'1000: 3, 2000: 5' for raw grades (which budget they were shown beside); '' for a bundled answer's."""
        return ", ".join(f"{b}: {n}" for b, n in self.beside.items()) if self.method == "raw" else ""


@dataclass
class BudgetPreferences(Record):
    """People's live preferences between raw and the bundled answer at one budget."""

    budget: int | None  # None: saved before the budget was recorded
    preferences: int
    raw: int
    bundle: int
    tie: int
    bundle_preferred: Estimate  # the bundle's share of the preferences that chose one (ties left out)

    @property
    def budget_text(self) -> str:
        return UNRECORDED if self.budget is None else str(self.budget)


@dataclass
class PeopleByBudget(Record):
    grades: list[BudgetGrades]
    preferences: list[BudgetPreferences]

    PREFERENCE_HEADERS: ClassVar[tuple[str, ...]] = ("budget", "preferences", "raw", "bundle", "tie", "bundle preferred (ties left out)")

    def preference_rows(self) -> list[list[Any]]:
        """The preferences as table rows under PREFERENCE_HEADERS (`agree` and `summary` print them alike)."""
        prefs = self.preferences
        return [[p.budget_text, p.preferences, p.raw, p.bundle, p.tie, text]
                for p, text in zip(prefs, texts_once([p.bundle_preferred for p in prefs]))]

    @property
    def budgets(self) -> list[int]:
        """The bundled budgets people graded or compared at."""
        return sorted({g.budget for g in self.grades if g.method != "raw"}
                      | {p.budget for p in self.preferences if p.budget is not None})


def people_by_budget(store: Store, run_id: int, boot: int = agree.DEFAULT_BOOT,
                     seed: int = agree.DEFAULT_SEED) -> PeopleByBudget:
    """People's grades per method and budget, and their preferences per budget, in the run (flagged items left
    out)."""
    groups: dict[tuple[str, int], list[tuple[bool, int | None]]] = defaultdict(list)
    for r in person_grade_rows(store, run_id, unflagged=True):
        groups[(r.method, r.budget)].append((r.grade == PASS_GRADE, r.beside))
    grades = []
    for method, budget in sorted(groups, key=lambda k: (k[0] != "raw", k[1])):
        rows = groups[(method, budget)]
        passed = sum(p for p, _ in rows)
        beside = Counter(UNRECORDED if b is None else str(b) for _, b in rows)
        grades.append(BudgetGrades(method_label(method, budget), budget, len(rows), passed,
                                   agree.proportion(passed, len(rows), "no grade", boot, seed),
                                   dict(sorted(beside.items()))))
    by_budget: dict[int | None, Counter[str]] = defaultdict(Counter)
    for p in live_preferences(store, run_id, unflagged=True):
        by_budget[p.budget][p.preferred] += 1
    preferences = []
    for compared in sorted(by_budget, key=lambda b: (b is None, b or 0)):
        c = by_budget[compared]
        chose = c["raw"] + c["bundle"]
        preferences.append(BudgetPreferences(compared, sum(c.values()), c["raw"], c["bundle"], c["tie"], agree.proportion(
            c["bundle"], chose, "no preference for one answer at this budget", boot, seed)))
    return PeopleByBudget(grades, preferences)
