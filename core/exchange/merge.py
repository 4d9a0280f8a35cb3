"""`gradedesk merge OTHER.db`: bring another store's human grades, claim marks, preferences, sampler draws, item
flags, assignments and adjudications into this one.

Typical use: two people each grade a copy of the same store.db, then one merges the other's copy. Events keep their
uuid, so merging twice (or merging a store into itself) adds nothing the second time.

Answers are matched across stores by what they are, not by row id (ids differ between stores):
  run       the same run configuration: runs.config's `key` (what `gradedesk run` resumes by), else, for imported
            runs, (source, benchmark, provider, model, label, budgets); when several runs qualify, the one with the
            same created_at and order_seed (a copy of the same run) is taken
  answer    (question benchmark, question_id, method, budget) inside the matched run, AND the same answer text:
            a run repeated elsewhere with the same configuration can answer differently, and a grade of one text is
            not a grade of another
  question  (benchmark, question_id), asked in the matched run: for preferences, sampler draws, item flags,
            assignments and adjudications (a decision names its answer by method and budget), which are of a question
A claim mark names its claim by place and text, so it applies here exactly when the matched answer (the same text)
makes that claim here too. A sampler draw keeps its index, probability and population (its weight in `agree` needs
them, and a question drawn again counts again); draw k of a person in a run is one draw, so when this store already
has a different draw k of that person the other copy's draw is left out (they drew in both copies). Everything that cannot be matched is counted by reason and left out; nothing is
half-written (one transaction). Within one (answer, person) the newest merged event becomes current in this store (events are appended in the other
store's order); merge a person's grades from one copy only.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gradedesk.core.store.connection import Store
from gradedesk.core.store.merge import (EventRow, GradedAnswer, RunIdentity, add_events, answer_here, draw_here,
                                        open_other, question_in_run, run_identities, uuids_here)

UNMATCHED_RUN = "its run is not in this store (no run with the same configuration)"
UNMATCHED_ANSWER = "its answer is not in the matched run of this store (question, method or budget missing)"
DIFFERENT_TEXT = "the answer text differs: the same configuration was run again elsewhere and answered differently"
UNMATCHED_QUESTION = "its question is not in the matched run of this store"
DRAW_TAKEN = ("this store has another draw with the same number by this person in this run (they drew in both copies: "
              "merge a person's draws from one copy only)")

Plan = tuple[list[EventRow], int, dict[str, int]]  # rows new here (mapped to this store's ids), how many are here
# already, and how many cannot be matched, by reason


@dataclass
class MergeReport:
    other: str
    grades_added: int = 0
    grades_already_here: int = 0
    preferences_added: int = 0
    preferences_already_here: int = 0
    claim_marks_added: int = 0
    claim_marks_already_here: int = 0
    draws_added: int = 0
    draws_already_here: int = 0
    flags_added: int = 0
    flags_already_here: int = 0
    unmatched_grades: dict[str, int] = field(default_factory=dict)  # reason -> count
    unmatched_preferences: dict[str, int] = field(default_factory=dict)
    unmatched_claim_marks: dict[str, int] = field(default_factory=dict)
    unmatched_draws: dict[str, int] = field(default_factory=dict)
    unmatched_flags: dict[str, int] = field(default_factory=dict)
    assignments_added: int = 0  # assign and withdraw rows (gradedesk assign)
    assignments_already_here: int = 0
    unmatched_assignments: dict[str, int] = field(default_factory=dict)
    decisions_added: int = 0  # a lead's adjudication rows (grade --adjudicate)
    decisions_already_here: int = 0
    unmatched_decisions: dict[str, int] = field(default_factory=dict)
    graders: list[str] = field(default_factory=list)
    dry_run: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


def _run_identity(run: RunIdentity) -> tuple:
    if run.key:
        return ("key", run.key)
    return ("fields", run.source, run.benchmark, run.provider, run.model, run.label, run.budgets)


def match_runs(here: list[RunIdentity], other: list[RunIdentity]) -> dict[int, int]:
    """Other run id -> this store's run id, for runs with the same configuration."""
    by_identity: dict[tuple, list[RunIdentity]] = defaultdict(list)
    for run in here:
        by_identity[_run_identity(run)].append(run)
    out = {}
    for run in other:
        candidates = by_identity.get(_run_identity(run), [])
        if not candidates:
            continue
        copy = [c for c in candidates if (c.created_at, c.order_seed) == (run.created_at, run.order_seed)]
        out[run.id] = (copy or sorted(candidates, key=lambda c: c.id))[-1].id
    return out


