"""What the explore screen draws, as Rich Text: the raw top-k hits with every method's rank and score, and the bundle at
a budget with its step marks, left-out candidates, coverage notes and warnings.

Functions of core/evidence/explore.py's records and nothing else, so the benchmark can time exactly what the screen
draws. Paths, symbols, reasons and notes come from the indexed code: literal text only.
"""

from __future__ import annotations

from rich.text import Text

from gradedesk.core.evidence.compile import evidence_role
from gradedesk.core.evidence.explore import Compiled, Retrieval, Step, method_ranks
from gradedesk.core.retrieval.hybrid import Hit

from gradedesk.tui.widgets.literal import code, literal

MARK_STYLES = {"new": "bold green", "grown": "green", "cut": "yellow", "shifted": "yellow", "same": "dim"}


def methods_text(hit: Hit) -> Text:
    """`bm25 #3 9.26 · graph #1 called by X · fused #2 0.0325`: the numbers `retrieve --json` prints."""
    t = Text("  ")
    for m in method_ranks(hit):
        t.append(f"{m.method} #{m.rank} ", style="cyan")
        t.append(str(m.score))  # as stored and as `retrieve --json` prints it
        if m.method in ("graph", "symbol", "path") and m.note:
            t.append(" ")
            t.append_text(literal(m.note, "italic"))
        t.append(" · ")
    t.append(f"fused #{hit.rank} {hit.score}", style="bold")
    return t


def _where(path: str, start: int, end: int, symbol: str | None) -> Text:
    t = literal(f"{path}:{start}-{end}", "bold")
    if symbol:
        t.append(" ")
        t.append_text(literal(symbol, "magenta"))
    return t


def raw_text(retrieval: Retrieval, compiled: Compiled | None) -> Text:
    """The raw side: the top RAW_K hits a run's raw answer sees, each with its role, its methods, and where it went in
    the bundle in view."""
    in_bundle = {s.chunk_id: i for i, s in enumerate(compiled.bundle.snippets, start=1)} if compiled else {}
    t = Text()
    t.append(f"Raw top {len(retrieval.raw)}", style="bold underline")
    t.append(" (what a run's raw answer sees)", style="dim")
    if not retrieval.hits:
        t.append("\nno hits", style="dim")
    targets = list(retrieval.info.identifiers)
    for hit in retrieval.raw:
        t.append(f"\n{hit.rank:>2} ", style="bold cyan")
        t.append_text(_where(hit.file_path, hit.start_line, hit.end_line, hit.symbol_name))
        t.append(f" {evidence_role(hit, targets)}", style="italic")
        t.append(f" {hit.token_count:,} tok", style="dim")
        n = in_bundle.get(hit.chunk_id)
        if compiled is not None:
            t.append(f" → E{n}" if n else " left out", style="green" if n else "dim")
        t.append("\n")
        t.append_text(methods_text(hit))
    return t


def bundle_text(retrieval: Retrieval, compiled: Compiled, moved: Step, *, show_code: bool = False) -> Text:
    """The bundle side: each snippet with its mark against the budget before, then what was left out and why, the
    coverage notes and the warnings (the token bar and the step's line are the screen's head)."""
    b = compiled.bundle
    t = Text()
    t.append(f"Bundle at {compiled.budget:,}", style="bold underline")
    t.append(f" {len(b.snippets)} snippets, {b.total_tokens:,} tokens", style="dim")
    for i, s in enumerate(b.snippets, start=1):
        mark = moved.marks.get(s.chunk_id, "new")
        t.append(f"\n{mark:>7} ", style=MARK_STYLES.get(mark, ""))
        t.append(f"E{i} ", style="bold cyan")
        t.append_text(_where(s.file_path, s.start_line, s.end_line, s.symbol_name))
        t.append(f" {s.evidence_role}", style="italic")
        t.append(f" {s.token_count:,} tok", style="dim")
        t.append("\n  ")
        t.append_text(literal(str(s.selection_reason or ""), "dim"))
        if show_code:
            t.append("\n")
            t.append_text(code(s.text, s.file_path, s.start_line, highlight=False))
    for s in moved.gone:
        t.append("\n   gone ", style="red")
        t.append_text(_where(s.file_path, s.start_line, s.end_line, s.symbol_name))
    t.append(f"\n\nLeft out ({len(compiled.left_out)})", style="bold underline")
    t.append("\n")
    t.append_text(literal(retrieval.candidates_note, "dim"))
    for x in compiled.left_out:
        t.append(f"\n{x.rank or '-':>3} ", style="bold cyan")
        t.append_text(literal(x.location))
        if x.symbol_name:
            t.append(" ")
            t.append_text(literal(x.symbol_name, "magenta"))
        t.append(f" {x.role}: ", style="italic")
        t.append_text(literal(x.reason))
    t.append("\n\nCoverage", style="bold underline")
    for note in b.coverage_notes:
        t.append("\n· ")
        t.append_text(literal(note))
    for warning in b.warnings:
        t.append("\nwarning: ", style="bold yellow")
        t.append_text(literal(warning))
    return t
