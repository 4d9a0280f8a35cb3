"""gradedesk compare RUN_A RUN_B: what changed from one run to another, per category and per question."""

from __future__ import annotations

import argparse

ORDER = 43


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "compare", parents=[common], help="compare two runs: pass rates per category, changed grades per question",
        description="Match answers of two runs by (question id, method, budget) and compare the grades of one "
                    "grader both runs have (default: an LLM judge, else an imported grader, else the rule grader).")
    p.add_argument("run_a", metavar="RUN_A", help="run id or 'latest'")
    p.add_argument("run_b", metavar="RUN_B", help="run id or 'latest'")
    p.add_argument("--grader", default=None, metavar="NAME",
                   help="grader to compare by: a judge model, 'rules/1', or a kind (judge, rule, imported)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.runs.compare import compare
    from gradedesk.core.cli.output import print_json, print_table

    with open_store(args.store, create=False) as store:
        c = compare(store, args.run_a, args.run_b, args.grader)
    if args.json:
        print_json(c.to_dict())
        return 0
    print(f"run {c.run_a} -> run {c.run_b} by {c.grader}: {c.matched} answers matched "
          f"({c.only_in_a} only in A, {c.only_in_b} only in B); {c.better} better, {c.worse} worse")
    print("\n== per method (A vs B)")
    print_table(("method", "pass_rate_a", "pass_rate_b", "context_precision_a", "context_precision_b",
                 "mean_tokens_in_a", "mean_tokens_in_b"),
                [[m.method, m.pass_rate_a, m.pass_rate_b, m.context_precision_a, m.context_precision_b,
                  m.mean_tokens_in_a, m.mean_tokens_in_b] for m in c.methods])
    print("\n== pass rate per category and method")
    print_table(("category", "method", "n", "pass_rate_a", "pass_rate_b", "delta"),
                [[x.category, x.method, x.n, x.pass_rate_a, x.pass_rate_b, x.delta] for x in c.categories])
    print("\n== changed grades per question")
    if not c.changed:
        print("(no grade changed)")
        return 0
    print_table(("question", "category", "method", "grade_a", "grade_b", "direction"),
                [[x.question_id, x.category, x.method, x.grade_a, x.grade_b, x.direction] for x in c.changed])
    return 0
