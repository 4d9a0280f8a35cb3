"""A person's name as gradedesk stores it on every grade: checked once, for `assign --graders` and the served desk's
name screen, the desk's --grader and $GRADEDESK_GRADER, and import --grader alike.

A name is text, never a command or markup: it is stored as typed and shown with markup off. The check keeps out what
would make it ambiguous rather than what looks odd: nothing empty, no control characters (a newline would forge a
second line in tables and logs), no comma (`--graders ann,bob` separates names with it), at most MAX_NAME characters.
`ann;echo x` is a valid name: nothing ever passes a name to a shell.
"""

from __future__ import annotations

import unicodedata

from gradedesk.core.errors import UserError

MAX_NAME = 40


def name_problem(name: str) -> str | None:
    """Why `name` (already stripped) cannot be a grader's name, or None when it can."""
    if not name:
        return "a name is needed"
    if len(name) > MAX_NAME:
        return f"a name has at most {MAX_NAME} characters"
    if any(unicodedata.category(c).startswith("C") for c in name):
        return "a name has no control characters"
    if "," in name:
        return "a name has no comma (commas separate names in --graders)"
    return None


def checked_name(name: str, source: str) -> str:
    """`name` stripped, or a UserError naming where it came from (`--grader`, `$GRADEDESK_GRADER`) and why."""
    name = name.strip()
    problem = name_problem(name)
    if problem:
        raise UserError(f"{source}: {problem}")
    return name


def parse_graders(text: str) -> list[str]:
    """`--graders ann,bob,cy`: the names in order, each checked, none twice; a problem is one UserError."""
    names = [part.strip() for part in text.split(",")]
    names = [n for n in names if n]
    if not names:
        raise UserError("--graders: no names given (e.g. --graders ann,bob,cy)")
    for name in names:
        problem = name_problem(name)
        if problem:
            raise UserError(f"--graders: {name!r}: {problem}")
    doubled = sorted({n for n in names if names.count(n) > 1})
    if doubled:
        raise UserError(f"--graders: {', '.join(doubled)} named twice")
    return names
