"""The `gradedesk` console script: core's commands plus the ones that open the desk.

This is the one place the two halves meet, so that core/ never imports the UI. Importing it loads no textual.
"""

from __future__ import annotations

import argparse
import sys

from gradedesk.core.cli import build_parser as core_build_parser
from gradedesk.core.cli import command_modules
from gradedesk.core.cli import main as core_main

from gradedesk.tui import commands


def _desk_commands() -> list:
    return command_modules(commands.__name__, commands.__path__)


def build_parser() -> argparse.ArgumentParser:
    """The console script's whole parser (the docs' command reference and their command-line test use it)."""
    return core_build_parser(_desk_commands())


def main(argv: list[str] | None = None) -> int:
    return core_main(argv, extra_modules=_desk_commands())


if __name__ == "__main__":
    sys.exit(main())
