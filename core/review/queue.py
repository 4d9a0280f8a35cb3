"""The grading desk's queue: which answers a run shows, filters, keyset paging, moving between items, progress,
recheck samples and where each grader stopped (desk_state). No textual here; the queries are core/store/desk.py's,
and the ones the desk needs as they are (moving between items, finding a question, the saved desk state) are
re-exported here under the names the desk calls them by.

An *item* is one question of a run: its raw answer beside its bundled answer at the budget the desk shows
(RunInfo.bundle_budget: the run's largest unless the person chose another; core/review/item.py loads one). The queue is the stream of those answers in (question, method) order, read with keyset
queries (`WHERE key > last LIMIT n`) over the answers' unique index, so a store of a million answers is never loaded
whole. Grade events live in core/grading/human_grades.py.
"""

from __future__ import annotations

import random
from array import array
from bisect import bisect_left
from dataclasses import asdict, dataclass
from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.grading.vocabulary import GRADES, METHODS
from gradedesk.core.store import desk
from gradedesk.core.store.assignments import assigned_set
from gradedesk.core.store.connection import Store
from gradedesk.core.store.machine_grades import MACHINE_NAMES
from gradedesk.core.store.flags import person_flags
# the desk's store reads that need nothing more, re-exported under the names the desk calls them by
from gradedesk.core.store.desk import DeskState as DeskState
from gradedesk.core.store.desk import count_shown as count_shown
from gradedesk.core.store.desk import find_question as find_question
from gradedesk.core.store.desk import has_question as has_question
from gradedesk.core.store.desk import load_desk_state as load_desk_state
from gradedesk.core.store.desk import neighbour as neighbour
from gradedesk.core.store.desk import run_categories as run_categories
from gradedesk.core.store.desk import save_desk_state as save_desk_state
from gradedesk.core.store.run_records import RunInfo

STATUSES = ("all", "graded", "ungraded", "disagreeing")


def left_method(order_seed: int, question_pk: int) -> str:
    """Which answer sits on the left for a question: a fair coin seeded by the run, stable across sessions."""
    return "raw" if random.Random(f"{order_seed}:{question_pk}").random() < 0.5 else "bundle"


# Filters and the queue -------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Filters:
    category: str | None = None
    method: str | None = None          # raw | bundle
    grade: str | None = None           # the person's current grade
    judge_grade: str | None = None     # the machine grade the desk uses (core/store/machine_grades.py verdict_id)
    max_confidence: float | None = None  # machine confidence at most this
    status: str = "all"                # all | graded | ungraded | disagreeing

    def __post_init__(self) -> None:
        if self.method is not None and self.method not in METHODS:
            raise UserError(f"filter method: {self.method!r} is not one of {', '.join(METHODS)}")
        for name in ("grade", "judge_grade"):
            value = getattr(self, name)
            if value is not None and value not in GRADES:
                raise UserError(f"filter {name}: {value!r} is not one of {', '.join(GRADES)}")
        if self.status not in STATUSES:
            raise UserError(f"filter status: {self.status!r} is not one of {', '.join(STATUSES)}")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Filters:
        known = set(cls.__dataclass_fields__)
        try:
            return cls(**{k: v for k, v in data.items() if k in known})
        except UserError:  # a stale saved filter is dropped rather than blocking the desk
            return cls()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def active(self) -> bool:
        return self != Filters()

    def describe(self, machine: str = "machine grade") -> str:
        """The filters in words; `machine`: the machine grader as the desk names it ('rule grader', 'judge')."""
        parts = []
        if self.status != "all":
            parts.append(self.status)
        for name, word in (("category", "category"), ("method", "method"), ("grade", "grade"),
                           ("judge_grade", machine)):
            if getattr(self, name) is not None:
                parts.append(f"{word}={getattr(self, name)}")
        if self.max_confidence is not None:
            parts.append(f"confidence<={self.max_confidence:g}")
        return ", ".join(parts) or "none"


@dataclass(frozen=True)
class QueueRow:
    answer_id: int
    question_pk: int
    question_id: str
    category: str
    method: str
    side: str  # "left" or "right" in the grading screen
    status: str  # pending | ok | error (the answer's)
    human_grade: str | None
    machine_grade: str | None
    machine_kind: str | None  # judge | rule
    confidence: float | None
    judge_seen: bool  # the person has seen the machine grade (graded the answer, now or before an undo)
    usable: bool = True  # the machine grade is a verdict (not an unusable reply: no pair, so no disagreement)
    flag: str | None = None  # the reason of the person's current flag on the item (core/review/flags.py)

    @property
    def key(self) -> tuple[int, str]:
        return (self.question_pk, self.method)

    @property
    def disagrees(self) -> bool:
        """The person's grade and a usable machine verdict differ."""
        return bool(self.human_grade and self.machine_grade and self.usable and self.human_grade != self.machine_grade)


def queue_page(store: Store, run: RunInfo, grader: str, filters: Filters, *, after: tuple[int, str] | None = None,
               limit: int = 200, judge_rubric: str | None = None, kind: str | None = None) -> list[QueueRow]:
    """The next `limit` queue rows after key `after` (question_pk, method), in queue order; machine grades are the
    desk's (under `judge_rubric` when one is chosen). Disagreements are with the `kind` of machine grader the person's
    figures compare (Progress.kind): given, it is not counted again for every page."""
    rows = desk.queue_rows(store, run, grader, filters, after=after, limit=limit, judge_rubric=judge_rubric,
                           kind=kind)
    flags = person_flags(store, run.id, grader, {r[1] for r in rows})  # a page's flags in one query
    out = []
    for r in rows:
        side = "left" if left_method(run.order_seed, r[1]) == r[4] else "right"
        out.append(QueueRow(r[0], r[1], r[2], r[3], r[4], side, r[5], r[6], r[7], r[8], r[9], bool(r[10]),
                            bool(r[11]), flags.get(r[1])))
    return out


