"""The documentation against the code: every `gradedesk …` command line shown in README.md and docs/ (in a bash block
or an inline code span) is parsed by the console script's real parser, and the README stays a short front page.

Shown lines are often synopses: `[--k 10]` is an option that may be given, `a|b` alternatives (each is parsed),
`...` "and so on", and upper-case words (RUN, N, URL) placeholders. A placeholder the parser refuses as an option's value
is replaced by 1, then 0.5 (a number); any other value is parsed as written, so a wrong flag, a bad choice or a value
the option refuses fails the test.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from gradedesk.tui.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\s*$")
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_]*(\.[a-z]+)?$")
REFUSED = re.compile(r"argument (--?[\w-]+)")  # the option whose value the parser refused
NUMBERS = ("1", "0.5")  # what a placeholder for a number becomes, in turn


def _commands_in(text: str) -> list[str]:
    """Each gradedesk command line of a page: bash blocks' lines (continuations joined) and inline code spans."""
    found: list[str] = []
    prose: list[str] = []
    lang = None
    for line in text.splitlines():
        fence = FENCE.match(line)
        if fence:
            lang = None if lang is not None else fence.group(1)
            continue
        if lang is None:
            prose.append(line)
        elif lang in ("bash", "sh"):
            stripped = line.strip()
            if found and found[-1].endswith("\\"):
                found[-1] = found[-1][:-1] + " " + stripped
            elif found and line.startswith((" ", "\t")) and stripped.startswith(("[", "--")):
                found[-1] += " " + stripped
            elif stripped and not stripped.startswith("#"):
                found.append(stripped)
    spans = re.findall(r"`(gradedesk [^`]+)`", " ".join(prose))
    lines = [part.strip() for cmd in found for part in re.split(r"\s(?:\||&&)\s", cmd)]
    gradedesk = [re.sub(r"^\S*/gradedesk\b", "gradedesk", part) for part in lines]
    return [cmd for cmd in gradedesk if cmd.startswith("gradedesk ")] + spans


def _argvs(command: str) -> list[list[str]]:
    """The argument lists a synopsis stands for: brackets opened, `...` dropped, one list per alternative of `a|b`."""
    unbracketed, quote = [], None
    for ch in command:
        if ch in "'\"":
            quote = None if quote == ch else (quote or ch)
        if quote or ch not in "[]":
            unbracketed.append(ch)
    tokens = [t.removesuffix("...") for t in shlex.split("".join(unbracketed), comments=True)[1:]]
    tokens = ["summary" if t == "COMMAND" else t for t in tokens if t]
    ways = max([t.count("|") + 1 for t in tokens] or [1])
    return [[t.split("|")[min(k, t.count("|"))] if "|" in t else t for t in tokens] for k in range(ways)]


def _parse(argv: list[str]) -> str | None:
    """None when the real parser accepts argv (numbers in place of the placeholders the parser refused); else its error."""
    parser = build_parser()
    tried: set[tuple[int, str]] = set()
    while True:
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                parser.parse_args(argv)
            return None
        except SystemExit as exc:
            if exc.code == 0:  # --help, --version
                return None
            error = err.getvalue().strip().splitlines()[-1]
            refused = REFUSED.search(error)
            at = argv.index(refused.group(1)) + 1 if refused and refused.group(1) in argv else None
            if at is None or at >= len(argv) or not (PLACEHOLDER.match(argv[at]) or (at, argv[at]) in tried):
                return error
            number = next((n for n in NUMBERS if (at, n) not in tried), None)
            if number is None:
                return error
            tried.add((at, number))
            argv = [*argv[:at], number, *argv[at + 1:]]


CASES = [(page.relative_to(ROOT).as_posix(), cmd) for page in PAGES for cmd in _commands_in(page.read_text())]


def test_the_docs_show_commands_of_every_page_kind():
    pages = {page for page, _ in CASES}
    assert {"README.md", "docs/repository-and-model.md", "docs/trusting-the-judge.md", "docs/team.md"} <= pages
    assert len(CASES) > 50


@pytest.mark.parametrize(("page", "command"), CASES, ids=[f"{p}:{c[:60]}" for p, c in CASES])
def test_each_command_shown_parses_with_the_real_parser(page, command):
    problems = [f"{' '.join(argv)}: {error}" for argv in _argvs(command) if (error := _parse(argv))]
    assert not problems, f"{page}: `{command}`: " + "; ".join(problems)


def test_a_wrong_flag_or_choice_in_a_shown_command_is_caught():
    assert _parse(_argvs("gradedesk retrieve q --kk 10")[0])
    assert _parse(_argvs("gradedesk export [--format gradedesk|jsonl]")[1])
    assert _parse(_argvs("gradedesk ask q --budget lots")[0])
    assert _parse(_argvs("gradedesk ask q [--budget N]")[0]) is None


def test_the_readme_is_a_front_page():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 150
    for target in re.findall(r"\]\(([^)#\s]+)", readme):
        if "://" not in target:
            assert (ROOT / target).exists(), f"README.md links to {target}, which is not there"
