"""One answer of the side-by-side pair: the person's grade, the judge (when revealed), the answer, its evidence.

With method names hidden (--hide-methods, until both answers are graded) both panes show everything in one plain form:
evidence as file:lines and text under a title without a count (no label, symbol, bundle header, token bar, coverage
notes, roles, reasons, retrieval scores or token counts), no answer scores, and the answer's and the judge's
citations written one way; a line shown otherwise than the answer has it is marked so on that line (the `w` key shows
the answer as written). What still differs by nature, how many snippets and how long, help and the README name.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.console import Group, RenderableType
from rich.rule import Rule
from rich.text import Text

from gradedesk.core.grading.vocabulary import DIMENSIONS, GRADE_LABELS, GRADE_SHORT_LABELS
from gradedesk.core.store.assignments import AssignedGrade
from gradedesk.core.store.grades import HumanGrade
from gradedesk.core.evidence.record import Evidence
from gradedesk.core.exchange.traces import trace_url
from gradedesk.core.review.blind import changed_lines, neutral_answer
from gradedesk.core.review.claim_desk import ClaimState
from gradedesk.core.review.item import AnswerView, MachineGrade
from gradedesk.core.text.tokens import count_tokens

from gradedesk.tui.idle_work import Step
from gradedesk.tui.widgets.block_view import BlockView
from gradedesk.tui.widgets.literal import code, literal, token_bar

GRADE_STYLE = {"fully_correct": "bold green", "partially_correct": "bold yellow", "unsupported": "bold magenta",
               "wrong": "bold red"}


@dataclass(frozen=True)
class PaneView:
    """What one pane shows, decided by the grading screen."""
    answer: AnswerView | None
    title: str
    judge_visible: bool
    recheck: bool
    methods_visible: bool = True
    scorers_visible: bool = False  # the machine faithfulness verdicts (blind first: after the claims are marked)
    judge_rubric: str | None = None  # the judge verdicts shown are under this rubric version (None: the newest)
    bundle_budget: int = 0  # the budget of the bundled answer on the desk (a raw grade may have been saved beside another)
    adjudicating: bool = False  # a lead deciding: the answer's grade is the decision, the people's grades beside it


def people_block(people: tuple[AssignedGrade, ...]) -> Text:
    """The assigned people's grades of the answer, one line each: grade, label and note (a lead adjudicating)."""
    t = Text("The people assigned:", style="bold")
    if not people:
        t.append(" no grade yet", style="dim")
    for g in people:
        t.append("\n  ")
        t.append_text(literal(g.grader, "bold"))
        t.append(": ")
        t.append_text(grade_text(g.grade))
        if g.failure_label:
            t.append(f" · {g.failure_label}")
        if g.note:
            t.append(" · ")
            t.append_text(literal(g.note, "italic"))
    return t


def grade_text(grade: str | None, *, short: bool = False) -> Text:
    if not grade:
        return Text("—", style="dim")
    return Text((GRADE_SHORT_LABELS if short else GRADE_LABELS).get(grade, grade), style=GRADE_STYLE.get(grade, "bold"))


def human_block(h: HumanGrade | None, recheck: bool, adjudicating: bool = False,
                beside: tuple[int, int] | None = None) -> Text:
    """The person's grade (a lead adjudicating: the decision); `beside`: (the budget a raw answer's grade was saved
    beside, the one beside it now) when they differ."""
    t = Text()
    t.append("Decision: " if adjudicating else "Your recheck grade: " if recheck else "Your grade: ", style="bold")
    if h is None or not h.grade:
        t.append("not graded — press 1-4", style="dim")
        if h is None or not (h.failure_label or h.note or any(getattr(h, d) is not None for d in DIMENSIONS)):
            return t
    else:
        t.append_text(grade_text(h.grade))
    if h.is_revision:
        t.append("  (revised after reveal)", style="italic")
    if beside is not None:
        t.append(f"\n  graded beside the {beside[0]:,}-token answer, shown now beside {beside[1]:,}: the grade is the "
                 "raw answer's own", style="bold yellow")
    t.append("\n  label: ")
    t.append(h.failure_label or "—")
    t.append("\n  scores: ")
    t.append(" · ".join(f"{d} {getattr(h, d) if getattr(h, d) is not None else '—'}" for d in DIMENSIONS))
    if h.note:
        t.append("\n  note: ")
        t.append_text(literal(h.note, "italic"))
    return t


