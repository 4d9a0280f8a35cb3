"""gradedesk import-promptfoo RESULTS.json: a promptfoo results file (`promptfoo eval --output`) as a run to grade,
its two providers or prompts as the two sides."""

from __future__ import annotations

import argparse

from gradedesk.core.cli.output import input_file

ORDER = 65


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "import-promptfoo", parents=[common], help="import promptfoo eval results (two providers or prompts as sides)",
        description="Each test becomes a question (its question var, or its vars; the expected var or the first "
                    "equals/contains assertion's value is the gold answer), each provider or prompt a side (named as "
                    "promptfoo names it), each output an answer with its token usage, cost and latency, and each "
                    "assertion's result a machine grade named promptfoo:<assertion type>. Importing again adds only "
                    "new results. `export-scores --format promptfoo --out FILE.json` writes people's grades back as "
                    "promptfoo's human ratings (then `promptfoo import --force FILE.json`).")
    input_file(p, "results", metavar="RESULTS.json", help="the file `promptfoo eval --output RESULTS.json` wrote")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gradedesk.core.cli.eval_import import report_import
    from gradedesk.core.exchange.promptfoo_results import read_promptfoo
    from gradedesk.core.exchange.traces import import_traces
    from gradedesk.core.store.connection import open_store

    read, sides, skipped = read_promptfoo(Path(args.results))  # before the store opens: a bad file leaves none
    with open_store(args.store) as store:
        report = import_traces(store, read, sides, skipped)
    return report_import(args, read, report, "result")
