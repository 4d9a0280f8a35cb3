"""A team grading one run: assigning its items (`assign_run`) and how far each person and the team have got
(`team_progress`). In: a store, a run and the people. Out: typed reports the CLI prints. The plan itself is
core/review/assignment.py's; the rows are core/store/assignments.py's.

An item is graded by a person when they have a current grade of one of its shown answers (the desk's count,
core/store/desk.py `graded_question_pks`); adjudicated when a lead decided on it (core/review/adjudication.py); disputed
when its people disagree. People-vs-people agreement is Krippendorff's ordinal alpha over the answers of items
assigned to two or more people, each answer a unit holding its assigned people's current grades
(core/store/assignments.py `overlap_grades`, as `agree` counts it); its interval resamples answers (core/stats). How many more overlap items the interval needs to reach a width is a
projection: widths shrink about as 1/sqrt(n), so n items of width w need n * (w / width)^2 in all.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from gradedesk.core.errors import UserError
from gradedesk.core.grading.vocabulary import GRADES, grade_rank
from gradedesk.core.review.adjudication import adjudication_queue
from gradedesk.core.review.assignment import plan_assignment, sample_items
from gradedesk.core.stats.krippendorff import krippendorff_alpha_ordinal
from gradedesk.core.stats.measures import DEFAULT_BOOT, DEFAULT_SEED, Estimate, \
    more_items_needed
from gradedesk.core.stats.records import Record
from gradedesk.core.store.adjudications import current_decisions
from gradedesk.core.store.assignments import (Assignment, add_assignments, current_assignments, overlap_grades,
                                              withdraw_assignments)
from gradedesk.core.store.connection import Store
from gradedesk.core.store.desk import graded_question_pks, shown_question_pks
from gradedesk.core.store.flags import flag_listing
from gradedesk.core.store.run_records import RunInfo, run_info

DEFAULT_WIDTH = 0.2  # of the alpha interval `progress` projects to


@dataclass
class AssignReport(Record):
    run_id: int
    items: int  # items assigned (all of the run's, or a sample)
    inclusion_probability: float
    overlap: int
    seed: int
    loads: dict[str, int]  # items per named person
    added: int
    withdrawn: int  # ungraded assignments moved to someone else (or taken from a person no longer named)


def assign_run(store: Store, run_id: int, graders: list[str], overlap: int, *, seed: int | None = None,
               items: int | None = None) -> AssignReport:
    """Plan and store the run's assignments, in one transaction. A run assigned before keeps its items (and their
    inclusion probability): `items` may only repeat their number."""
    run = run_info(store, run_id)
    seed = run.order_seed if seed is None else seed
    with store.transaction():
        now = current_assignments(store, run_id)
        if now:
            pool = sorted({a.question_pk for a in now})
            probability = now[0].inclusion_probability  # one plan's items share it
            if items is not None and items != len(pool):
                raise UserError(f"--items {items}: run {run_id} has {len(pool)} items assigned already; assign "
                                "again without --items to keep them")
        else:
            pool, probability = sample_items(shown_question_pks(store, run), items, seed)
            if not pool:
                raise UserError(f"run {run_id}: no answered questions to assign")
        current: dict[int, set[str]] = defaultdict(set)
        for a in now:
            current[a.question_pk].add(a.grader)
        plan = plan_assignment(pool, graders, overlap, seed, current, _graded_pairs(store, run, now))
        by_pair = {(a.question_pk, a.grader): a for a in now}
        withdraw_assignments(store, run_id, [by_pair[p] for p in plan.withdraw])
        add_assignments(store, run_id, plan.add, probability=probability, overlap=overlap, seed=seed)
    return AssignReport(run_id, len(pool), probability, overlap, seed, plan.loads(graders), len(plan.add),
                        len(plan.withdraw))


def _graded_pairs(store: Store, run: RunInfo, assigned: list[Assignment]) -> set[tuple[int, str]]:
    """(item, person) of the assigned people's graded items."""
    return {(pk, g) for g in sorted({a.grader for a in assigned}) for pk in graded_question_pks(store, run, g)}


@dataclass
class PersonProgress(Record):
    grader: str
    assigned: int
    graded: int  # of their assigned items
    adjudicated: int  # of their assigned items, those a lead decided on (where people disagreed)
    flagged: int = 0  # of their assigned items, those they flagged for fixing the benchmark (left out of agree)


@dataclass
class TeamProgress(Record):
    run_id: int
    items: int  # items assigned
    overlap_items: int  # items assigned to two or more people
    people: list[PersonProgress]
    alpha: Estimate  # people vs people on overlap items (units: their shown answers)
    target_width: float
    alpha_items: int  # overlap items with an answer graded by two or more of its people
    more_for_width: int | None  # projected (see the module docstring); None while alpha has no interval
    disputed: int = 0  # items whose people disagree, decided or not (the adjudication queue)
    adjudicated: int = 0  # items with a lead's decision
    projection: str = field(default="")


def team_progress(store: Store, run_id: int, width: float = DEFAULT_WIDTH, *, boot: int = DEFAULT_BOOT,
                  seed: int = DEFAULT_SEED) -> TeamProgress:
    if not 0 < width < 2:
        raise UserError(f"--width {width}: an interval width between 0 and 2 (alpha runs from -1 to 1), e.g. 0.2")
    run = run_info(store, run_id)
    assigned = current_assignments(store, run_id)
    people_of: dict[int, set[str]] = defaultdict(set)
    for a in assigned:
        people_of[a.question_pk].add(a.grader)
    graded = _graded_pairs(store, run, assigned)
    decided = {d.question_pk for d in current_decisions(store, run_id)}
    flagged = {(f.flag.question_pk, f.flag.grader) for f in flag_listing(store, run_id)}
    people = [PersonProgress(g, sum(g in p for p in people_of.values()),
                             sum(g in p and (pk, g) in graded for pk, p in people_of.items()),
                             sum(g in p and pk in decided for pk, p in people_of.items()),
                             sum(g in p and (pk, g) in flagged for pk, p in people_of.items()))
              for g in sorted({a.grader for a in assigned})]
    units = overlap_grades(store, run_id)
    alpha = krippendorff_alpha_ordinal([[grade_rank(g.grade) for g in gs] for gs in units.values()], len(GRADES),
                                       boot, seed)
    alpha_items = len({gs[0].question_pk for gs in units.values() if len(gs) > 1})
    overlap = [pk for pk, p in people_of.items() if len(p) > 1]
    more = more_items_needed(alpha_items, alpha.low, alpha.high, target=width / 2)
    projection = ("" if more is None else
                  f"a projection: the interval narrows about as 1/sqrt(n), so {alpha_items + more} overlap items "
                  f"would give a width of about {width:g}")
    disputed = adjudication_queue(store, run, "")  # as a lead assigned nothing sees it: every disputed item
    return TeamProgress(run_id, len(people_of), len(overlap), people, alpha, width, alpha_items, more,
                        len(disputed), len(decided & set(disputed)), projection)
