"""Untrusted text, shown literally.

Answers, evidence, questions, notes and judge reasoning come from outside. They are never parsed as Rich/Textual markup
(they go into `rich.text.Text`, not into markup strings), and control characters such as ESC are replaced by a visible
escape (`\\x1b`) so an ANSI sequence in an answer can neither colour nor break the screen.
"""

from __future__ import annotations

import re

from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text

# C0 controls but tab and newline, DEL, and C1 controls (e.g. the 8-bit CSI \x9b).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str | None) -> str:
    """The text with every control character shown as a visible escape."""
    if not text:
        return ""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text.replace("\r\n", "\n"))


def literal(text: str | None, style: str | Style = "") -> Text:
    return Text(clean(text), style=style)


def code(text: str | None, path: str | None, start_line: int | None) -> Syntax:
    """Evidence text with syntax highlighting by file type; wraps long lines, so nothing is cut."""
    lexer = Syntax.guess_lexer(path or "", clean(text)) if path else "text"
    return Syntax(clean(text), lexer, theme="ansi_dark", line_numbers=True, start_line=start_line or 1,
                  word_wrap=True, background_color="default")


def token_bar(used: int, budget: int, width: int = 24) -> Text:
    """`████████░░░░ 1,234 / 2,000 tokens (62%)`; red when over budget."""
    share = used / budget if budget else 1.0
    filled = min(width, round(width * min(share, 1.0)))
    style = "red" if used > budget else "green"
    bar = Text("█" * filled, style=style)
    bar.append("░" * (width - filled), style="dim")
    bar.append(f" {used:,} / {budget:,} tokens ({100 * share:.0f}%)")
    return bar
