"""Faithfulness measured by people beside the faithfulness scorers: does the metric deserve trust? (`gradedesk agree`)

A person's faithfulness of an answer comes from their claim marks (core/grading/claim_figures.py): supported ÷ factual
claims, once every claim of the answer is marked. Each scorer that wrote a faithfulness value for the run (the offline
scorer, `llm:<model>`; answer_scores, metric faithfulness) is compared with it over the (answer, person) pairs both
define: Pearson correlation, mean absolute difference and mean difference (scorer minus person), with bootstrap
intervals over the pairs (core/stats/numeric.py). Citation precision has no scorer to compare with; it is reported per
method.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from gradedesk.core.grading.claim_figures import HumanClaimFigures, human_by_method, marked_answers
from gradedesk.core.stats.measures import DEFAULT_BOOT, DEFAULT_SEED, Estimate
from gradedesk.core.stats.numeric import numeric_agreement
from gradedesk.core.stats.records import FLAT, Record
from gradedesk.core.store.machine_grades import run_scores
from gradedesk.core.store.connection import Store

FEW = 20  # pairs below which a bootstrap interval is rough


@dataclass
class ScorerAgreement(Record):
    """One faithfulness scorer against people's faithfulness, over the (answer, person) pairs both define."""

    scorer: str
    n: int
    mean_person: float | None
    mean_scorer: float | None
    # pearson, mean_abs_diff, mean_difference (scorer - person)
    estimates: dict[str, Estimate] = field(metadata=FLAT)


@dataclass
class Faithfulness(Record):
    people_answers: int  # (answer, person) pairs with every claim marked
    people: list[str]
    by_method: dict[str, HumanClaimFigures]
    scorers: list[ScorerAgreement]
    notes: list[str]


def faithfulness_agreement(store: Store, run_id: int, boot: int = DEFAULT_BOOT,
                           seed: int = DEFAULT_SEED) -> Faithfulness:
    """People's faithfulness per method, and each faithfulness scorer against it."""
    marked = marked_answers(store, run_id)
    people = [(m.answer_id, m.grader, m.figures.faithfulness) for m in marked
              if m.figures.complete and m.figures.faithfulness is not None]
    scores: dict[str, dict[int, float]] = defaultdict(dict)
    for r in run_scores(store, run_id, ("faithfulness",)):
        if r["value"] is not None:
            scores[r["method"]][r["answer_id"]] = r["value"]
    scorers = []
    for scorer, values in sorted(scores.items()):
        pairs = [(faithfulness, values[answer_id]) for answer_id, _, faithfulness in people if answer_id in values]
        est = numeric_agreement([a for a, _ in pairs], [b for _, b in pairs], boot, seed, ("person", scorer))
        scorers.append(ScorerAgreement(scorer, len(pairs), sum(a for a, _ in pairs) / len(pairs) if pairs else None,
                                       sum(b for _, b in pairs) / len(pairs) if pairs else None, est))
    notes = []
    if marked and not people:
        notes.append("no answer's claims are fully marked by a person yet: faithfulness is compared once they are")
    elif any(0 < s.n < FEW for s in scorers):
        notes.append(f"fewer than {FEW} answers with claims marked and scored: the faithfulness intervals are rough")
    partly = sum(not m.figures.complete for m in marked)
    if partly:
        notes.append(f"{partly} answer(s) have claims only partly marked and are left out")
    return Faithfulness(len(people), sorted({grader for _, grader, _ in people}), human_by_method(marked), scorers,
                        notes)
