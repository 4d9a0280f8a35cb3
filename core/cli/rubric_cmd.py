"""gradedesk rubric show [--pairwise] [VERSION|FILE] | history: print a rubric in its file format; list the stored versions with
their agreement on the test items of each alignment."""

from __future__ import annotations

import argparse

from gradedesk.core.cli.output import input_file

ORDER = 44


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("rubric", help="show a judge rubric as an editable file; list rubric versions")
    rsub = p.add_subparsers(dest="rubric_command", metavar="ACTION", required=True)
    show = rsub.add_parser(
        "show", parents=[common], help="print a rubric in its file format (default: the built-in one)",
        description="Print a rubric as an editable file: the built-in one, a version stored in the store (its name "
                    "for the newest, or enough of the version), or a rubric FILE (checked: every problem as "
                    "file:line, exit 2). Edit it and grade with `gradedesk judge --rubric FILE`. The version (name "
                    "and a hash of the text) goes to stderr.")
    input_file(show, "rubric", nargs="?", default=None, metavar="VERSION|FILE",
                      help="'builtin' (default), a stored version or a rubric file")
    show.add_argument("--pairwise", action="store_true",
                      help="the pairwise rubric (which of two answers is better: `gradedesk judge --pairwise`) "
                           "instead of the grade rubric")
    show.set_defaults(handler=run_show)
    history = rsub.add_parser(
        "history", parents=[common], help="rubric versions with their test agreement",
        description="Every rubric version in the store, oldest first: examples, what it was made from, and its "
                    "agreement with people on the test items of each `gradedesk align` it took part in.")
    history.set_defaults(handler=run_history)


def run_show(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gradedesk.core.cli.output import info, print_json
    from gradedesk.core.errors import UserError
    from gradedesk.core.grading.rubric_format import parse_rubric, shown
    from gradedesk.core.grading.rubric_lookup import BUILTIN, find_version, resolve_rubric
    from gradedesk.core.store.rubrics import stored_text
    from gradedesk.core.store.connection import open_store

    if args.pairwise:
        return show_pairwise(args)
    spec, text = args.rubric, None
    if spec in (None, BUILTIN) or Path(spec).exists():
        rubric = resolve_rubric(None, spec)
    else:
        with open_store(args.store, create=False) as store:
            version = find_version(store, spec)
            if version is None:
                resolve_rubric(store, spec)  # raises the error that names what was looked for
            assert version is not None  # resolve_rubric raised: it looks the version up the same way
            spec, text = version, stored_text(store, version)
            assert text is not None  # the version was just found, and a stored rubric's text is NOT NULL
        try:
            rubric = parse_rubric(text, f"rubric {spec}")
        except UserError:  # a prompt kept by an older gradedesk: shown as it is
            rubric = None
    if rubric is None:
        info(f"{spec}: stored by an older gradedesk as the judge's prompt, not a rubric file")
        if args.json:
            print_json({"version": spec, "text": text})
        else:
            print(text)
        return 0
    info(f"rubric {rubric.version}")
    if args.json:
        print_json({"version": rubric.version, "name": rubric.name, "based_on": rubric.based_on,
                    "examples": len(rubric.examples), "text": rubric.text, "prompt": rubric.prompt})
    else:
        print(shown(rubric), end="")
    return 0


def show_pairwise(args: argparse.Namespace) -> int:
    from pathlib import Path

    from gradedesk.core.cli.output import info, print_json
    from gradedesk.core.grading.pairwise_rubric import PAIRWISE, shown_pairwise
    from gradedesk.core.grading.rubric_lookup import BUILTIN, resolve_of_kind
    from gradedesk.core.store.connection import open_store

    spec = args.rubric
    if spec in (None, BUILTIN) or Path(spec).exists():
        rubric = resolve_of_kind(None, spec, PAIRWISE, "rubric")
    else:
        with open_store(args.store, create=False) as store:
            rubric = resolve_of_kind(store, spec, PAIRWISE, "rubric")
    info(f"pairwise rubric {rubric.version}")
    if args.json:
        print_json({"version": rubric.version, "name": rubric.name, "based_on": rubric.based_on, "text": rubric.text,
                    "prompt": rubric.prompt})
    else:
        print(shown_pairwise(rubric), end="")
    return 0


def run_history(args: argparse.Namespace) -> int:
    from gradedesk.core.agreement.rubric_history import rubric_history
    from gradedesk.core.agreement.tables import est_text
    from gradedesk.core.cli.output import print_json, print_table
    from gradedesk.core.store.connection import open_store

    with open_store(args.store, create=False) as store:
        history = rubric_history(store)
    if args.json:
        print_json([h.to_dict() for h in history])
        return 0
    rows: list[list[object]] = []
    for h in history:
        examples = "-" if h.examples is None else h.examples
        base: list[object] = [h.version, h.created_at[:19], examples, h.based_on or "-"]
        if not h.test_agreement:
            rows.append(base + ["(not measured on held-out items)", "", ""])
        for n, t in enumerate(h.test_agreement):
            where = f"align {t.alignment_id} (run {t.run_id}, {t.judge_model}, {t.test_items} test, {t.role})"
            diff = f"{est_text(t.difference)}" if t.difference else ""
            rows.append([*(base if n == 0 else ["", "", "", ""]), where,
                         est_text(t.measures.get("percent_agreement")), diff])
    print_table(["version", "created", "examples", "based on", "measured in", "test agreement", "new - base"], rows)
    return 0
