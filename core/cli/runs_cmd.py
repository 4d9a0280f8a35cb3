"""gradedesk runs: list the runs in the store, newest first, with their answer counts."""

from __future__ import annotations

import argparse

ORDER = 32


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("runs", parents=[common], help="list runs (id, created, provider and model, counts)",
                       description="List the runs in the store, newest first. Wherever a command takes RUN, "
                                   "'latest' means the newest of these.")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.store.run_records import list_runs
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.cli.output import info, print_json, print_table

    with open_store(args.store, create=False) as store:
        runs = list_runs(store)
    if args.json:
        print_json(runs)
        return 0
    if not runs:
        info(f"{args.store}: no runs yet; make one with `gradedesk run`, `gradedesk demo` or `gradedesk import`")
        return 0
    print_table(
        ["id", "created", "source", "provider", "model", "benchmark", "label", "questions", "answered", "failed",
         "pending"],
        [[r["id"], r["created_at"], r["source"], r["provider"], r["model"], r["benchmark"], r["label"],
          r["questions"], r["answered"], r["failed"], r["pending"]] for r in runs])
    return 0
