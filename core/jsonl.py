"""Reading JSON and JSONL that come from outside: every problem is `file:line: field: problem`.

`loads` is the one parser of outside JSON (files, stdin, servers' and models' replies): it bounds nesting, so a line of
100,000 `[` is a bad line, not a RecursionError in the parser or in whatever walks the value afterwards.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gradedesk.core.errors import InputError, UserError


def read_lines(path: str | Path) -> list[str]:
    """A text file's lines; non-UTF-8 is reported with the line it is on.

    Lines end at \\n only (a trailing \\r is dropped): str.splitlines would also cut at U+2028, U+0085 and other
    characters that JSON strings may hold unescaped (`json.dumps(..., ensure_ascii=False)` writes them). A leading
    UTF-8 byte order mark, as some Windows editors write, is skipped.
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise UserError(f"{p}: cannot read ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
        lines = [line.removesuffix("\r") for line in text.split("\n")]
        return lines[:-1] if lines and not lines[-1] else lines
    except UnicodeDecodeError as exc:
        lineno = raw[: exc.start].count(b"\n") + 1
        raise InputError([f"{p}:{lineno}: (encoding): not UTF-8 (byte {exc.start})"]) from None


def json_lines(lines: list[str], source: str, problems: list[str]) -> Iterator[tuple[int, object]]:
    """(line number, parsed value) for each non-blank line; malformed JSON is added to `problems` and skipped."""
    for lineno, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            yield lineno, loads(text)
        except TooDeep:
            problems.append(f"{source}:{lineno}: (json): nested too deeply (over {MAX_DEPTH} levels)")
        except json.JSONDecodeError as exc:
            problems.append(f"{source}:{lineno}: (json): malformed JSON: {exc.msg} at column {exc.colno}")


# Far deeper than any run log, trace, bundle or verdict nests (they stop at about 6), far below Python's recursion limit.
MAX_DEPTH = 64
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')  # a JSON string (skipped whole) or a bracket


class TooDeep(json.JSONDecodeError):
    """JSON nested deeper than MAX_DEPTH; a JSONDecodeError, so every reader that refuses bad JSON refuses it."""


def loads(text: str, strict: bool = True) -> Any:
    """json.loads, refusing (TooDeep) text nested deeper than MAX_DEPTH; strict=False lets control characters (a raw
    line break) through inside strings, as json.loads does."""
    if text.count("[") + text.count("{") > MAX_DEPTH:  # cheap: only text with that many brackets is walked
        depth = 0
        for m in _TOKEN.finditer(text):
            c = m.group()
            if c in "[{":
                depth += 1
                if depth > MAX_DEPTH:
                    raise TooDeep(f"nested too deeply (over {MAX_DEPTH} levels)", text, m.start())
            elif c in "]}":
                depth -= 1
    return json.loads(text, strict=strict)
