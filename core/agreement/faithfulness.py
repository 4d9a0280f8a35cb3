"""Faithfulness measured by people beside the faithfulness scorers: does the metric deserve trust? (`gradedesk agree`)

A person's faithfulness of an answer comes from their claim marks (core/grading/claim_figures.py): supported ÷ factual
claims, once every claim of the answer is marked. Each scorer that wrote a faithfulness value for the run (the offline
scorer, `llm:<model>`; answer_scores, metric faithfulness) is compared with it over the (answer, person) pairs both
define: Pearson correlation, mean absolute difference and mean difference (scorer minus person), with bootstrap
intervals over the pairs (numeric.py). Citation precision has no scorer to compare with; it is reported per method.
"""

from __future__ import annotations

from collections import defaultdict

from gradedesk.core.agreement.numeric import paired_estimates
from gradedesk.core.agreement.statistics import DEFAULT_BOOT, DEFAULT_SEED
from gradedesk.core.grading.claim_figures import human_by_method, marked_answers
from gradedesk.core.store.machine_grades import run_scores
from gradedesk.core.store.connection import Store

FEW = 20  # pairs below which a bootstrap interval is rough


def faithfulness_agreement(store: Store, run_id: int, boot: int = DEFAULT_BOOT, seed: int = DEFAULT_SEED) -> dict:
    """People's faithfulness per method, and each faithfulness scorer against it, as JSON-ready data."""
    marked = marked_answers(store, run_id)
    people = [m for m in marked if m.figures.complete and m.figures.faithfulness is not None]
    scores: dict[str, dict[int, float]] = defaultdict(dict)
    for r in run_scores(store, run_id, ("faithfulness",)):
        if r["value"] is not None:
            scores[r["method"]][r["answer_id"]] = r["value"]
    scorers = []
    for scorer, values in sorted(scores.items()):
        pairs = [(p.figures.faithfulness, values[p.answer_id]) for p in people if p.answer_id in values]
        est = paired_estimates([a for a, _ in pairs], [b for _, b in pairs], boot, seed, ("person", scorer))
        scorers.append({"scorer": scorer, "n": len(pairs),
                        "mean_person": sum(a for a, _ in pairs) / len(pairs) if pairs else None,
                        "mean_scorer": sum(b for _, b in pairs) / len(pairs) if pairs else None,
                        **{name: e.to_dict() for name, e in est.items()}})
    notes = []
    if marked and not people:
        notes.append("no answer's claims are fully marked by a person yet: faithfulness is compared once they are")
    elif any(0 < s["n"] < FEW for s in scorers):
        notes.append(f"fewer than {FEW} answers with claims marked and scored: the faithfulness intervals are rough")
    partly = sum(not m.figures.complete for m in marked)
    if partly:
        notes.append(f"{partly} answer(s) have claims only partly marked and are left out")
    return {"people_answers": len(people), "people": sorted({p.grader for p in people}),
            "by_method": human_by_method(marked), "scorers": scorers, "notes": notes}
