"""gradedesk context-pack build: format `gradedesk retrieve --json` output (stdin) into a pack by a policy."""

from __future__ import annotations

import argparse
import codecs

ORDER = 23


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("context-pack", help="build a context pack from retrieval JSON on stdin")
    psub = p.add_subparsers(dest="context_pack_command", metavar="ACTION", required=True)
    b = psub.add_parser("build", help="read retrieval JSON on stdin, print the pack as JSON",
                        description="Biblicus-style policy: join evidence text, order it, optionally prefix metadata, "
                                    "fit character and token budgets by dropping trailing blocks. Example: "
                                    "gradedesk retrieve \"q\" --json | gradedesk context-pack build --ordering score "
                                    "--include-metadata --max-tokens 500")
    b.add_argument("--join-with", default="\\n\\n", help="separator between blocks; backslash escapes allowed "
                                                        "(default \\n\\n)")
    b.add_argument("--ordering", default="rank", choices=("rank", "score", "source"))
    b.add_argument("--include-metadata", action="store_true", help="start each block with metadata lines")
    b.add_argument("--metadata-field", action="append", dest="metadata_fields", metavar="FIELD",
                   help="extra metadata field to include (repeatable; default all)")
    b.add_argument("--max-characters", type=int, help="character budget")
    b.add_argument("--max-tokens", type=int, help="token budget")
    b.add_argument("--tokenizer", default="o200k_base", help="tiktoken encoding that counts tokens")
    b.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import json
    import sys

    from gradedesk.core.errors import UserError
    from gradedesk.core.evidence.policy import ContextPackPolicy, build_budgeted_pack, pack_items_from_retrieval
    from gradedesk.core.cli.output import print_json
    from gradedesk.core.jsonl import loads

    raw = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    if not raw.strip():
        raise UserError("stdin: context-pack build requires retrieval JSON on stdin "
                        "(gradedesk retrieve \"question\" --json | gradedesk context-pack build)")
    try:
        data = loads(raw)
    except json.JSONDecodeError as exc:
        raise UserError(f"stdin:{exc.lineno}: (json): malformed JSON: {exc.msg} at column {exc.colno}") from None
    try:
        join_with = codecs.decode(args.join_with, "unicode_escape")
    except UnicodeDecodeError as exc:
        raise UserError(f"--join-with: bad escape ({exc.reason})") from None
    policy = ContextPackPolicy(join_with=join_with, ordering=args.ordering, include_metadata=args.include_metadata,
                               metadata_fields=args.metadata_fields)
    pack = build_budgeted_pack(pack_items_from_retrieval(data), policy, max_characters=args.max_characters,
                               max_tokens=args.max_tokens, tokenizer=args.tokenizer)
    print_json(pack.to_dict())
    return 0
