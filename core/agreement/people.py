"""People's own behaviour in one run: how often they switch after seeing the machine grade, how consistent each is
with themselves, and the units of their agreement with each other (Krippendorff's alpha).

- Switch rate: among answers a person first graded blind that have a machine grade (the desk reveals it after the blind
  grade is saved), the share whose current grade is a revision (is_revision: saved after the reveal) to another grade;
  toward the machine grade when the new grade is closer to it on the ordinal scale, away when farther. The blind
  grade counts even when an undo took it back: the person saw the machine grade once it was saved, so a grade given
  after `u` is post-reveal however it was reached.
- Self-consistency: each 'recheck' grade against the same person's latest earlier non-recheck grade of that answer.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from gradedesk.core.grading.vocabulary import GRADES, grade_rank
from gradedesk.core.stats import measures as agree
from gradedesk.core.stats.measures import Estimate
from gradedesk.core.stats.records import FLAT, Record
from gradedesk.core.store.connection import Store
from gradedesk.core.store.grades import current_grades
from gradedesk.core.store.reports import GradeEvent, grade_events


def people_alpha_units(store: Store, run_id: int) -> list[list[int]]:
    """Every answer's current grades by all people (with or without a machine grade)."""
    units: dict[int, list[int]] = defaultdict(list)
    for answer_id, grade in current_grades(store, run_id):
        units[answer_id].append(grade_rank(grade))
    return list(units.values())


def grade_histories(store: Store, run_id: int) -> dict[tuple[int, str], list[GradeEvent]]:
    """Each (answer, person)'s 'set' events with a grade (undone ones too: GradeEvent.live), oldest first."""
    events: dict[tuple[int, str], list[GradeEvent]] = defaultdict(list)
    for e in grade_events(store, run_id):
        events[(e.answer_id, e.grader)].append(e)
    return events


@dataclass
class SwitchRate(Record):
    eligible: int  # answers graded blind before their machine grade was shown
    switched: int
    toward_machine: int
    away_from_machine: int
    sideways: int
    rate: Estimate


def switches(events: dict[tuple[int, str], list[GradeEvent]], machine: dict[int, str], boot: int,
             seed: int) -> SwitchRate:
    """The switch rate after the machine grade was revealed (`machine`: answer id -> its machine grade)."""
    eligible = toward = away = sideways = 0
    for (answer_id, _grader), evs in events.items():
        blind = next((e for e in evs if e.mode == "blind" and not e.judge_visible), None)
        current = next((e for e in reversed(evs) if e.live and e.mode != "recheck"), None)
        if blind is None or current is None or answer_id not in machine:
            continue
        eligible += 1
        if current is blind or not current.is_revision or current.grade == blind.grade:
            continue
        target = grade_rank(machine[answer_id])
        before = abs(grade_rank(blind.grade) - target)
        after = abs(grade_rank(current.grade) - target)
        if after < before:
            toward += 1
        elif after > before:
            away += 1
        else:
            sideways += 1
    switched = toward + away + sideways
    rate = agree.proportion(switched, eligible, "no answer was graded blind before its machine grade was shown",
                            boot, seed)
    return SwitchRate(eligible, switched, toward, away, sideways, rate)


@dataclass
class SelfConsistency(Record):
    """One person's recheck grades against their own earlier grades."""

    grader: str
    n: int
    estimates: dict[str, Estimate] = field(metadata=FLAT)


def self_consistency(events: dict[tuple[int, str], list[GradeEvent]], boot: int, seed: int) -> list[SelfConsistency]:
    """Per person: agreement of their recheck grades with their own earlier grades."""
    per_person: dict[str, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    for (_answer, grader), evs in events.items():
        earlier = None
        for e in (e for e in evs if e.live):
            if e.mode != "recheck":
                earlier = e.grade
            elif earlier is not None:
                per_person[grader][0].append(earlier)
                per_person[grader][1].append(e.grade)
    out = []
    for grader, (first, again) in sorted(per_person.items()):
        cm = agree.confusion_matrix(first, again, GRADES)
        out.append(SelfConsistency(grader, len(first), agree.estimates(cm, agree.summary_measures(), boot, seed)))
    return out
