"""Reading JSONL input files that come from outside: every problem is `file:line: field: problem`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

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
            yield lineno, json.loads(text)
        except json.JSONDecodeError as exc:
            problems.append(f"{source}:{lineno}: (json): malformed JSON: {exc.msg} at column {exc.colno}")
