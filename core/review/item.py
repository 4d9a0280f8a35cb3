"""One item of the grading desk, loaded whole: a question with its raw answer and its bundled answer (at the budget
the desk shows: RunInfo.bundle_budget, the run's largest unless the person chose another), each with its evidence,
bundle, machine grade, the person's grade, scores and claims. No textual here.

Evidence is read by core/evidence/stored.py, the one reader of stored bundles and hits: an answer shows its bundle or
its hits, or, for an imported log that named only files, those files.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.evidence.stored import StoredBundle, files_evidence, load_bundle, parse_hits
from gradedesk.core.review.adjudication import PeopleOnItem, people_on_item
from gradedesk.core.review.claim_desk import ClaimState, claim_state
from gradedesk.core.review.queue import left_method
from gradedesk.core.store import desk
from gradedesk.core.store.adjudications import Decision
from gradedesk.core.store.answers import TRUNCATED  # not through core.providers: its package loads every provider
from gradedesk.core.store.assignments import AssignedGrade
from gradedesk.core.store.connection import Store
from gradedesk.core.store.flags import ItemFlag, current_flag, others_flags
from gradedesk.core.store.grades import HumanGrade, MachineOnDesk, current_grade, judge_seen
from gradedesk.core.store.preferences import newest_preference
from gradedesk.core.store.machine_grades import GRADING_ERROR, MACHINE_NAMES, answer_score_values, judge_rubrics
from gradedesk.core.store.run_records import RunInfo
from gradedesk.core.store.traces import AnswerTrace, answer_trace


@dataclass
class BundleInfo:
    """What the desk shows of a stored bundle."""
    id: int
    question_type: str
    total_tokens: int
    token_budget: int
    tokenizer: str
    compiler_version: str
    strategies: list[str]
    coverage_notes: list[str]
    warnings: list[str]
    snippets: list[Evidence]
    record: dict[str, Any]  # the bundle as stored, for the raw JSON view


def bundle_info(stored: StoredBundle) -> BundleInfo:
    b = stored.bundle
    return BundleInfo(stored.id, b.question_type, b.total_tokens, b.token_budget, b.tokenizer, b.compiler_version,
                      b.retrieval_strategies_used, b.coverage_notes, b.warnings, stored.evidence, stored.record)


@dataclass(frozen=True)
class MachineGrade:
    kind: str  # judge | rule
    model: str | None
    grade: str
    failure_label: str | None
    confidence: float | None
    reasoning: str | None
    rubric_version: str | None
    stale: bool = False  # made against a gold answer that has been corrected since

    @property
    def source(self) -> str:
        """Who made it, always named: a rule grade is never presented as the judge."""
        name = MACHINE_NAMES.get(self.kind, self.kind)
        return f"{name} ({self.model})" if self.model else name

    @property
    def usable(self) -> bool:
        """A verdict, not a reply that could not be used (stored as a grade, but no pair compares with it)."""
        return self.failure_label != GRADING_ERROR

    @property
    def on_desk(self) -> MachineOnDesk:
        return MachineOnDesk(self.kind, self.model, self.rubric_version)


@dataclass
class AnswerView:
    id: int
    method: str
    budget: int
    status: str
    text: str | None
    error: str | None
    tokens_in: int | None
    tokens_out: int | None
    evidence: list[Evidence]
    evidence_problem: str | None
    evidence_raw: str | None
    bundle: BundleInfo | None
    machine: MachineGrade | None
    human: HumanGrade | None  # the current grade (or, in a recheck pass, the recheck grade)
    scores: list[tuple[str, str, float | None]]  # (metric, method, value)
    judge_seen: bool  # the person has seen the machine grade (graded it before, even if undone since)
    finish_reason: str | None = None  # "length": the answer was cut at the run's max_tokens
    thinking: str | None = None  # a reasoning model's reasoning, kept apart from the answer text
    claims: ClaimState | None = None  # its claims and the person's marks; None while never computed
    origin: AnswerTrace | None = None  # the trace it was read from (import-traces), with its side label
    people: tuple[AssignedGrade, ...] = ()  # adjudicating: the assigned people's grades of it (else never loaded)

    @property
    def truncated(self) -> bool:
        return self.finish_reason == TRUNCATED

    def graded_beside_other(self, budget: int) -> int | None:
        """The budget of the bundled answer this raw answer's current grade was saved beside, when that is not
        `budget` (the one beside it now): the grade is the raw answer's own, and the desk says so. None otherwise."""
        h = self.human
        if self.method != "raw" or h is None or not h.grade or h.budget is None or h.budget == budget:
            return None
        return h.budget


