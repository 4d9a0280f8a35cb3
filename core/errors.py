"""Errors a user can cause. The CLI prints them as one line and exits 2; anything else is a bug."""

from __future__ import annotations


class UserError(Exception):
    """A problem with the user's input, files or settings (bad file, bad flag, unreachable endpoint)."""

    exit_code = 2


class InputError(UserError):
    """Bad lines in an input file: every problem as `file:line: field: problem`."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))
