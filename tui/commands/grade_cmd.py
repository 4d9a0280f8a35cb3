"""gradedesk grade: open the grading desk on a run (textual is imported only inside the handler)."""

from __future__ import annotations

import argparse

ORDER = 39


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a share between 0 and 1 (e.g. 0.1)")
    return value


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "grade", parents=[common], help="open the grading desk (raw vs bundled answers, beside the judge)",
        description="Grade a run's raw and bundled answers side by side, blind first: the judge's grade appears once "
                    "you have saved yours. Press ? in the desk for the keys.")
    p.add_argument("--run", default="latest", metavar="RUN", help="run id or 'latest' (default)")
    p.add_argument("--grader", metavar="NAME", help="your name on every grade (default: $GRADEDESK_GRADER or your "
                                                     "user name)")
    p.add_argument("--show-judge", action="store_true", default=None,
                   help="show the judge from the start (spot-checking; grades are stored in 'open' mode)")
    p.add_argument("--hide-methods", action="store_true", default=None,
                   help='show "Answer A / B" instead of raw/bundle until both answers are graded')
    p.add_argument("--recheck", type=_share, metavar="SHARE",
                   help="re-show this share (e.g. 0.1) of your graded items blind, to measure self-consistency")
    p.add_argument("--reveal-share", type=_share, default=0.0, metavar="SHARE",
                   help="open this random share (e.g. 0.1) of items with the judge in view; agree then reports "
                        "agreement on revealed vs blind items (anchoring)")
    p.add_argument("--budget", type=int, metavar="N",
                   help="grade raw against the bundled answer at this token budget of the run (default: the one you "
                        "left the desk on, else the run's largest); grades and preferences record it")
    p.add_argument("--adjudicate", action="store_true",
                   help="decide where the people assigned to an item (gradedesk assign) disagree: their grades and "
                        "notes side by side; 1-4, f, e and [ ] = store your decision as its own kind of grade")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.tui.app import run_desk

    run_desk(args.store, args.run, args.grader, show_judge=args.show_judge, hide_methods=args.hide_methods,
             recheck=args.recheck, reveal_share=args.reveal_share, budget=args.budget, adjudicate=args.adjudicate)
    return 0
