"""The command reference as Markdown, generated from the argparse parsers themselves (the docs site's hook renders it
at build time, so the reference cannot drift from the commands).

In: the whole `gradedesk` parser. Out: one section per command and sub-command, its one-line summary, and its
`--help` text exactly as the command prints it at a fixed width.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator

WIDTH = 100  # the help text's width on the page, fixed so the page is the same on every machine


def _subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """(name, summary, parser) of each sub-command, in --help order. argparse has no public way to list them."""
    for action in parser._actions:  # noqa: SLF001
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            summaries = {choice.dest: choice.help or "" for choice in action._choices_actions}  # noqa: SLF001
            for name, sub in action.choices.items():
                if name in summaries:  # aliases have no summary of their own and are listed under their command
                    yield name, summaries[name], sub


def _help(parser: argparse.ArgumentParser) -> str:
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH + 2)  # argparse wraps at $COLUMNS - 2
    try:
        return parser.format_help()
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved


def _sections(parser: argparse.ArgumentParser, path: str, depth: int) -> Iterator[str]:
    for name, summary, sub in _subcommands(parser):
        command = f"{path} {name}"
        yield f"{'#' * depth} `{command}`\n"
        if summary:
            yield f"{summary}\n"
        yield f"```text\n{_help(sub).rstrip()}\n```\n"
        yield from _sections(sub, command, min(depth + 1, 4))


def reference_markdown(parser: argparse.ArgumentParser) -> str:
    """The reference page: every command's --help, generated from `parser` (the console script's)."""
    head = [
        "# Command reference\n",
        "Generated from the commands' own parsers when the site is built: what `gradedesk COMMAND --help` prints. "
        "What the commands share (the store, `--json`, errors, progress) is in [First session](first-session.md).\n",
        f"```text\n{_help(parser).rstrip()}\n```\n",
    ]
    return "\n".join([*head, *_sections(parser, parser.prog, 2)])
