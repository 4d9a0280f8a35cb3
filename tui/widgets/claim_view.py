"""What claim mode draws, as pure functions of its data (no widgets, no store): a claim's line in the list, the
evidence with the cited lines (or a suggestion) highlighted, the figures beside the scorers. Untrusted text (the
answer's claims, the evidence) goes through `literal`/`code`, never markup."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from gradedesk.core.grading.claim_marks import MARK_LABELS
from gradedesk.core.evidence.record import Evidence
from gradedesk.core.grading.claims import Claim, Focus
from gradedesk.core.review.blind import neutral_answer
from gradedesk.core.review.claim_desk import ClaimSheet

from gradedesk.tui.widgets.answer_pane import share_text, snippet_header, snippet_text
from gradedesk.tui.widgets.literal import literal

MARK_GLYPHS = {"supported": ("✓", "bold green"), "miscited": ("~", "bold yellow"), "unsupported": ("✗", "bold red"),
               "not_claim": ("–", "dim"), None: ("·", "dim")}
CITED_LINE = "on #264f78"  # lines a claim cites, or the lines of its cited evidence that match it best
SUGGESTED_LINE = "on #4d3d00"  # best-matching lines of a claim that cites nothing: a suggestion, not a citation


def claim_prompt(claim: Claim, mark: str | None, neutral: list[Evidence] | None = None) -> Text:
    """One claim in the list: its mark, number and text, then each invalid citation with the reason. `neutral` (the
    evidence, with method names hidden): citations written one way (core/review/blind.py), problems without detail."""
    glyph, style = MARK_GLYPHS[mark]
    t = Text()
    t.append(f"{glyph} ", style=style)
    t.append(f"{claim.index:>2} ", style="bold")
    t.append_text(literal(claim.text if neutral is None else neutral_answer(claim.text, neutral)))
    if not claim.cited:
        t.append("  (no citation)", style="dim italic")
    for c in claim.citations:
        if not c.valid:
            t.append("\n   ✗ ", style="bold red")
            t.append_text(literal(f"{c.target}: {c.problem}" if neutral is None
                                  else "cites what is not in the evidence", "red"))
    return t


def _highlighted(text: Text, rows: set[int], style: str) -> Text:
    """A copy of numbered code with the given rows (0-based) in `style`."""
    out = text.copy()
    start = 0
    for row, line in enumerate(text.plain.split("\n")):
        if row in rows:
            out.stylize(style, start, start + len(line))
        start += len(line) + 1
    return out


def focus_note(claim: Claim, focus: Focus) -> Text:
    if focus.suggested:
        if not focus.lines:
            return Text(f"Claim {claim.index} cites nothing, and no evidence line matches it well enough to "
                        "suggest one.", style="italic")
        t = Text()
        t.append(f"Claim {claim.index} cites nothing: ", style="italic")
        t.append("the best-matching lines are marked as a suggestion", style=f"italic {SUGGESTED_LINE}")
        return t
    cited = ", ".join(f"Evidence {p}" for p in focus.evidence)
    t = Text()
    t.append(f"Claim {claim.index} cites ", style="italic")
    t.append(cited, style="bold")
    t.append(" (highlighted)", style=f"italic {CITED_LINE}")
    return t


def claim_evidence_blocks(sheet: ClaimSheet, index: int, label: str,
                          neutral: bool = False) -> tuple[list[RenderableType], int | None, int]:
    """The evidence pane for claim `index` (0-based): blocks, the block to scroll to, and the row inside it.

    Blocks are: the note on what the claim cites, then per evidence item its header and its code (so evidence i's
    code is block 2 + 2i). The cited items' headers are marked; the focus lines are highlighted.
    """
    claim, focus = sheet.claims[index], sheet.focus[index]
    rows: dict[int, set[int]] = {}
    for where in focus.lines:
        rows.setdefault(where.position, set()).add(where.line)
    style = SUGGESTED_LINE if focus.suggested else CITED_LINE
    blocks: list[RenderableType] = [focus_note(claim, focus)]
    target, target_row = None, 0
    for i, e in enumerate(sheet.evidence):
        position = e.position if e.position is not None else i + 1
        header = snippet_header(e, label, neutral=neutral)
        if position in focus.evidence:
            header[0] = Text("▶ cited  ", style=f"bold {CITED_LINE}").append_text(header[0])
        elif position in rows:
            header[0] = Text("◆ suggested  ", style=f"bold {SUGGESTED_LINE}").append_text(header[0])
        blocks.append(Group(*header))
        first = e.start_line if e.start_line is not None else 1
        body = snippet_text(e)
        wanted = {line - first for line in rows.get(position, ())}
        blocks.append(_highlighted(body, wanted, style) if wanted else body)
        if target is None and (position in focus.evidence or wanted):
            target, target_row = 2 + 2 * i, min(wanted) if wanted else 0
    return blocks, target, target_row


def figures_text(sheet: ClaimSheet, scorers_visible: bool) -> Text:
    """The person's figures so far, beside the machine faithfulness verdicts (hidden until every claim is marked)."""
    f = sheet.state.figures
    t = Text()
    t.append("You: ", style="bold")
    t.append(f"{f.marked} of {f.claims} claims marked")
    for mark, n in (("supported", f.supported), ("miscited", f.miscited), ("unsupported", f.unsupported),
                    ("not_claim", f.not_claims)):
        if n:
            t.append(f" · {n} {MARK_LABELS[mark]}", style=MARK_GLYPHS[mark][1])
    t.append("\nFaithfulness: ", style="bold")
    t.append(f"you {share_text(f.faithfulness)}" + ("" if f.complete else " (so far)"), style="bold")
    t.append(f" · citation precision {share_text(f.citation_precision)}")
    t.append("\nScorers: ", style="bold")
    if not sheet.scorers:
        t.append("no faithfulness scorer ran on this answer", style="dim")
    elif not scorers_visible:
        names = ", ".join(s.method for s in sheet.scorers)
        t.append(f"hidden until you have marked every claim (blind first): {names}", style="dim italic")
    else:
        for n, s in enumerate(sheet.scorers):
            t.append(f"{' · ' if n else ''}{s.method} ")
            t.append(share_text(s.value), style="bold")
            if s.claims is not None:
                t.append(f" ({s.supported} of its {s.claims} claims supported)", style="dim")
    return t
