"""The command `gradedesk serve` runs for each browser: the desk on one store and run, asking the person's name first.

textual-serve starts it through a shell with a fixed command line made by tui/commands/serve_cmd.py (`served_command`):
this interpreter, this module, the store and the run, each quoted. Nothing a browser sends is ever part of it; the
person's name is typed into the desk itself (tui/screens/name.py). Its driver (tui/web/served_driver.py) ends the desk
when serve is gone.
"""

from __future__ import annotations

import argparse
import sys

from gradedesk.core.errors import UserError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gradedesk-served", description="the desk as gradedesk serve runs it")
    parser.add_argument("--store", required=True, metavar="PATH", help="the store every browser session shares")
    parser.add_argument("--run", required=True, metavar="RUN", help="the run to grade")
    args = parser.parse_args(argv)
    from gradedesk.tui.app import run_desk
    from gradedesk.tui.web.served_driver import ServedDriver

    try:
        run_desk(args.store, args.run, ask_name=True, driver_class=ServedDriver)
    except UserError as exc:
        print(f"gradedesk: error: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
