"""The budget curve of `agree` and the desk's agreement screen: pass rate by budget for people and for the machine
grader, with intervals, and people's grades and preferences by budget (core/grading/budget_figures.py).

People's pass rate at a point is over their current grades of those answers; the machine grader's is over every
answer of that method and budget it graded (the kind the people are compared with: pass_rates.scan_answers' arms).
Each point also counts agree's compared pairs on its answers and how many agree: the desk's status line at a budget
counts the raw point and that budget's point (core/review/queue.py Progress), so its figures are these.
The curve is worth drawing once people graded bundled answers at more than one budget (`drawn`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from gradedesk.core.agreement.grade_pairs import Pair
from gradedesk.core.agreement.pass_rates import Arm
from gradedesk.core.grading.budget_figures import PeopleByBudget, people_by_budget
from gradedesk.core.grading.retrieval_evals import method_label
from gradedesk.core.stats import measures as agree
from gradedesk.core.stats.measures import Estimate
from gradedesk.core.stats.records import Record
from gradedesk.core.store.connection import Store


@dataclass
class CurvePoint(Record):
    """Raw answers, or the bundled answers at one budget: people's and the machine grader's pass rates."""

    method: str  # raw | bundle@<budget>
    budget: int  # 0 for raw
    people: Estimate
    machine: Estimate
    compared: int = 0  # people's grades of these answers beside the compared machine grade (agree's pairs)
    agreed: int = 0  # of those, the same grade


@dataclass
class BudgetCurve(Record):
    points: list[CurvePoint]
    people: PeopleByBudget

    @property
    def drawn(self) -> bool:
        """People graded bundled answers at more than one budget: there is a curve to show."""
        return len({g.budget for g in self.people.grades if g.method != "raw"}) > 1


def budget_curve(store: Store, run_id: int, arms: list[Arm], pairs: list[Pair], boot: int, seed: int) -> BudgetCurve:
    """The curve over the run's arms (raw first, then each budget) and people's figures by budget; `pairs`: agree's
    compared pairs."""
    people = people_by_budget(store, run_id, boot, seed)
    graded = {(g.method, g.budget): g for g in people.grades}
    compared: Counter[str] = Counter()
    agreed: Counter[str] = Counter()
    for p in pairs:
        label = method_label(p.method, p.budget)
        compared[label] += 1
        agreed[label] += p.human == p.machine
    points = []
    for arm in arms:
        label = method_label(arm.method, arm.budget)
        g = graded.get((label, arm.budget))
        points.append(CurvePoint(label, arm.budget if arm.method != "raw" else 0,
                                 g.pass_rate if g else Estimate(None, 0, reason="no person graded these answers"),
                                 agree.proportion(arm.passed, arm.judged, "no machine grade of these answers", boot,
                                                  seed), compared[label], agreed[label]))
    return BudgetCurve(points, people)
