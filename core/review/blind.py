"""Blind first: when a person may see the machine grade of an answer (and its machine faithfulness verdicts), and
which mode a grade is made in.

One rule for every screen of the desk (the grading panes, the queue table): the machine grade stays hidden until the
person has graded the answer, unless the desk is in open mode (--show-judge); a recheck pass hides it always, so the
re-grade is blind again. Once seen it stays seen: an undo does not hide it again (core/grading/human_grades.py records
every later grade as made with the judge in view). No textual here.
"""

from __future__ import annotations

import random


def judge_visible(*, has_machine: bool, seen: bool, show_judge: bool, recheck: bool) -> bool:
    """Whether the machine grade of an answer is on screen; `seen`: the person has graded the answer (now, or before
    an undo)."""
    if not has_machine or recheck:
        return False
    return show_judge or seen


def revealed(order_seed: int, grader: str, question_pk: int, share: float) -> bool:
    """Whether an item is one of the random `share` opened with the judge in view (`grade --reveal-share`), so that
    agreement on revealed vs blind items measures anchoring. Fixed per run, grader and question."""
    return share > 0 and random.Random(f"{order_seed}:{grader}:reveal:{question_pk}").random() < share


def grading_mode(*, show_judge: bool, recheck: bool) -> str:
    """The mode a grade is recorded in (human_grades.mode): recheck, open (judge shown from the start) or blind."""
    return "recheck" if recheck else ("open" if show_judge else "blind")


def scorers_visible(*, due: bool, show_judge: bool, recheck: bool) -> bool:
    """Whether the machine faithfulness verdicts (offline and LLM scorers) of an answer are on screen: once the person
    has marked every claim of it (or saw them before), or from the start in open mode; never in a recheck pass."""
    if recheck:
        return False
    return show_judge or due
