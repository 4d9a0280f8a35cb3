"""gradedesk index PATH: index a repository's files into symbol-aware chunks (incremental; several repos per store)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

ORDER = 20


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("index", parents=[common], help="index a repository into the store (incremental)",
                       description="Walk PATH (respecting .gitignore), chunk Python by symbol, Markdown/RST by heading "
                                   "and other text by line windows; store chunks, exact token counts, call/import "
                                   "references and the BM25 index. Unchanged files are not read again.")
    p.add_argument("path", metavar="PATH", help="the repository's root folder")
    p.add_argument("--name", help="repository name in the store (default: the folder's name)")
    p.add_argument("--tokenizer", default="o200k_base", help="tiktoken encoding for chunk token counts "
                                                              "(o200k_base or cl100k_base; default o200k_base)")
    p.set_defaults(handler=run)


def _progress() -> Callable[[int, int, str], None]:
    last = [0.0]
    tty = sys.stderr.isatty()

    def show(done: int, total: int, path: str) -> None:
        now = time.monotonic()
        if done != total and now - last[0] < (0.1 if tty else 2.0):
            return
        last[0] = now
        end = "\n" if done == total or not tty else ""
        print(f"\rindexing: {done}/{total} files", end=end, file=sys.stderr, flush=True)

    return show


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.index.indexer import index_repository
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.cli.output import print_json

    with open_store(args.store) as store:
        report = index_repository(store, args.path, name=args.name, tokenizer=args.tokenizer, progress=_progress())
    if args.json:
        print_json(vars(report))
    else:
        print(f"{report.name}: {report.files_seen} files seen, {report.files_indexed} indexed, "
              f"{report.files_unchanged} unchanged, {report.files_skipped} skipped (binary or over 1 MB), "
              f"{report.files_removed} removed; {report.chunks} chunks "
              f"({report.seconds:.1f} s)")
    return 0
