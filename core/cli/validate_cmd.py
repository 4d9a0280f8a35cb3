"""gradedesk validate-bundle FILE.json: check an evidence bundle against the context-pack contract."""

from __future__ import annotations

import argparse

ORDER = 80
import json


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("validate-bundle", parents=[common], help="check an evidence bundle JSON file against the contract",
                       description="Print every violation of the context-pack contract; exit 1 when there are any.")
    p.add_argument("file", metavar="FILE.json")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.evidence.bundle import EvidenceBundle, schema_violations, validate
    from gradedesk.core.errors import UserError
    from gradedesk.core.cli.output import print_json

    try:
        with open(args.file, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise UserError(f"{args.file}: cannot read ({exc.strerror})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{args.file}: not a JSON file ({exc})") from None
    violations = schema_violations(data)
    bundle = None if violations else EvidenceBundle.from_dict(data)
    if bundle is not None:
        violations = validate(bundle)
    if args.json:
        print_json([{"rule": v.rule, "message": v.message, "snippet": v.snippet, "chunk_id": v.chunk_id}
                    for v in violations])
    else:
        for v in violations:
            print(f"{args.file}: {v}")
        if not violations:
            assert bundle is not None
            print(f"{args.file}: ok ({len(bundle.snippets)} snippets, {bundle.total_tokens} tokens)")
    return 1 if violations else 0
