"""Text bound for a terminal (or a browser's terminal): the one sanitizer every displayed string from outside goes
through, in the CLI (its stdout and stderr) and in the desk (every body, title, border title and label).

Control characters other than newline and tab (C0, DEL, C1: ESC starts CSI and OSC sequences, \\x9b is an 8-bit CSI)
are shown as visible escapes (`\\x1b`), so a clear-screen, a window-title or clipboard (OSC 0, 52) or hyperlink
(OSC 8) sequence in an answer, a label or a server's name prints as text and does nothing. Bidi embedding, override
and isolate controls and the invisible zero-width spaces are shown too (`\\u202e`): they can make a name or a label
read as something else. Every other character (right-to-left script, emoji with their joiners, CJK) is untouched.

Only what is displayed is escaped: exports, JSONL files and the store keep the original text. `json_safe` is the same
rule for JSON text printed to a terminal: it writes those characters as JSON's own `\\uXXXX` escapes, so the value a
JSON reader gets is unchanged.
"""

from __future__ import annotations

import re

# C0 but tab and newline, DEL, C1
_CONTROL = "\x00-\x08\x0b-\x1f\x7f-\x9f"
# bidi: ALM, LRM, RLM, LRE/RLE/PDF/LRO/RLO, LRI/RLI/FSI/PDI; invisible: zero-width space, word joiner, BOM
_INVISIBLE = "\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff"
UNSAFE = re.compile(f"[{_CONTROL}{_INVISIBLE}]")


def _shown(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str | None) -> str:
    """The text with every control, bidi and invisible formatting character shown as a visible escape; a CRLF line
    end is a newline."""
    if not text:
        return ""
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return UNSAFE.sub(_shown, text)


def json_safe(text: str) -> str:
    """JSON text (as json.dumps writes it: C0 already escaped) with the characters terminal_safe shows written as
    JSON `\\uXXXX` escapes: the same JSON value, nothing a terminal acts on."""
    return UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
