"""Blind first: what a person can see on the desk, and so what every event they save records as seen. One model for
every kind of event (a grade; a label, scores or a note; a preference; a claim mark; the undo of any of them) and for
every screen that shows machine output (the grading panes, the queue, claim mode). No textual here.

The desk's settings (`Blindness`) and two facts from the store decide it:

- An answer's machine grade is on screen once the person has *seen* it (`AnswerView.judge_seen`: they saved a grade
  of the answer outside a recheck pass, or saved something with it in view), or from the start in open mode
  (--show-judge) and on the random share of items opened revealed (--reveal-share). A recheck pass hides it always.
  A label, scores or a note saved before the grade reveal nothing: such an event records judge_visible 0, and the
  grade given after it is still blind. Once seen it stays seen: an undo does not hide it again, so a grade given
  after `u` is post-reveal (stored as a revision) however it was reached.
- A preference sees the machine grades of both answers of its question: it records judge_visible 1 when either is
  on screen.
- An answer's machine faithfulness verdicts are on screen once every claim of it is marked (or they were seen
  before), or from the start in open mode; never in a recheck pass.
- An undo event records what is on screen of the event it takes back (the desk shows that item as it saves it).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from gradedesk.core.review.item import AnswerView, Item


def revealed(order_seed: int, grader: str, question_pk: int, share: float) -> bool:
    """Whether an item is one of the random `share` opened with the judge in view (`grade --reveal-share`), so that
    agreement on revealed vs blind items measures anchoring. Fixed per run, grader and question."""
    return share > 0 and random.Random(f"{order_seed}:{grader}:reveal:{question_pk}").random() < share


@dataclass(frozen=True)
class Blindness:
    """The desk's settings that decide what blind first shows, for a person in a run."""

    show_judge: bool = False  # open mode: machine grades shown from the start
    recheck: bool = False  # a recheck pass: machine grades and earlier grades hidden
    reveal_share: float = 0.0  # the share of items opened with the machine grade in view
    order_seed: int = 0  # the run's, with the grader: which items that share is
    grader: str = ""

    def judge_first(self, question_pk: int | None) -> bool:
        """The machine grades of this question's answers are shown before any grade (open mode, or a revealed item)."""
        return self.show_judge or (question_pk is not None and revealed(self.order_seed, self.grader, question_pk,
                                                                        self.reveal_share))

    def mode(self, question_pk: int | None) -> str:
        """The mode a grade of this question is recorded in (human_grades.mode): recheck, open or blind."""
        return "recheck" if self.recheck else ("open" if self.judge_first(question_pk) else "blind")

    def judge(self, question_pk: int | None, *, has_machine: bool, seen: bool) -> bool:
        """Whether an answer's machine grade is on screen (and so what a grade, label, scores, note or undo of it
        records as judge_visible); `seen`: the person has seen it (AnswerView.judge_seen, QueueRow.judge_seen)."""
        return has_machine and not self.recheck and (seen or self.judge_first(question_pk))

    def answer_judge(self, item: Item | None, answer: AnswerView | None) -> bool:
        """`judge` for an answer of an item loaded whole."""
        return item is not None and answer is not None and self.judge(
            item.question_pk, has_machine=answer.machine is not None, seen=answer.judge_seen)

    def machines(self, item: Item | None) -> bool:
        """Whether a machine grade of either answer of the item is on screen (what a preference records)."""
        return item is not None and any(self.answer_judge(item, a) for a in item.answers.values())

    def scorers(self, *, due: bool) -> bool:
        """Whether an answer's machine faithfulness verdicts are on screen (what a claim mark records);
        `due`: every claim of it is marked, or the person saw them before."""
        return not self.recheck and (self.show_judge or due)
