"""What people's claim marks say about a run: per (answer, person) the figures of claim_marks.py, per answer method the
means `summary` prints, per answer the record an export carries.

An answer counts for a person once every one of its claims has a live mark of theirs (`complete`); partly marked
answers are counted apart, never averaged in. Claims are the stored ones (answer_claims); for an answer stored by an
older splitter version they are split again in memory, and its marks apply where the claim text is unchanged.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from gradedesk.core.evidence.stored import answer_evidence
from gradedesk.core.grading.claim_marks import ClaimFigures, figures, live_marks
from gradedesk.core.grading.claim_store import MethodClaimCounts, claim_counts, load_claims
from gradedesk.core.grading.claims import Claim, split_claims
from gradedesk.core.grading.retrieval_evals import MethodLabel, method_label
from gradedesk.core.stats.records import FLAT, Record
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


def marked_answers(store: Store, run_id: int, label: MethodLabel = method_label) -> list[MarkedAnswer]:
    """Every (answer, person) of the run with at least one current claim mark, in answer order; `label` names each
    answer's method (a run's own names: core/runs/headline.MethodNames)."""
    by_pair: dict[tuple[int, str], dict[int, ClaimMark]] = defaultdict(dict)
    where: dict[int, tuple[str, int]] = {}
    for r in run_marks(store, run_id):
        by_pair[(r.mark.answer_id, r.mark.grader)][r.mark.claim_index] = r.mark
        where[r.mark.answer_id] = (label(r.method, r.budget), r.question_pk)
    claims = {aid: _claims(store, aid) for aid in where}
    out = []
    for (aid, grader), marks in by_pair.items():
        live = live_marks(claims[aid], marks)
        out.append(MarkedAnswer(aid, grader, *where[aid], figures(claims[aid], live), {i: marks[i] for i in live}))
    return out


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


@dataclass(frozen=True, slots=True)
class HumanClaimFigures(Record):
    """What people's claim marks add up to over one answer method's (answer, person) pairs."""

    marked_answers: int  # pairs with every claim marked
    partly_marked: int
    human_faithfulness: float | None  # mean over the fully marked pairs; None when none is defined
    citation_precision: float | None
    supported: int  # marks summed over the fully marked pairs
    miscited: int
    unsupported: int
    not_claims: int


NO_MARKS = HumanClaimFigures(0, 0, None, None, 0, 0, 0, 0)


def human_by_method(marked: list[MarkedAnswer]) -> dict[str, HumanClaimFigures]:
    """Per answer method: (answer, person) pairs fully and partly marked, mean human faithfulness and citation
    precision over the fully marked ones (None when none is defined), and the marks behind them."""
    groups: dict[str, list[MarkedAnswer]] = defaultdict(list)
    for m in marked:
        groups[m.method].append(m)
    out = {}
    for method, rows in groups.items():
        done = [m.figures for m in rows if m.figures.complete]
        out[method] = HumanClaimFigures(
            len(done), len(rows) - len(done),
            _mean([f.faithfulness for f in done if f.faithfulness is not None]),
            _mean([f.citation_precision for f in done if f.citation_precision is not None]),
            sum(f.supported for f in done), sum(f.miscited for f in done), sum(f.unsupported for f in done),
            sum(f.not_claims for f in done),
        )
    return out


@dataclass(frozen=True, slots=True)
class PersonClaimFigures(Record):
    grader: str
    marked: int
    complete: bool
    faithfulness: float | None
    citation_precision: float | None


@dataclass(frozen=True, slots=True)
class AnswerClaimRecord(Record):
    """An answer's claim counts and each person's figures, as an export line carries them."""

    claims: int
    cited: int
    citations: int
    invalid_citations: int
    people: list[PersonClaimFigures]  # the people who marked at least one of its claims


def answer_claim_record(store: Store, answer_id: int, marked: list[MarkedAnswer]) -> AnswerClaimRecord | None:
    """An answer's claim counts and each person's figures (`marked`: the answer's entries of `marked_answers`), for an
    export line; None when its claims were never computed."""
    counts = machine_grades.claim_counts(store, answer_id)
    if counts is None:
        return None
    people = [PersonClaimFigures(m.grader, f.marked, f.complete, f.faithfulness, f.citation_precision)
              for m in marked if (f := m.figures).marked]
    return AnswerClaimRecord(counts.claims, counts.cited, counts.citations, counts.invalid, people)


@dataclass(frozen=True, slots=True)
class MethodClaims(Record):
    """One answer method's claim counts and its people's marks; its JSON form is one flat object (counts first)."""

    counts: MethodClaimCounts = field(metadata=FLAT)
    people: HumanClaimFigures = field(metadata=FLAT)


def claim_summary(store: Store, run_id: int, label: MethodLabel = method_label) -> list[MethodClaims]:
    """Per answer method (named by `label`): the claim and citation counts (claim_store.claim_counts) and what
    people's marks add up to."""
    human = human_by_method(marked_answers(store, run_id, label))
    return [MethodClaims(c, human.get(c.method, NO_MARKS)) for c in claim_counts(store, run_id, label)]