# Progress --------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Progress:
    """The grader's progress, and their agreement with the machine counted as `agree` counts it: compared pairs are
    their current grades beside a usable verdict of the kind `agree` compares (core/store/machine_grades.py). Every
    figure is over the answers shown at the desk's budget (raw, and bundled at that budget: agree's by_budget points
    for it), never a count of the whole run beside a count of one budget."""

    graded: int
    total: int
    kind: str | None  # the kind of machine grader compared (judge, imported, rule); None: none beside any grade
    compared: int  # the grader's compared pairs
    agreed: int
    unusable: int = 0  # graded answers whose machine reply could not be used: not compared
    other: int = 0  # graded answers beside another kind of machine grader: left out, as agree leaves them
    stale: int = 0  # of those beside a machine grade, made against a gold answer corrected since
    assigned: bool = False  # the person has assigned items: the desk shows those (total counts their answers)
    flagged: int = 0  # graded answers on items someone flagged: not compared, as agree leaves them out

    def describe(self, budget: int | None = None, *, person: str = "", machine: str = "machine grader",
                 short: bool = False) -> str:
        """The status line: `person`'s own figures, named (a desk shows its person's; `agree` pools everyone's), and
        `budget`, the bundled budget the figures are at, first (the desk names it when its top bar does not).
        `machine`: the run's machine grader as the desk names it, for when nothing was compared with one yet.
        `short`: the same figures in fewer words, for a narrow terminal."""
        whose = [person] if person else []
        if budget is not None:
            whose.append(f"@ {budget:,}" if short else f"raw + bundle @ {budget:,}")  # the figures count both sides
        text = f"{(' ' if short else ', ').join(whose)}: " if whose else ""
        assigned = ("assigned: " if short else "assigned to you: ") if self.assigned else ""
        text += assigned + (f"{self.graded:,}/{self.total:,} graded" if short
                            else f"graded {self.graded:,} of {self.total:,}")
        name = MACHINE_NAMES.get(self.kind or "", self.kind or machine)
        if self.compared:
            share = f"{100 * self.agreed / self.compared:.0f}%"
            text += f" · {'agree with' if short else 'agreement with'} {name} {self.agreed}/{self.compared} ({share})"
        else:
            text += f" · {name}: none compared yet" if short else f" · agreement with {name}: nothing compared yet"
        notes = ((self.flagged, "on flagged items not compared", "flagged"),
                 (self.unusable, "not compared (machine reply unusable)", "unusable"),
                 (self.other, "beside another kind of grader left out", "other kind"),
                 (self.stale, f"stale machine grade{'s' if self.stale > 1 else ''} (gold changed: grade again)",
                  "stale"))
        for n, long_words, short_words in notes:
            if n:
                text += f" · {n} {short_words if short else long_words}"
        return text


@dataclass(frozen=True)
class QuestionOrder:
    """The run's questions in queue order (their row ids, ascending), to say where an item stands: 'question 3 of 48'.
    An array of ids, so a run of 250,000 questions costs 2 MB."""
    pks: array

    def __len__(self) -> int:
        return len(self.pks)

    def position(self, question_pk: int) -> int | None:
        """1-based place of the question in the run, None if it is not in it."""
        i = bisect_left(self.pks, question_pk)
        return i + 1 if i < len(self.pks) and self.pks[i] == question_pk else None


def question_order(store: Store, run: RunInfo, grader: str | None = None) -> QuestionOrder:
    """The run's questions (of `grader`'s desk: their assigned ones when they have any) in queue order."""
    return QuestionOrder(desk.shown_question_pks(store, run, grader))


def progress(store: Store, run: RunInfo, grader: str, total: int) -> Progress:
    """Counts driven by the grader's own events (small), not by the run's answers (possibly millions). The kind
    compared is `agree`'s (core/store/desk.py compared_with), the one the queue's disagreements are of too."""
    graded, rows, kind = desk.compared_with(store, run, grader)
    chosen = next((r for r in rows if r.kind == kind), None)
    return Progress(graded, total, kind, chosen.compared if chosen else 0, chosen.agreed if chosen else 0,
                    sum(r.unusable for r in rows), sum(r.compared for r in rows if r.kind != kind),
                    sum(r.stale for r in rows), assigned_set(store, run.id, grader) is not None,
                    sum(r.flagged for r in rows))


# Recheck ---------------------------------------------------------------------------------------------------------------

def recheck_sample(store: Store, run: RunInfo, grader: str, share: float, seed: int | None = None) -> list[int]:
    """A seeded share of the questions this grader has graded, to be re-graded blind (self-consistency)."""
    if not 0 < share <= 1:
        raise UserError(f"--recheck: {share!r} is not a share between 0 and 1 (e.g. 0.1)")
    pks = desk.graded_question_pks(store, run, grader)
    if not pks:
        return []
    rng = random.Random(f"recheck:{run.order_seed if seed is None else seed}:{grader}")
    picked = rng.sample(pks, max(1, round(share * len(pks))))
    rng.shuffle(picked)  # not in question order, so earlier grades are harder to recall
    return picked
