"""Claim mode: one answer's claims, checked one by one against its evidence, by keyboard alone (`c` on the grading
screen opens it for the focused answer, Esc goes back).

The claims are listed on the left, the answer's evidence on the right: j/k move between claims; the evidence a claim
cites is scrolled into view and highlighted (the cited lines, or the lines of the cited snippet that match the claim
best); for a claim that cites nothing, the best-matching evidence lines are marked as a suggestion. Single keys mark
the claim (s supported, w supported but not by what it cites, x unsupported, n not a factual claim) and move on; u
takes back the newest mark. Marks are append-only events (core/grading/claim_marks.py), each one store job
(core/review/claim_desk.py) with the claim it was meant for. Blind first: the machine faithfulness verdicts stay
hidden until every claim is marked (core/review/visibility.py).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from gradedesk.core.grading.claim_marks import MARK_LABELS
from gradedesk.core.review import claim_desk
from gradedesk.core.review.claim_desk import ClaimMark, ClaimSheet
from gradedesk.core.review.session import Job
from gradedesk.core.review.visibility import Blindness

from gradedesk.tui.db import ClaimMarked, ClaimsOpened, ClaimUndone
from gradedesk.tui.desk_protocol import Desk
from gradedesk.tui.widgets.block_view import BlockView
from gradedesk.tui.widgets.claim_view import claim_evidence_blocks, claim_prompt, figures_text
from gradedesk.tui.widgets.literal import literal
from gradedesk.tui.widgets.status_line import StatusLine


def _mark_binding(key: str, mark: str, show: bool = True) -> Binding:
    return Binding(key, f"mark('{mark}')", MARK_LABELS[mark] if mark != "miscited" else "miscited", show=show,
                   tooltip=f"mark the claim: {MARK_LABELS[mark]}, and go to the next", id=f"claims.{mark}")


class EvidenceView(BlockView):
    """The answer's evidence, scrolled to what the claim in view cites."""


