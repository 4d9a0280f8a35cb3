"""gradedesk import-inspect LOG [LOG_B]: an Inspect AI eval log's samples as a run to grade (through inspect-ai, the
`inspect` extra); two logs, or two models in one log, as the two sides."""

from __future__ import annotations

import argparse

from gradedesk.core.cli.output import input_file

ORDER = 64


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "import-inspect", parents=[common], help="import an Inspect AI eval log (or two, as two sides) as a run to grade",
        description="Each sample becomes a question (its input; the target is the gold answer) and an answer (the "
                    "model's output), its scorers' pass/fail scores machine grades named inspect:<scorer>, its token "
                    "usage kept. Two logs are sides A and B, paired by sample id and epoch; one log answered by two "
                    "models is split by model; the desk names each side by its model. Epochs are repeats of one "
                    "side, each an item of its own. Importing again adds only new samples, and says how many "
                    "imported samples the log now holds otherwise (and how many of those a person graded). The log "
                    "is read through inspect-ai's own API (needs gradedesk[inspect]); `export-scores --format inspect "
                    "--out NEW_LOG` writes people's grades back as score edits in a copy.")
    input_file(p, "log", metavar="LOG", help="an Inspect log (.eval or .json), side A")
    input_file(p, "log_b", nargs="?", default=None, metavar="LOG_B", help="a second log, side B")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gradedesk.core.cli.eval_import import report_import
    from gradedesk.core.exchange.inspect_log import read_inspect
    from gradedesk.core.exchange.traces import import_traces
    from gradedesk.core.store.connection import open_store

    paths = [Path(args.log)] + ([Path(args.log_b)] if args.log_b else [])
    read, sides, skipped = read_inspect(paths)  # read before the store is opened: a bad log leaves no store behind
    with open_store(args.store) as store:
        report = import_traces(store, read, sides, skipped)
    return report_import(args, read, report, "sample")
