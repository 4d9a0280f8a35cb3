"""gradedesk validate-bundle FILE.json: check an evidence bundle, or a context pack, against its contract."""

from __future__ import annotations

import argparse

from gradedesk.core.cli.output import input_file

ORDER = 80
VALIDATE_FORMATS = ("bundle", "context-pack")  # what a file can be checked as


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("validate-bundle", parents=[common],
                       help="check an evidence bundle or context pack JSON file against its contract",
                       description="Say what the file is (an evidence bundle: snippets; a context pack: text, "
                                   "evidence_count, blocks) and print every violation of its contract; exit 1 when "
                                   "there are any. A bundle's coverage_notes may be one string; a bundle that names "
                                   "no tokenizer is counted with the default one (the output names it).")
    input_file(p, "file", metavar="FILE.json")
    p.add_argument("--format", choices=VALIDATE_FORMATS, default=None,
                   help="check the file as this instead of telling it by its fields")
    p.set_defaults(handler=run)


def _describe_pack(report) -> str:
    size = f"{report.blocks} blocks, {report.characters} characters"
    if report.tokenizer:
        size += f", {report.tokens} tokens ({report.tokenizer})"
    budgets = ", ".join(f"{k} {v}" for k, v in report.budgets.items()) or "none recorded"
    return f"context pack: {{}} ({size}; budgets: {budgets}" + ("" if report.tokenizer else "; no tokenizer named") + ")"


def _layout_name(bundle) -> str:
    """Which layout the bundle's tokens were counted in (none when its tokenizer is unusable: validate said so)."""
    from gradedesk.core.evidence.bundle import written_layout
    from gradedesk.core.text.tokens import TokenizerError

    try:
        return "counted in " + written_layout(bundle).name
    except TokenizerError:
        return "not counted"


def run(args: argparse.Namespace) -> int:
    import json

    from gradedesk.core.cli.output import info, print_json
    from gradedesk.core.errors import UserError
    from gradedesk.core.evidence.bundle import read_bundle, validate
    from gradedesk.core.evidence.pack_check import check_pack, is_pack
    from gradedesk.core.jsonl import loads
    from gradedesk.core.limits import too_long

    try:
        with open(args.file, encoding="utf-8") as fh:
            data = loads(fh.read())
    except OSError as exc:
        raise UserError(f"{args.file}: cannot read ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{args.file}:{exc.lineno}: not a JSON file ({exc.msg})") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{args.file}: not a JSON file ({exc})") from None
    for part in ("snippets", "blocks"):
        items = data.get(part) if isinstance(data, dict) else None
        for i, item in enumerate(items if isinstance(items, list) else [], start=1):
            long = too_long(item.get("text") if isinstance(item, dict) else None, "snippet")
            if long:  # counting and checking a huge text takes minutes: refused before anything else
                raise UserError(f"{args.file}: {part}[{i}].text: {long}")
    as_pack = args.format == "context-pack" or (args.format is None and is_pack(data))
    if as_pack:
        if not isinstance(data, dict):
            raise UserError(f"{args.file}: expected a JSON object, got {type(data).__name__}")
        pack = check_pack(data)
        violations, summary = pack.violations, _describe_pack(pack)
    else:
        read = read_bundle(data)
        b = read.bundle
        violations = read.violations if b is None else validate(b)  # no bundle only when the file broke the schema
        tokenizer = "" if b is None else b.tokenizer if read.tokenizer_named else \
            f"{b.tokenizer}, the default: the file names no tokenizer"
        summary = "evidence bundle: {}" + ("" if b is None else
                                           f" ({len(b.snippets)} snippets, {b.total_tokens} tokens {_layout_name(b)}; "
                                           f"{tokenizer})")
    if args.json:
        print_json([{"rule": v.rule, "message": v.message, "snippet": v.snippet, "chunk_id": v.chunk_id}
                    for v in violations])
    else:
        for v in violations:
            print(f"{args.file}: {v}")
        if violations:
            info(f"{args.file}: " + summary.format(f"{len(violations)} violation(s)"))
        else:
            print(f"{args.file}: " + summary.format("ok"))
    return 1 if violations else 0
