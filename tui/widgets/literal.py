"""Untrusted text, shown literally.

Answers, evidence, questions, notes, judge reasoning, run labels, side labels and names come from outside. They are
never parsed as Rich/Textual markup (they go into `rich.text.Text`, not into markup strings), and they pass through
core's one sanitizer (core/text/terminal.py): control characters such as ESC and bidi overrides are shown as visible
escapes (`\\x1b`, `\\u202e`), so an ANSI sequence in an answer can neither colour nor break the screen, and a label
cannot turn text around. Every body, title, border title and label with outside text in it is built here.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from pathlib import PurePosixPath

from rich.containers import Lines
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text

from gradedesk.core.text.terminal import terminal_safe


def clean(text: str | None) -> str:
    """The text with every control, bidi and invisible formatting character shown as a visible escape."""
    return terminal_safe(text)


def literal(text: str | None, style: str | Style = "") -> Text:
    return Text(clean(text), style=style)


@functools.lru_cache(maxsize=64)
def lexer_for(suffix: str) -> str:
    """The Pygments lexer for a file suffix (looking it up costs ~30 ms, so once per suffix)."""
    return Syntax.guess_lexer(f"file{suffix}", "") if suffix else "text"


_HIGHLIGHTED: OrderedDict[tuple, Text] = OrderedDict()
_HIGHLIGHTED_MAX = 2048
_lock = threading.Lock()


def _numbered(lines: list[Text] | Lines, start_line: int | None) -> Text:
    first = start_line or 1
    width = len(str(first + len(lines)))
    out = Text()
    for n, line in enumerate(lines, start=first):
        if n != first:
            out.append("\n")
        out.append(f"{n:>{width}} ", style="dim")
        out.append_text(line)
    return out


def code(text: str | None, path: str | None, start_line: int | None, *, highlight: bool = True) -> Text:
    """Evidence text with line numbers, highlighted by file type when asked (or already highlighted before);
    long lines wrap, so nothing is cut.

    Highlighting costs a few ms per snippet, so the desk first shows plain numbered text and highlights in a worker
    (`highlight_code`), toolong-style: the next item appears at once, the colours follow.
    """
    key = (text, path, start_line)
    with _lock:
        cached = _HIGHLIGHTED.get(key)
    if cached is not None:
        return cached
    if highlight:
        return highlight_code(text, path, start_line)
    source = clean(text).expandtabs(4)
    return _numbered([Text(line) for line in source.split("\n")], start_line)


def highlight_code(text: str | None, path: str | None, start_line: int | None) -> Text:
    """Highlight and cache (thread-safe: the desk calls this from a worker)."""
    source = clean(text).expandtabs(4)
    highlighted = Syntax(source, lexer_for(PurePosixPath(path or "").suffix), theme="ansi_dark").highlight(source)
    highlighted.style = ""  # the terminal's own background, not a painted block behind the code
    highlighted.spans = [span for span in highlighted.spans if not str(span.style).startswith("on ")]
    if highlighted.plain.endswith("\n") and not source.endswith("\n"):
        highlighted.right_crop(1)  # highlight() adds a final newline
    out = _numbered(highlighted.split("\n", allow_blank=True), start_line)
    with _lock:
        _HIGHLIGHTED[(text, path, start_line)] = out
        while len(_HIGHLIGHTED) > _HIGHLIGHTED_MAX:
            _HIGHLIGHTED.popitem(last=False)
    return out


def token_bar(used: int, budget: int, width: int = 24) -> Text:
    """`████████░░░░ 1,234 / 2,000 tokens (62%)`; red when over budget."""
    share = used / budget if budget else 1.0
    filled = min(width, round(width * min(share, 1.0)))
    style = "red" if used > budget else "green"
    bar = Text("█" * filled, style=style)
    bar.append("░" * (width - filled), style="dim")
    bar.append(f" {used:,} / {budget:,} tokens ({100 * share:.0f}%)")
    return bar