def machine_block(m: MachineGrade | None, visible: bool, recheck: bool, judge_rubric: str | None = None) -> Text:
    """The machine grade (`judge_rubric`: the rubric version the person chose to see the judge's verdicts under)."""
    if m is None and judge_rubric is not None:
        return literal(f"No judge verdict under rubric {judge_rubric} for this answer (command palette: another).",
                       "dim")
    if m is None:
        return Text("No machine grade for this answer: `gradedesk grade-offline RUN` grades it with the rule grader, "
                    "`gradedesk judge RUN --model M` with an LLM judge.", style="dim")
    if not visible:
        why = "recheck pass: hidden" if recheck else "hidden until you save your grade (blind first)"
        under = f" under rubric {judge_rubric}" if judge_rubric is not None else ""
        return literal(f"{m.source}{under}: {why}", "dim italic")
    t = Text()
    t.append(f"{m.source}: ", style="bold")
    t.append_text(grade_text(m.grade))
    if m.failure_label:
        t.append(f" · {m.failure_label}")
    if m.confidence is not None:
        t.append(f" · confidence {m.confidence:.2f}")
    if m.rubric_version:
        t.append_text(literal(f" · rubric {m.rubric_version}", "dim"))
    if m.stale:
        t.append(" · stale: made against an older gold answer", style="bold yellow")
    if m.reasoning:
        t.append("\n  ")
        t.append_text(literal(m.reasoning))
    return t


def reasoning_fold(thinking: str) -> Text:
    """The model's reasoning, folded to one line: it is not the answer, and it can be long (its tokens are part of the
    answer's tokens out)."""
    lines = thinking.strip().splitlines() or [""]
    t = Text(f"▸ reasoning ({count_tokens(thinking):,} tokens, {len(lines)} lines): ", style="dim")
    t.append_text(literal(lines[0][:120] + ("…" if len(lines[0]) > 120 or len(lines) > 1 else ""), "dim italic"))
    return t


def scores_text(scores: list[tuple[str, str, float | None]], scorers_visible: bool) -> Text:
    """The answer's scores; machine faithfulness only once blind first allows (core/review/blind.py)."""
    shown = [f"{m} {'—' if v is None else f'{v:.2f}'} ({meth})" for m, meth, v in scores
             if scorers_visible or m != "faithfulness"]
    hidden = [meth for m, meth, _ in scores if not scorers_visible and m == "faithfulness"]
    if hidden:
        shown.append(f"faithfulness ({', '.join(hidden)}): hidden until you mark the claims (c)")
    return literal("  ".join(shown), "dim")


def claims_line(state: ClaimState) -> Text:
    """'claims 7 · 2 invalid citations · you marked 7 of 7: faithfulness 0.75, citation precision 0.67'."""
    f = state.figures
    t = Text()
    t.append(f"claims {state.claims}", style="bold")
    if state.invalid:
        t.append(f" · {state.invalid} invalid citation{'s' if state.invalid != 1 else ''}", style="bold red")
    t.append(f" · you marked {f.marked} of {state.claims}")
    if f.complete and state.claims:
        t.append(": faithfulness ")
        t.append(share_text(f.faithfulness), style="bold")
        t.append(", citation precision ")
        t.append(share_text(f.citation_precision), style="bold")
    t.append("  (c: claim mode)", style="dim")
    return t