@dataclass
class Item:
    run_id: int
    question_pk: int
    question_id: str
    benchmark: str
    category: str
    question: str
    gold_answer: str | None
    left_method: str
    answers: dict[str, AnswerView]  # by method; a method may be missing
    preference: str | None  # raw | bundle | tie: against the bundled answer shown (its budget)
    judge_rubric: str | None = None  # the rubric version whose judge verdicts `machine` holds; None: the newest
    judge_rubrics: tuple[str, ...] = ()  # every rubric version the judge graded an answer of this item under
    flag: ItemFlag | None = None  # the person's current flag on the item (core/review/flags.py)
    others_flags: tuple[ItemFlag, ...] = ()  # other people's: the item is left out of this person's figures too
    people: PeopleOnItem | None = None  # adjudicating: what the item's assigned people said, and what was decided

    def at(self, side: str) -> AnswerView | None:
        method = self.left_method if side == "left" else other_method(self.left_method)
        return self.answers.get(method)

    @property
    def fully_graded(self) -> bool:
        return all(a.human is not None and a.human.grade for a in self.answers.values())


def other_method(method: str) -> str:
    return "bundle" if method == "raw" else "raw"


SIDES = ("left", "right")


def side_on_show(side: str, *, moved: bool, answered: Collection[str] = SIDES) -> str:
    """The side the desk's keys act on once an item is shown, `side` having had them until then. A new item (`moved`)
    starts on the left one, Answer A, whichever side the last item ended on: grades typed in a rhythm (1 tab 2 j, again
    and again) land where meant. The same item shown again keeps its side. A side with no answer gives way to the other
    when that has one (`answered`: the sides with an answer; a run with one kind of answer, an import). The desk and
    every model of its keys (tests, benchmarks) call this, so they cannot drift apart."""
    if moved:
        side = "left"
    if answered and side not in answered:
        side = "right" if side == "left" else "left"
    return side


def machine_grade(store: Store, answer_id: int, judge_rubric: str | None = None) -> MachineGrade | None:
    """The machine grade the desk shows (core/store/machine_grades.py verdict_id): the `machine_grades` view's, or the
    judge's verdict under `judge_rubric` when one is asked for (None when the judge did not grade the answer under
    it)."""
    verdict = desk.desk_verdict(store, answer_id, judge_rubric)
    return None if verdict is None else MachineGrade(*verdict)


def decision_grade(d: Decision, answer_id: int) -> HumanGrade:
    """A lead's decision on an answer as the desk shows a grade (mode 'adjudicated'; no scores: they stay people's)."""
    return HumanGrade(d.uuid, answer_id, d.grader, d.grade, d.failure_label, None, None, None, None, d.note,
                      d.judge_visible, "adjudicated", 0, None, d.created_at)


def load_item(store: Store, run: RunInfo, grader: str, question_pk: int, *, recheck: bool = False,
              judge_rubric: str | None = None, adjudicate: bool = False) -> Item | None:
    """The item of a question; its answers' machine grades are the judge's under `judge_rubric` when one is given.
    `adjudicate`: with the assigned people's grades and preferences, and the decisions as the answers' grades."""
    q = desk.item_question(store, question_pk)
    if q is None:
        return None
    people = people_on_item(store, run.id, question_pk, run.bundle_budget) if adjudicate else None
    answers: dict[str, AnswerView] = {}
    for a in desk.shown_answers(store, run, question_pk):
        evidence, problem = parse_hits(a.evidence)
        stored = load_bundle(store, a.bundle_id) if a.bundle_id is not None else None
        if not evidence and stored is None:  # an imported log that named only the files used
            evidence = files_evidence(a.evidence_files)
        bundle = bundle_info(stored) if stored else None
        answers[a.method] = AnswerView(
            a.id, a.method, a.budget, a.status, a.text, a.error, a.tokens_in, a.tokens_out,
            evidence, problem, a.evidence if problem else None, bundle, machine_grade(store, a.id, judge_rubric),
            current_grade(store, a.id, grader, recheck=recheck), answer_score_values(store, a.id),
            judge_seen(store, a.id, grader), a.finish_reason, a.reasoning, claim_state(store, a.id, grader),
            answer_trace(store, a.id))
        if people is not None:
            decided = people.decisions.get(a.method)
            answers[a.method].human = decision_grade(decided, a.id) if decided else None
            answers[a.method].people = tuple(people.grades.get(a.method, ()))
    if people is not None:
        decided = people.decisions.get(None)
        preferred = decided.preferred if decided else None
    else:
        preference = newest_preference(store, run.id, grader, question_pk, run.bundle_budget)
        preferred = preference.preferred if preference else None
    return Item(run.id, question_pk, q.question_id, q.benchmark, q.category, q.question, q.gold_answer,
                left_method(run.order_seed, question_pk), answers, preferred, judge_rubric,
                judge_rubrics(store, [a.id for a in answers.values()]), people=people,
                flag=current_flag(store, run.id, question_pk, grader),
                others_flags=tuple(others_flags(store, run.id, question_pk, grader)))
