"""The grading screen's keys, in one table: each row is one key, what it runs, its id, its word in the footer, its
line in help and the task help lists it under, and the state it needs. The screen's Bindings are built from the rows
(so the Footer and the help screen, tui/screens/help.py, show what the rows say); a key is added by adding a row whose
`run` is a function of the screen as a `GradingHost` (host.py): the table sits below the screen, above what it runs.

Every Binding runs the screen's one action, `key('<id>')`, which looks the row up and calls `run(screen, *args)`; the
rows' order is the order of the Footer and of help.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from textual.binding import Binding, BindingType

from gradedesk.core.grading.vocabulary import GRADE_LABELS, GRADES

from gradedesk.tui.screens.grading import grades, moves, opens


class Task(Enum):
    """What a key is for: help (tui/screens/help.py) lists the keys under these headings, in this order."""
    GRADE = "grade"
    NOTE = "label, scores, note, preference"
    MOVE = "move between answers and items"
    OPEN = "open and inspect"
    OTHER = "more"


class When(Enum):
    """The state of the screen a key needs; in any other it is shown dimmed (Footer and help) and does nothing."""
    ALWAYS = "always"
    ITEM = "item"  # an item on screen (none: the filters match nothing)


@dataclass(frozen=True, slots=True)
class Key:
    key: str  # Textual's key name
    run: Callable[..., object]  # what the key does: called with the screen (a GradingHost), then `args`
    id: str  # the Binding's id: stable, for keymaps
    description: str  # the key's word in the Footer
    help: str = ""  # help's line for it, when it says more than the description (the Binding's tooltip)
    args: tuple[object, ...] = ()
    footer: bool = True  # shown in the Footer (help shows every key); the footer set fits 80 columns beside the app's
    # `? help` and `^q quit`, so a row shown there is one a person needs on every item
    key_display: str | None = None  # how the Footer writes the key (one entry may stand for several keys)
    when: When = When.ALWAYS
    priority: bool = False  # runs before the focused widget sees the key
    task: Task = Task.OTHER  # help's heading for it

    def binding(self) -> Binding:
        return Binding(self.key, f"key('{self.id}')", self.description, show=self.footer, key_display=self.key_display,
                       priority=self.priority, tooltip=self.help, id=self.id)


ITEM = When.ITEM
GRADE, NOTE, MOVE, OPEN = Task.GRADE, Task.NOTE, Task.MOVE, Task.OPEN

KEYS: tuple[Key, ...] = (
    # grading the focused answer (tui/screens/grading/grades.py)
    *(Key(str(i), grades.grade, f"desk.grade.{grade}", "grade", f"grade the focused answer: {GRADE_LABELS[grade]}",
          args=(grade,), footer=i == 1, key_display="1-4" if i == 1 else None, when=ITEM, task=GRADE)
      for i, grade in enumerate(GRADES, start=1)),
    Key("f", grades.label, "desk.label", "label", "failure label of the focused answer (six labels)", when=ITEM,
        task=NOTE),
    Key("s", grades.scores, "desk.scores", "scores", "score correctness, grounding, completeness, conciseness 1-5",
        when=ITEM, task=NOTE),
    Key("e", grades.note, "desk.note", "note", "a note on the focused answer", footer=False, when=ITEM, task=NOTE),
    Key("left_square_bracket", grades.prefer, "desk.prefer.left", "prefer", "prefer the left answer (A)",
        args=("left",), key_display="[ ] =", footer=False, when=ITEM, task=NOTE),
    Key("right_square_bracket", grades.prefer, "desk.prefer.right", "prefer right", "prefer the right answer (B)",
        args=("right",), footer=False, when=ITEM, task=NOTE),
    Key("equals_sign", grades.prefer, "desk.prefer.tie", "tie", "the two answers are equally good", args=("tie",),
        footer=False, when=ITEM, task=NOTE),
    Key("u", grades.undo, "desk.undo", "undo", "take back your last grade, label or preference (an undo event)",
        when=ITEM, task=GRADE),
    # flagging the item for fixing the benchmark
    Key("exclamation_mark", grades.flag, "desk.flag", "flag",
        "flag the question for a fix: bad gold, ambiguous, other + note; ! again unflags",
        key_display="!", footer=False, when=ITEM, task=NOTE),
    # moving between the answers and the items (tui/screens/grading/moves.py)
    Key("tab", moves.switch, "desk.switch", "A/B", "focus the other answer (h: left A, l: right B)",
        priority=True, task=MOVE),
    Key("h", moves.focus_side, "desk.left", "left answer", args=("left",), footer=False, task=MOVE),
    Key("l", moves.focus_side, "desk.right", "right answer", args=("right",), footer=False, task=MOVE),
    Key("j", moves.step, "desk.next", "next", "next item (in the order the top bar names)", args=(1,),
        key_display="j/k", task=MOVE),
    Key("k", moves.step, "desk.previous", "previous", "previous item", args=(-1,), footer=False, task=MOVE),
    Key("n", moves.next_ungraded, "desk.next_ungraded", "ungraded", "next item with an answer you have not graded",
        footer=False, task=MOVE),
    Key("d", moves.next_disagreement, "desk.next_disagreement", "disagree",
        "next item where you and the machine grade differ", footer=False, task=MOVE),
    Key("g", opens.jump, "desk.jump", "jump", "jump to a question by its id", footer=False, task=MOVE),
    Key("ctrl+up", moves.scroll_question, "desk.question.up", "scroll question up", args=(-1,), footer=False,
        task=MOVE),
    Key("ctrl+down", moves.scroll_question, "desk.question.down", "scroll question down", args=(1,), footer=False,
        task=MOVE),
    # other screens over this one (tui/screens/grading/opens.py)
    Key("slash", opens.filters, "desk.filters", "filters", "filters: status, category, method, grades, confidence",
        key_display="/", footer=False, task=OPEN),
    Key("q", opens.queue, "desk.queue", "queue", "all items in a table", footer=False, task=OPEN),
    Key("b", opens.bundle, "desk.bundle", "evidence", "evidence browser: snippets, token bar, raw JSON", footer=False,
        when=ITEM, task=OPEN),
    Key("v", opens.diff, "desk.diff", "A vs B", "answer A against answer B, word by word (inserted, deleted words)",
        footer=False, when=ITEM, task=OPEN),
    Key("w", opens.as_written, "desk.as_written", "as written",
        "the focused answer as written (methods hidden: the panes show citations one way)", footer=False, when=ITEM,
        task=OPEN),
    Key("c", opens.claims, "desk.claims", "claims",
        "claim mode: check the focused answer claim by claim against its evidence", footer=False, when=ITEM,
        task=OPEN),
    Key("x", opens.explore, "desk.explore", "explore",
        "explore the item's question: raw hits and the bundle as the budget changes", footer=False, when=ITEM,
        task=OPEN),
    Key("t", opens.trace_link, "desk.trace", "trace URL", "copy the URL of the trace the focused answer came from",
        footer=False, when=ITEM, task=OPEN),
    Key("a", opens.agreement, "desk.agreement", "agreement",
        "agreement with the machine grader; Enter on a cell filters to it", footer=False, task=OPEN),
    Key("p", opens.team_progress, "desk.team_progress", "team progress",
        "the team's progress (gradedesk assign): per person assigned, graded, adjudicated", footer=False, task=OPEN),
)

BY_ID: dict[str, Key] = {k.id: k for k in KEYS}
BINDINGS: list[BindingType] = [k.binding() for k in KEYS]
