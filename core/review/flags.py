"""Flagging an item at the desk: a person says a question of the run needs fixing in the benchmark (a wrong gold
answer, an ambiguous question, another reason given in a note). One store call per desk action; the events are
core/store/flags.py's, the reasons core/grading/vocabulary.py's. No textual here.

The flag key toggles: on an item the person has not flagged it flags it (with a reason), on one they flagged it takes
the flag back (an `undo` event). Grades keep their own undo (`u`), so taking back a grade never takes a flag with it.
"""

from __future__ import annotations

from gradedesk.core.errors import UserError
from gradedesk.core.grading.vocabulary import FLAG_REASONS
from gradedesk.core.store import flags
from gradedesk.core.store.connection import Store
from gradedesk.core.store.flags import ItemFlag


def flag_item(store: Store, run_id: int, question_pk: int, grader: str, reason: str, note: str | None, *,
              judge_visible: bool) -> ItemFlag:
    """Flag the question of the run for the person; `judge_visible`: a machine grade of the item was on screen."""
    if reason not in FLAG_REASONS:
        raise UserError(f"flag reason: {reason!r} is not one of {', '.join(FLAG_REASONS)}")
    note = (note or "").strip() or None
    if reason == "other" and note is None:
        raise UserError("flag reason other: say why in the note")
    return flags.add_flag(store, run_id, question_pk, grader, reason, note, judge_visible=judge_visible)


def unflag_item(store: Store, run_id: int, question_pk: int, grader: str, *, judge_visible: bool) -> ItemFlag | None:
    """Take back the person's flag on the question (an undo event); the flag taken back, None when there was none."""
    return flags.undo_flag(store, run_id, question_pk, grader, judge_visible=judge_visible)


def describe(flag: ItemFlag) -> str:
    """'flagged: bad gold answer — the note': the flag as the desk shows it (plain text; the note is untrusted)."""
    reason = "other" if flag.reason == "other" else FLAG_REASONS[flag.reason]
    return f"flagged: {reason}" + (f" — {flag.note}" if flag.note else "")


def describe_flags(own: ItemFlag | None, others: tuple[ItemFlag, ...] | list[ItemFlag]) -> str:
    """The flags on an item as the person's desk shows them: their own, then other people's, named (another's flag
    leaves the item out of this person's figures too, so it is shown); '' when nobody flagged it."""
    parts = [describe(own)] if own is not None else []
    if others:
        names = ", ".join(f.grader for f in others)
        reason = describe(others[0]).removeprefix("flagged: ").split(" — ")[0]
        parts.append(f"flagged by {names}: {reason}" + ("" if own else " (left out of your figures)"))
    return " · ".join(parts)