def merge_store(store: Store, other_path: str | Path, *, dry_run: bool = False) -> MergeReport:
    """Copy the other store's human grade events, claim marks, preferences, sampler draws, item flags and assignments
    that are new here; one transaction."""
    report = MergeReport(other=str(other_path), dry_run=dry_run)
    with open_other(other_path) as other:
        run_map = match_runs(run_identities(store), other.runs())
        answer_map, answer_miss = _map_answers(store, run_map, other.graded_answers(list(run_map)))
        grades, marks = (other.answer_events(table) for table in ("human_grades", "claim_marks"))
        preferences, draws, flags, assigned, decided = (
            other.question_events(table) for table in ("human_preferences", "sample_draws", "item_flags", "assignments",
                                                       "adjudications"))
    grade_rows = _plan_grades(store, grades, run_map, answer_map, answer_miss, report)
    mark_rows = _plan_answer_events(store, "claim_marks", marks, run_map, answer_map, answer_miss)
    report.claim_marks_added = len(mark_rows[0])
    _, report.claim_marks_already_here, report.unmatched_claim_marks = mark_rows
    pref_rows, report.preferences_already_here, report.unmatched_preferences = _plan_question_events(
        store, "human_preferences", preferences, run_map)
    report.preferences_added = len(pref_rows)
    draw_rows, report.draws_already_here, report.unmatched_draws = _plan_question_events(
        store, "sample_draws", draws, run_map, _draw_taken(store))
    report.draws_added = len(draw_rows)
    flag_rows, report.flags_already_here, report.unmatched_flags = _plan_question_events(
        store, "item_flags", flags, run_map)
    report.flags_added = len(flag_rows)
    assign_rows, report.assignments_already_here, report.unmatched_assignments = _plan_question_events(
        store, "assignments", assigned, run_map)
    report.assignments_added = len(assign_rows)
    decision_rows, report.decisions_already_here, report.unmatched_decisions = _plan_question_events(
        store, "adjudications", decided, run_map)
    report.decisions_added = len(decision_rows)
    report.graders = sorted({r["grader"] for r in grade_rows + mark_rows[0] + pref_rows + draw_rows + flag_rows})
    new = {"human_grades": grade_rows, "claim_marks": mark_rows[0], "human_preferences": pref_rows,
           "sample_draws": draw_rows, "item_flags": flag_rows, "assignments": assign_rows, "adjudications": decision_rows}
    if not dry_run and any(new.values()):
        add_events(store, new)
    return report


def _map_answers(store: Store, run_map: dict[int, int],
                 theirs: list[GradedAnswer]) -> tuple[dict[int, int], dict[int, str]]:
    """Other answer id -> this store's answer id; and the reason for each answer that cannot be matched."""
    mapped, missing = {}, {}
    for a in theirs:
        mine = answer_here(store, run_map[a.run_id], a.benchmark, a.question_id, a.method, a.budget)
        if mine is None:
            missing[a.id] = UNMATCHED_ANSWER
        elif (mine.text or "") != (a.text or ""):
            missing[a.id] = DIFFERENT_TEXT
        else:
            mapped[a.id] = mine.id
    return mapped, missing


def _plan(store: Store, table: str, rows: list[EventRow],
          map_row: Callable[[EventRow], EventRow | str]) -> Plan:
    """Rows new to this store, mapped to its ids; how many are here already; unmatched counts by reason.

    map_row gives the row to insert, or the reason (a string) it cannot be matched.
    """
    present = uuids_here(store, table, [r["uuid"] for r in rows])
    misses: Counter[str] = Counter()
    out = []
    for row in rows:
        if row["uuid"] in present:
            continue
        mapped = map_row(row)
        if isinstance(mapped, str):
            misses[mapped] += 1
        else:
            out.append(mapped)
    return out, len(present), dict(misses)


def _plan_answer_events(store: Store, table: str, events: list[EventRow], run_map: dict[int, int],
                        answer_map: dict[int, int], answer_miss: dict[int, str]) -> Plan:
    """`_plan` for events of one answer (human grades, claim marks): mapped to the matched answer here."""
    def map_row(e: EventRow) -> EventRow | str:
        if e["other_run"] not in run_map:
            return UNMATCHED_RUN
        if e["answer_id"] not in answer_map:
            return answer_miss[e["answer_id"]]
        return {**e, "answer_id": answer_map[e["answer_id"]]}

    return _plan(store, table, events, map_row)


def _plan_grades(store: Store, grades: list[EventRow], run_map: dict[int, int], answer_map: dict[int, int],
                 answer_miss: dict[int, str], report: MergeReport) -> list[EventRow]:
    rows, report.grades_already_here, report.unmatched_grades = _plan_answer_events(
        store, "human_grades", grades, run_map, answer_map, answer_miss)
    report.grades_added = len(rows)
    return rows


def _plan_question_events(store: Store, table: str, events: list[EventRow], run_map: dict[int, int],
                          refuse: Callable[[EventRow], str | None] = lambda row: None) -> Plan:
    """`_plan` for events of a question in a run (preferences, sampler draws, item flags): mapped to the matched run here and to
    the same question asked in it. `refuse` gives a reason to leave a mapped row out (None: keep it)."""
    def map_row(e: EventRow) -> EventRow | str:
        if e["run_id"] not in run_map:
            return UNMATCHED_RUN
        qpk = question_in_run(store, run_map[e["run_id"]], e["benchmark"], e["question_id"])
        if qpk is None:
            return UNMATCHED_QUESTION
        row = {**e, "run_id": run_map[e["run_id"]], "question_pk": qpk}
        return refuse(row) or row

    return _plan(store, table, events, map_row)


def _draw_taken(store: Store) -> Callable[[EventRow], str | None]:
    """DRAW_TAKEN for a draw whose (run, person, draw number) is here already under another uuid, or earlier in this
    merge (two runs of the other store matched to one run here)."""
    taken: set[tuple] = set()

    def refuse(row: EventRow) -> str | None:
        key = (row["run_id"], row["grader"], row["draw_index"])
        if key in taken or draw_here(store, *key):
            return DRAW_TAKEN
        taken.add(key)
        return None

    return refuse
