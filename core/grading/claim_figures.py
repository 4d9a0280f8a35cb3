"""What people's claim marks say about a run: per (answer, person) the figures of claim_marks.py, per answer method the
means `summary` prints, per answer the record an export carries.

An answer counts for a person once every one of its claims has a live mark of theirs (`complete`); partly marked
answers are counted apart, never averaged in. Claims are the stored ones (answer_claims); for an answer stored by an
older splitter version they are split again in memory, and its marks apply where the claim text is unchanged.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from gradedesk.core.evidence.stored import answer_evidence
from gradedesk.core.grading.claim_marks import ClaimFigures, figures, live_marks
from gradedesk.core.grading.claim_store import claim_counts, load_claims
from gradedesk.core.grading.claims import Claim, split_claims
from gradedesk.core.grading.retrieval_evals import method_label
from gradedesk.core.store import answers, machine_grades
from gradedesk.core.store.connection import Store
from gradedesk.core.store.grades import ClaimMark, run_marks


@dataclass(frozen=True)
class MarkedAnswer:
    """One person's marks on one answer's claims, added up."""

    answer_id: int
    grader: str
    method: str  # raw, bundle@<budget>
    question_pk: int
    figures: ClaimFigures
    marks: dict[int, ClaimMark]  # the live marks (claim text unchanged since), by claim index


def _claims(store: Store, answer_id: int) -> list[Claim]:
    stored = load_claims(store, answer_id)
    if stored is not None:
        return stored
    answer = answers.answer_row(store, answer_id)
    return split_claims(answer["text"], answer_evidence(store, answer))


def marked_answers(store: Store, run_id: int) -> list[MarkedAnswer]:
    """Every (answer, person) of the run with at least one current claim mark, in answer order."""
    by_pair: dict[tuple[int, str], dict[int, ClaimMark]] = defaultdict(dict)
    where: dict[int, tuple[str, int]] = {}
    for r in run_marks(store, run_id):
        by_pair[(r.mark.answer_id, r.mark.grader)][r.mark.claim_index] = r.mark
        where[r.mark.answer_id] = (method_label(r.method, r.budget), r.question_pk)
    claims = {aid: _claims(store, aid) for aid in where}
    out = []
    for (aid, grader), marks in by_pair.items():
        live = live_marks(claims[aid], marks)
        out.append(MarkedAnswer(aid, grader, *where[aid], figures(claims[aid], live), {i: marks[i] for i in live}))
    return out


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def human_by_method(marked: list[MarkedAnswer]) -> dict[str, dict]:
    """Per answer method: (answer, person) pairs fully and partly marked, mean human faithfulness and citation
    precision over the fully marked ones (None when none is defined), and the marks behind them."""
    groups: dict[str, list[MarkedAnswer]] = defaultdict(list)
    for m in marked:
        groups[m.method].append(m)
    out = {}
    for method, rows in groups.items():
        done = [m.figures for m in rows if m.figures.complete]
        out[method] = {
            "marked_answers": len(done), "partly_marked": len(rows) - len(done),
            "human_faithfulness": _mean([f.faithfulness for f in done if f.faithfulness is not None]),
            "citation_precision": _mean([f.citation_precision for f in done if f.citation_precision is not None]),
            **{k: sum(getattr(f, k) for f in done) for k in ("supported", "miscited", "unsupported", "not_claims")},
        }
    return out


def answer_claim_record(store: Store, answer_id: int, marked: list[MarkedAnswer]) -> dict | None:
    """An answer's claim counts and each person's figures (`marked`: the answer's entries of `marked_answers`), for an
    export line; None when its claims were never computed."""
    counts = machine_grades.claim_counts(store, answer_id)
    if counts is None:
        return None
    people = [{"grader": m.grader, "marked": f.marked, "complete": f.complete, "faithfulness": f.faithfulness,
               "citation_precision": f.citation_precision} for m in marked if (f := m.figures).marked]
    return {"claims": counts.claims, "cited": counts.cited, "citations": counts.citations,
            "invalid_citations": counts.invalid, "people": people}


NO_MARKS = {"marked_answers": 0, "partly_marked": 0, "human_faithfulness": None, "citation_precision": None,
            "supported": 0, "miscited": 0, "unsupported": 0, "not_claims": 0}


def claim_summary(store: Store, run_id: int) -> list[dict]:
    """Per answer method: the claim and citation counts (claim_store.claim_counts) and what people's marks add up to."""
    human = human_by_method(marked_answers(store, run_id))
    return [{**row, **human.get(row["method"], NO_MARKS)} for row in claim_counts(store, run_id)]
