"""The `gradedesk` console script: core's commands plus the ones that open the desk.

This is the one place the two halves meet, so that core/ never imports the UI. Importing it loads no textual.
"""

from __future__ import annotations

import sys

from gradedesk.core.cli import command_modules
from gradedesk.core.cli import main as core_main

from gradedesk.tui import commands


def main(argv: list[str] | None = None) -> int:
    return core_main(argv, extra_modules=command_modules(commands.__name__, commands.__path__))


if __name__ == "__main__":
    sys.exit(main())