def share_text(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def snippets_of(a: AnswerView) -> list[Evidence]:
    return (a.bundle.snippets if a.bundle else []) + a.evidence


def snippet_block(s: Evidence, label: str = "Evidence", *, highlight: bool = True, neutral: bool = False) -> Group:
    """One piece of evidence; `neutral`: file:lines and text only (nothing that tells how it was chosen)."""
    return Group(*snippet_header(s, label, neutral=neutral), snippet_text(s, highlight=highlight))


def snippet_text(s: Evidence, *, highlight: bool = True) -> Text:
    if s.text:
        return code(s.text, s.file_path, s.start_line, highlight=highlight)
    return Text("  text not recorded", style="dim italic")  # a run log that named only the files it used


def snippet_header(s: Evidence, label: str = "Evidence", *, neutral: bool = False) -> list[Text]:
    """What is shown above a piece of evidence: label, location, symbol and how it was chosen; `neutral`: its location
    only (a bundle's labels and symbols, which raw hits seldom have, would tell them apart)."""
    if neutral:
        return [literal(s.location, "bold cyan")]
    head = Text(f"[{label} {s.position}] ", style="bold cyan")
    head.append_text(literal(s.location, "bold"))
    if s.symbol_name:
        head.append(" :: ")
        head.append_text(literal(s.symbol_name, "bold"))
    parts: list[Text] = [head]
    meta = []
    if s.retrieval_method:
        meta.append(s.retrieval_method)
    if s.relevance_score is not None:
        meta.append(f"score {s.relevance_score:.4f}")
    if s.retrieval_rank is not None:
        meta.append(f"rank {s.retrieval_rank}")
    if s.token_count is not None:
        meta.append(f"{s.token_count:,} tokens")
    head.append_text(literal(f"  [{', '.join(meta)}]" if meta else "", "dim"))
    if s.evidence_role or s.selection_reason:
        why = Text("  role: ", style="dim")
        why.append_text(literal(s.evidence_role or "—"))
        why.append("  reason: ", style="dim")
        why.append_text(literal(s.selection_reason or "—"))
        parts.append(why)
    for key, value in s.extra.items():
        if key not in ("chunk_id", "content_hash"):
            parts.append(literal(f"  {key}: {value}", "dim"))
    return parts


def _evidence_title(evidence: list[Evidence]) -> str:
    if evidence and not any(e.text for e in evidence):
        return f"Evidence files ({len(evidence)})"
    return f"Retrieved hits ({len(evidence)})"


def neutral_evidence_blocks(a: AnswerView, highlight: bool) -> list[RenderableType]:
    """Evidence as the same plain list for either method (methods hidden)."""
    evidence = snippets_of(a)
    if not evidence and not a.evidence_problem:
        return [Text("No evidence stored for this answer.", style="dim")]
    out: list[RenderableType] = [Rule(Text("Evidence"), style="cyan")]  # no count: a bundle has more snippets
    if a.evidence_problem:
        out.append(Text(a.evidence_problem, style="yellow"))
        out.append(literal(a.evidence_raw))
    out.extend(snippet_block(s, highlight=highlight, neutral=True) for s in evidence)
    return out


def bundle_and_hits_blocks(a: AnswerView, highlight: bool) -> list[RenderableType]:
    """Evidence as the answer's method recorded it: the bundle (its header, token bar, notes and snippets with how
    each was chosen), then the retrieved hits."""
    out: list[RenderableType] = []
    b = a.bundle
    if b is not None:
        out.append(Rule(literal(f"Bundle {b.id} · {b.question_type}"), style="cyan"))
        bar = token_bar(b.total_tokens, b.token_budget)
        bar.append(f"  {b.tokenizer}", style="dim")
        out.append(bar)
        if b.strategies:
            out.append(literal("strategies: " + ", ".join(b.strategies), "dim"))
        for note in b.coverage_notes:
            out.append(Text("coverage: ", style="bold").append_text(literal(note)))
        for warning in b.warnings:
            out.append(Text("warning: ", style="bold yellow").append_text(literal(warning)))
        out.extend(snippet_block(s, highlight=highlight) for s in b.snippets)
    elif a.method == "bundle" and not a.evidence:
        out.append(Text("No bundle stored for this answer.", style="dim"))
    if a.evidence or a.evidence_problem:
        out.append(Rule(Text(_evidence_title(a.evidence)), style="cyan"))
        if a.evidence_problem:
            out.append(Text(a.evidence_problem, style="yellow"))
            out.append(literal(a.evidence_raw))
        out.extend(snippet_block(s, "Hit", highlight=highlight) for s in a.evidence)
    elif a.method == "raw":
        out.append(Text("No evidence stored for this answer.", style="dim"))
    return out


CHANGED = " ‹changed›"


def neutral_text(text: str, evidence: list[Evidence]) -> Text:
    """The answer as shown while methods are hidden (core/review/blind.py neutral_answer), each line that differs
    from the answer as written marked so at its end."""
    shown = neutral_answer(text, evidence)
    out = Text()
    for n, (line, changed) in enumerate(zip(shown.split("\n"), changed_lines(text, shown))):
        if n:
            out.append("\n")
        out.append_text(literal(line))
        if changed:
            out.append(CHANGED, style="dim italic")
    return out


def pane_blocks(view: PaneView, *, highlight: bool = True) -> list[RenderableType]:
    """The pane's content, block by block; with highlight=False, code not highlighted yet is shown plain."""
    a = view.answer
    if a is None:
        return [Text("No answer of this kind in the run: nothing to grade here (tab: the other answer).",
                     style="dim")]
    machine = a.machine
    if machine is not None and machine.reasoning and not view.methods_visible:  # a judge may quote "[Evidence 2]"
        machine = replace(machine, reasoning=neutral_answer(machine.reasoning, snippets_of(a)))
    other = a.graded_beside_other(view.bundle_budget) if view.methods_visible and not view.recheck else None
    parts: list[RenderableType] = [human_block(a.human, view.recheck, view.adjudicating,
                                               None if other is None else (other, view.bundle_budget))]
    if view.adjudicating:
        parts.append(people_block(a.people))
    parts += [machine_block(machine, view.judge_visible, view.recheck, view.judge_rubric), Rule(style="dim")]
    if a.status != "ok":
        parts.append(Text(f"status: {a.status}", style="bold yellow"))
        if a.error:
            parts.append(literal(a.error, "yellow"))
    if a.thinking:
        parts.append(reasoning_fold(a.thinking))
    if not a.text:
        parts.append(Text("(empty answer)", style="dim"))
    elif view.methods_visible:
        parts.append(literal(a.text))
    else:  # "[Evidence 2]" against "File: x.py" would tell bundled from raw
        parts.append(neutral_text(a.text, snippets_of(a)))
        parts.append(Text(f"methods hidden: citations as [source: …];{CHANGED}: not as written (w)",
                          style="dim italic"))
    if a.truncated:
        parts.append(Text("truncated: cut at the run's max_tokens (finish_reason length)", style="bold yellow"))
    if a.origin is not None and view.methods_visible:  # the project names the side
        link = " (t: copy URL)" if trace_url(a.origin) is not None else ""  # a file's trace has no URL to copy
        parts.append(literal(f"from {a.origin.source} {a.origin.project} · trace {a.origin.trace_id}{link}", "dim"))
    usage = [f"{n} {v:,}" for n, v in (("tokens in", a.tokens_in), ("out", a.tokens_out)) if v is not None]
    if usage and view.methods_visible:  # prompt tokens follow the budget
        parts.append(Text(" · ".join(usage), style="dim"))
    if a.scores and view.methods_visible:  # retrieval scores (file recall) differ by method
        parts.append(scores_text(a.scores, view.scorers_visible))
    if a.claims is not None:
        parts.append(claims_line(a.claims))
    parts.extend(bundle_and_hits_blocks(a, highlight) if view.methods_visible
                 else neutral_evidence_blocks(a, highlight))
    return parts


class AnswerPane(BlockView):
    """One answer, focusable and scrollable; tab or h/l moves focus between the two."""

    def __init__(self, side: str, **kwargs) -> None:
        super().__init__(id=side, **kwargs)
        self.side = side
        self._title: str | None = None

    def show(self, view: PaneView, *, new_item: bool = True, highlighted: bool = False) -> None:
        """Show `view`; code not highlighted yet appears plain until the screen's highlight worker is done
        (`highlighted`: it is; a rendering kept from when it was is taken first)."""
        if view.title != self._title:  # setting a title converts and repaints it, even the same one (most items')
            self._title = view.title
            self.border_title = literal(view.title)  # a Text: a side label is never markup, its controls shown
        key = (view, True) if highlighted or self.kept((view, True)) else (view, False)
        self.show_keyed(key, lambda: pane_blocks(view, highlight=False), keep_scroll=not new_item)

    def prepare(self, view: PaneView, *, highlighted: bool = False) -> Step:
        """A step that renders the first screenful of `view` a block a call, then paints the pane with it, before it
        is shown (a neighbour the desk prepared; `highlighted`: the item shown, its code in colour, before `show` swaps
        it in)."""
        return self.prerender((view, highlighted), lambda: pane_blocks(view, highlight=highlighted),
                              literal(view.title))
