"""The `gradedesk` command's core half. Thin: parse, call core, print. Data goes to stdout, progress and errors to stderr.

Each sub-command lives in its own module here and registers itself through `register(subparsers, common)`; a module
named `*_cmd.py` is found without a central list, and its ORDER sets its place in --help. Modules import only
argparse-light code at top level and the heavy parts inside their handlers, so `--help` and `--version` stay fast.
The commands that open the desk (`grade`, `demo`) live in tui/commands and are handed in by tui/cli.py, the console
script: core never imports the UI.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from gradedesk.core import __version__
from gradedesk.core.cli.output import check_files, terminal_safe_streams
from gradedesk.core.errors import InputError, UserError
from gradedesk.core.text.redact import redact
from gradedesk.core.config import DEFAULT_API_KEY_ENV, api_key, read_store_path, store_path

# Commands that only read the store: without --store they fall back to the demo's store (config.read_store_path).
READ_ONLY_COMMANDS = frozenset({"summary", "agree", "runs", "export", "export-scores"})


def command_modules(package: str = __name__, path: list[str] | None = None) -> list:
    """Every `*_cmd` module of a package (by default this one), in import order."""
    names = [m.name for m in pkgutil.iter_modules(path or __path__) if m.name.endswith("_cmd")]
    return [importlib.import_module(f"{package}.{n}") for n in names]


class Parser(argparse.ArgumentParser):
    """No option is taken by a prefix of its name (argparse's default): `--api-key KEY` would be read as
    `--api-key-env KEY`, and the key echoed in the error. Sub-commands' parsers are of this class too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)


def _refuse_keys_on_the_command_line(argv: Sequence[str]) -> None:
    for arg in argv:
        if arg == "--api-key" or arg.startswith("--api-key="):
            raise UserError("--api-key: a key is never given on the command line (other processes and the shell's "
                            "history see it); put it in an environment variable and name that with --api-key-env VAR")


def _common() -> argparse.ArgumentParser:
    common = Parser(add_help=False)
    common.add_argument("--store", default=None, metavar="PATH",
                        help=f"the store to use (default: $GRADEDESK_STORE or ./store.db; now {store_path()})")
    common.add_argument("--json", action="store_true", help="print machine-readable JSON on stdout")
    return common


def build_parser(extra_modules: Sequence[ModuleType] = ()) -> argparse.ArgumentParser:
    parser = Parser(
        prog="gradedesk",
        description="Grade and inspect the answers of a retrieval-augmented code assistant: "
                    "raw top-k retrieval vs evidence bundles, LLM judge vs people.",
    )
    parser.add_argument("--version", action="version", version=f"gradedesk {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    common = _common()
    modules = [*command_modules(), *extra_modules]
    for module in sorted(modules, key=lambda m: (getattr(m, "ORDER", 50), m.__name__)):  # ORDER: place in --help
        module.register(sub, common)
    return parser


def main(argv: list[str] | None = None, extra_modules: Sequence[ModuleType] = ()) -> int:
    with terminal_safe_streams():  # whatever is printed, outside text in it reaches the terminal as visible escapes
        return _main(argv, extra_modules)


def _main(argv: list[str] | None, extra_modules: Sequence[ModuleType]) -> int:
    try:
        _refuse_keys_on_the_command_line(sys.argv[1:] if argv is None else argv)
    except UserError as exc:
        print(f"gradedesk: error: {exc}", file=sys.stderr)
        return exc.exit_code
    parser = build_parser(extra_modules)
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return 2
    if getattr(args, "store", None) is None and hasattr(args, "store"):
        args.store = store_path()
        if args.command in READ_ONLY_COMMANDS:
            args.store, demo = read_store_path()
            if demo:
                print(f"gradedesk: no --store, $GRADEDESK_STORE or ./{store_path()}: reading ./{args.store}, "
                      "the demo's store", file=sys.stderr)
    try:
        check_files(args)  # before anything is read or written: no output may be the store or an input
        return int(args.handler(args) or 0)
    except InputError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print(f"gradedesk: {len(exc.problems)} problem(s); nothing was stored", file=sys.stderr)
        return exc.exit_code
    except UserError as exc:  # may quote a server's reply: the key is redacted whatever the server echoed
        print(f"gradedesk: error: {redact(str(exc), [api_key(getattr(args, 'api_key_env', DEFAULT_API_KEY_ENV))])}",
              file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("gradedesk: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `gradedesk export ... | head`
        sys.stderr.close()
        return 0
    except Exception as exc:  # an SQLite error outside a transaction (a damaged page read): one line; else a bug
        if type(exc).__module__ != "sqlite3":
            raise
        from gradedesk.core.store.connection import store_fault

        print(f"gradedesk: error: {store_fault(getattr(args, 'store', None) or 'store', exc)}", file=sys.stderr)
        return 2
