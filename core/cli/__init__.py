"""The `gradedesk` command. Thin: parse, call core, print. Data goes to stdout, progress and errors to stderr.

Each sub-command lives in its own module here and registers itself through `register(subparsers, common)`; a module named `*_cmd.py` is found
without a central list, and its ORDER sets its place in --help. Modules import
only argparse-light code at top level and the heavy parts inside their handlers, so `--help` and `--version` stay fast and
no command but `grade`/`demo` ever imports textual.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from .. import __version__
from ..errors import InputError, UserError
from ..store import default_store_path



def command_modules() -> list:
    """Every `*_cmd` module in this package, ordered by its ORDER (the order in --help)."""
    names = [m.name for m in pkgutil.iter_modules(__path__) if m.name.endswith("_cmd")]
    modules = [importlib.import_module(f"{__name__}.{n}") for n in names]
    return sorted(modules, key=lambda m: (getattr(m, "ORDER", 50), m.__name__))


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", default=None, metavar="PATH",
                        help=f"the store to use (default: $GRADEDESK_STORE or ./store.db; now {default_store_path()})")
    common.add_argument("--json", action="store_true", help="print machine-readable JSON on stdout")
    return common


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gradedesk",
        description="Grade and inspect the answers of a retrieval-augmented code assistant: "
                    "raw top-k retrieval vs evidence bundles, LLM judge vs people.",
    )
    parser.add_argument("--version", action="version", version=f"gradedesk {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    common = _common()
    for module in command_modules():
        module.register(sub, common)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return 2
    if getattr(args, "store", None) is None and hasattr(args, "store"):
        args.store = default_store_path()
    try:
        return int(args.handler(args) or 0)
    except InputError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print(f"gradedesk: {len(exc.problems)} problem(s); nothing was stored", file=sys.stderr)
        return exc.exit_code
    except UserError as exc:
        print(f"gradedesk: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("gradedesk: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `gradedesk export ... | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
