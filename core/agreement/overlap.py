"""People against people on the items assigned to two or more of them (gradedesk assign), and people against the
machine grader where a lead settled their disagreement (gradedesk grade --adjudicate).

- Krippendorff's ordinal alpha over the overlap items' answers, each a unit holding its assigned people's current
  grades, with a bootstrap interval over answers; Cohen's kappa for each pair of people on the answers both graded.
  A lead's decision is not a person's grade: it is in neither figure.
- The reference grade of an answer some assigned person graded: the lead's decision where there is one, else the
  people's grade when they all gave the same one; an answer they still disagree on has none (counted as undecided).
  The reference against the machine grade is what a judge's agreement means once the people's own disagreements are
  settled.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from gradedesk.core.grading.vocabulary import GRADES, grade_rank
from gradedesk.core.stats import measures as agree
from gradedesk.core.stats.krippendorff import krippendorff_alpha_ordinal
from gradedesk.core.stats.measures import Estimate
from gradedesk.core.stats.records import Record
from gradedesk.core.store.adjudications import current_decisions
from gradedesk.core.store.assignments import assigned_grades, overlap_grades
from gradedesk.core.store.connection import Store


@dataclass
class PairKappa(Record):
    people: str  # 'ann-bob'
    n: int  # answers both graded
    kappa: Estimate


@dataclass
class OverlapAgreement(Record):
    """The overlap section of `agree`."""

    overlap_answers: int  # answers of overlap items with two or more of their people's grades
    alpha: Estimate
    pairwise_kappa: list[PairKappa]
    adjudicated: int  # answers with a lead's decision
    undecided: int  # answers their people disagree on, with no decision yet: no reference grade
    reference_pairs: int
    reference_vs_machine: dict[str, Estimate]  # agreement, kappa, AC1


def overlap_agreement(store: Store, run_id: int, machine: dict[int, str], boot: int, seed: int) -> OverlapAgreement:
    """`machine`: the machine grade each person-graded answer is compared with (answer id -> grade)."""
    units = overlap_grades(store, run_id)
    alpha = krippendorff_alpha_ordinal([[grade_rank(g.grade) for g in gs] for gs in units.values()],
                                             len(GRADES), boot, seed)
    by_person = {answer: {g.grader: g.grade for g in gs} for answer, gs in units.items()}
    kappas, kappa = [], [m for m in agree.pair_measures() if m.name == "cohen_kappa"]
    for a, b in combinations(sorted({p for grades in by_person.values() for p in grades}), 2):
        both = [(g[a], g[b]) for g in by_person.values() if a in g and b in g]
        cm = agree.confusion_matrix([x for x, _ in both], [y for _, y in both], GRADES)
        kappas.append(PairKappa(f"{a}-{b}", len(both), agree.estimates(cm, kappa, boot, seed)["cohen_kappa"]))
    decided = {}
    for d in current_decisions(store, run_id):
        if d.method is not None and d.grade is not None:
            decided[(d.question_pk, d.method, d.budget)] = d.grade
    people: dict[int, set[str]] = {}
    place: dict[int, tuple[int, str, int]] = {}
    for g in assigned_grades(store, run_id):
        people.setdefault(g.answer_id, set()).add(g.grade)
        place[g.answer_id] = (g.question_pk, g.method, g.budget)
    reference, undecided = {}, 0
    for answer, grades in people.items():
        if place[answer] in decided:
            reference[answer] = decided[place[answer]]
        elif len(grades) == 1:
            reference[answer] = next(iter(grades))
        else:
            undecided += 1
    pairs = [(ref, machine[a]) for a, ref in reference.items() if a in machine]
    cm = agree.confusion_matrix([r for r, _ in pairs], [m for _, m in pairs], GRADES)
    return OverlapAgreement(sum(len(gs) > 1 for gs in units.values()), alpha, kappas,
                            sum(a in reference and place[a] in decided for a in people), undecided, len(pairs),
                            agree.estimates(cm, agree.summary_measures(), boot, seed))