class ClaimScreen(Screen):
    BINDINGS = [
        # the Footer shows the marks, undo and back (with the app's `? help` and `^q quit`: 78 columns); help the rest
        Binding("j", "move(1)", "next", show=False, id="claims.next"),
        Binding("k", "move(-1)", "previous", show=False, id="claims.previous"),
        _mark_binding("s", "supported"),
        _mark_binding("w", "miscited"),
        _mark_binding("x", "unsupported"),
        _mark_binding("n", "not_claim", show=False),
        Binding("u", "undo", "undo", tooltip="take back your newest mark on this answer (stored as an undo event)",
                id="claims.undo"),
        Binding("tab", "switch", "claims/evidence", show=False, id="claims.switch"),
        Binding("escape", "leave", "back", tooltip="back to the grading screen", id="claims.close"),
    ]

    def __init__(self, desk: Desk, answer_id: int, title: str, question: str, *, show_judge: bool,
                 evidence_label: str, methods_visible: bool = True) -> None:
        super().__init__()
        self.desk = desk
        self.answer_id = answer_id
        self.title_text = title
        self.question = question
        self.show_judge = show_judge
        self.evidence_label = evidence_label if methods_visible else "Evidence"
        self.neutral = not methods_visible  # --hide-methods: nothing here may tell raw from bundled
        self.sheet: ClaimSheet | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text.assemble("Claims │ ", literal(self.title_text), style="bold"), id="claims-title", markup=False)
        yield Static(literal(self.question), id="claims-question", markup=False)
        yield Static("Loading the claims…", id="claims-figures", markup=False)
        with Horizontal(id="claims-body"):
            yield OptionList(id="claims-list")
            yield EvidenceView(id="claims-evidence")
        yield StatusLine("", id="claims-status")
        yield Footer(show_command_palette=False)  # no room at 80 columns; help names ctrl+p

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        answer_id, grader = self.answer_id, self.desk.config.grader
        self.desk.submit(ClaimsOpened, Job("open claims", lambda store: claim_desk.open_claims(store, answer_id, grader)),
                         self._opened)

    # What is on screen -----------------------------------------------------------------------------------------------

    @property
    def scorers_visible(self) -> bool:
        due = self.sheet is not None and self.sheet.state.scorers_due
        return Blindness(show_judge=self.show_judge).scorers(due=due)

    def _neutral(self) -> list | None:
        """The evidence that citations are written against, with method names hidden; None when they show."""
        return self.sheet.evidence if self.neutral and self.sheet else None

    @property
    def current(self) -> int | None:
        """The index (0-based) of the claim in view."""
        return self.query_one(OptionList).highlighted

    def _opened(self, sheet: ClaimSheet) -> None:
        self.sheet = sheet
        options = self.query_one(OptionList)
        options.add_options([Option(claim_prompt(c, sheet.marks.get(c.index), self._neutral())) for c in sheet.claims])
        self._show_figures()
        if not sheet.claims:
            self.query_one(EvidenceView).set_blocks([Text("This answer makes no claims.", style="italic")])
            return
        unmarked = next((i for i, c in enumerate(sheet.claims) if c.index not in sheet.marks), 0)
        options.highlighted = unmarked
        self.query_one(StatusLine).show_progress(self._progress())

    def _progress(self) -> str:
        f = self.sheet.state.figures if self.sheet else None
        return f"claim mode: {f.marked} of {f.claims} claims marked" if f else "claim mode"

    def _show_figures(self) -> None:
        if self.sheet is not None:
            self.query_one("#claims-figures", Static).update(figures_text(self.sheet, self.scorers_visible))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_evidence()

    def _show_evidence(self) -> None:
        index = self.current
        if self.sheet is None or index is None:
            return
        view = self.query_one(EvidenceView)
        blocks, target, row = claim_evidence_blocks(self.sheet, index, self.evidence_label, self.neutral)
        view.set_blocks(blocks)
        if target is None:
            return
        top = view.block_line(target)
        if top is not None:  # the first highlighted line in view: with the note on what the claim cites above it
            # (from the top) when both fit, else with the cited snippet's header, else two lines below the view's top
            header = view.block_line(target - 1) or 0
            fits = view.size.height - 2
            y = 0 if top + row < fits else header if top + row - header < fits else top + row - 2
            view.scroll_to(y=y, animate=False)

    def _set_marks(self, marks: dict[int, str]) -> None:
        sheet = self.sheet
        assert sheet is not None  # marks come back only from actions on an opened sheet
        was_due = sheet.state.scorers_due
        changed = [c for c in sheet.claims if sheet.marks.get(c.index) != marks.get(c.index)]
        sheet.marks = marks
        options = self.query_one(OptionList)
        for c in changed:
            options.replace_option_prompt_at_index(c.index - 1, claim_prompt(c, marks.get(c.index), self._neutral()))
        if sheet.state.figures.complete and not was_due:
            sheet.seen = True
            self.desk.report("every claim marked: the machine faithfulness verdicts are shown beside yours")
        self._show_figures()
        self.query_one(StatusLine).show_progress(self._progress())

    # Actions ---------------------------------------------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        self.query_one(StatusLine).clear_message()  # this key's message, or none: never an older one's
        options, index = self.query_one(OptionList), self.current
        if self.sheet is None or index is None:
            return
        target = index + step
        if 0 <= target < len(self.sheet.claims):
            options.highlighted = target
        else:
            self.desk.report("last claim" if step > 0 else "first claim")

    def action_mark(self, what: str) -> None:
        self.query_one(StatusLine).clear_message()  # this key's message, or none: never an older one's
        sheet, index = self.sheet, self.current
        if sheet is None or index is None:
            return
        claim, claims, grader = sheet.claims[index], list(sheet.claims), self.desk.config.grader
        answer_id, visible = sheet.answer_id, self.scorers_visible
        self.desk.submit(ClaimMarked, Job("mark claim", lambda store: claim_desk.mark(
            store, answer_id, grader, claims, claim, what, scorers_visible=visible)), self._set_marks)
        if index + 1 < len(claims):  # on to the next claim at once: the next key marks that one
            self.query_one(OptionList).highlighted = index + 1

    def action_undo(self) -> None:
        self.query_one(StatusLine).clear_message()  # this key's message, or none: never an older one's
        sheet = self.sheet
        if sheet is None:
            return
        claims, grader, answer_id, visible = list(sheet.claims), self.desk.config.grader, sheet.answer_id, \
            self.scorers_visible

        def done(result: tuple[ClaimMark | None, dict[int, str]]) -> None:
            undone, marks = result
            if undone is None:
                self.desk.report("no mark of yours on this answer to undo")
                return
            self._set_marks(marks)
            if undone.claim_index <= len(sheet.claims):
                self.query_one(OptionList).highlighted = undone.claim_index - 1
            self.desk.report(f"undone: claim {undone.claim_index} {MARK_LABELS[undone.mark]} "
                             "(a new undo event; nothing was deleted)")
        self.desk.submit(ClaimUndone, Job("undo claim mark", lambda store: claim_desk.undo(
            store, answer_id, grader, claims, scorers_visible=visible)), done)

    def action_switch(self) -> None:
        target = "#claims-evidence" if self.query_one(OptionList).has_focus else "#claims-list"
        self.query_one(target).focus()

    def action_leave(self) -> None:
        self.dismiss(self.answer_id)
