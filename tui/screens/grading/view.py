"""What the grading screen draws from its state: the top bar, the question block, the panes' titles. Pure functions
of the state (no widgets, no store); untrusted text goes through `literal`."""

from __future__ import annotations

from rich.text import Text

from gradedesk.core.review.item import AnswerView, Item
from gradedesk.core.review.queue import QuestionOrder
from gradedesk.core.review.session import DeskSession, RunInfo

from gradedesk.tui.widgets.answer_pane import PaneView
from gradedesk.tui.widgets.literal import literal

NO_ITEM = "No item matches: change the filters (/) or the order (command palette)."


def pane_view(session: DeskSession, side: str, item: Item | None = None) -> PaneView:
    """What the pane of `side` shows of the session's item (of `item`: what it would show, were that item shown)."""
    item = item or session.item
    a = item.at(side) if item else None
    methods = session.methods_visible(item)
    return PaneView(a, pane_title(side, a, methods), session.judge_visible(a, item), session.recheck, methods,
                    session.scorers_visible(a), session.judge_rubric,
                    bundle_budget=session.run.bundle_budget if session.run else 0, adjudicating=session.adjudicating)


def pane_title(side: str, answer: AnswerView | None, methods_visible: bool) -> str:
    letter = "A" if side == "left" else "B"
    if answer is None or not methods_visible:
        return f"Answer {letter}"
    if answer.origin is not None:  # read from an application's traces: its side's label (project)
        kind = answer.origin.side
    elif answer.method == "raw":
        kind = "raw top-k"
    else:  # an imported run may not say which budget its bundles had (budget 0)
        kind = f"bundle @ {answer.budget:,} tokens" if answer.budget else "bundle"
    return f"Answer {letter} — {kind}"


def preference_text(item: Item, preferred: str, methods_visible: bool) -> str:
    if preferred == "tie":
        return "tie"
    side = "A" if preferred == item.left_method else "B"
    answer = item.answers.get(preferred)
    # read from an application's traces: the side's label, as the pane's title names it
    name = answer.origin.side if answer is not None and answer.origin is not None else preferred
    return f"Answer {side} ({name})" if methods_visible else f"Answer {side}"


def question_text(item: Item | None, methods_visible: bool, order: QuestionOrder | None) -> Text:
    """The question's own id, its category, benchmark and place in the run, the preference, the question, the gold."""
    if item is None:
        return Text(NO_ITEM, style="italic")
    t = Text()
    t.append_text(literal(item.question_id, "bold"))
    t.append("  ")
    t.append_text(literal(item.category, "reverse"))
    t.append("  ", style="dim")
    t.append_text(literal(item.benchmark, "dim"))
    position = order.position(item.question_pk) if order is not None else None
    if order is not None and position is not None:
        t.append(f" · question {position:,} of {len(order):,}", style="dim")
    if item.preference:
        t.append("  decided: " if item.people else "  preferred: ", style="dim")
        t.append(preference_text(item, item.preference, methods_visible), style="bold")
    if item.people and item.people.preferences:
        t.append("\npreferences: ", style="dim")
        for i, p in enumerate(item.people.preferences):
            t.append(" · " if i else "")
            t.append_text(literal(p.grader, "bold"))
            t.append(" " + preference_text(item, p.preferred, methods_visible))
    t.append("\n")
    t.append_text(literal(item.question))
    t.append("\nGold: ", style="bold green")
    t.append_text(literal(item.gold_answer) if item.gold_answer else Text("(none)", style="dim"))
    return t


def order_text(order: str, index: int, length: int) -> str:
    return {"question": "question order", "most_useful": "most useful (sampled)",
            "recheck": f"recheck {index + 1}/{length}", "adjudicate": f"disputed {index + 1}/{length}"}[order]


def budget_on_topbar(run: RunInfo) -> bool:
    """The top bar names the bundled answer's budget: a chosen one, not the run's largest."""
    return run.bundle_budget != run.primary_budget


def status_budget(run: RunInfo, hide_methods: bool) -> int | None:
    """The budget the status line names before its figures (which are at the budget shown): the one the top bar does
    not name, when the run has bundled answers at more than one; None: the top bar names it, there is no choice, or
    method names are hidden (a budget would tell them)."""
    return run.bundle_budget if len(run.budgets) > 1 and not budget_on_topbar(run) and not hide_methods else None


def topbar_text(run: RunInfo | None, grader: str, mode: str, hide_methods: bool, order: str, filters: str,
                width: int = 0) -> Text:
    """The one-line top bar: the run, the grader, the mode, the bundled answer's budget when it is not the run's
    largest (chosen: the person must not forget it), whether methods are hidden, the order, the filters (in words:
    Filters.describe). When
    it is longer than `width` (0: no limit), the app's name and "filters: none" go, then the run's title is cut: the
    rest says how the person is grading, which matters more than the title they chose the run by."""
    def bar(title: str, full: bool) -> Text:
        t = Text(style="bold")
        if full:
            t.append("gradedesk")
            t.append(" │ ")
        t.append_text(literal(title))
        t.append(" │ grader ")
        t.append_text(literal(grader, "bold"))
        t.append(" │ ")
        t.append(mode, style="bold reverse" if mode != "blind" else "bold")
        if run is not None and budget_on_topbar(run):
            t.append(f" │ bundle @ {run.bundle_budget:,}", style="bold reverse")
        if hide_methods:
            t.append(" │ methods hidden")
        t.append(f" │ {order}")
        if full or filters != "none":
            t.append(" │ filters: ")
            t.append_text(literal(filters))
        return t

    title = run.title if run else "…"
    t = bar(title, full=True)
    if not width or t.cell_len <= width:
        return t
    t = bar(title, full=False)
    if t.cell_len > width:
        keep = max(len(title) - (t.cell_len - width) - 1, 8)
        t = bar(title[:keep] + "…" if keep < len(title) else title, full=False)
    t.truncate(width, overflow="ellipsis")
    return t
