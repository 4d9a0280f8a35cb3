"""`gradedesk judge --pairwise`: ask the judge which answer is better, raw or bundled, in both orders (see
core/grading/pairwise_judge.py), and print what it did and how it behaved: its position bias, tie and inconsistency
rates and, with --repeats, its stability.

Pairs without a gold answer (a run read from traces) are judged under the built-in reference-free pairwise rubric, or
the one `--reference-free-rubric` names; `--rubric` is for pairs with a gold answer, so given on a run with no such
pair it would judge nothing: that is refused (exit 2), naming `--reference-free-rubric`. A run read from traces names
its two answers by their sides' labels, as the desk's panes do."""

from __future__ import annotations

import argparse
from dataclasses import asdict


def parse_budgets(text: str | None) -> list[int] | None:
    from gradedesk.core.errors import UserError

    if text is None:
        return None
    try:
        budgets = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UserError(f"--budgets: {text!r} is not a comma-separated list of token budgets, e.g. 1000,4000") from None
    if not budgets:
        raise UserError("--budgets: empty; give token budgets, e.g. 1000,4000")
    return budgets


def run_pairwise(args: argparse.Namespace) -> int:
    from gradedesk.core.agreement.pairwise import judge_behaviour
    from gradedesk.core.agreement.report import Settings
    from contextlib import nullcontext

    from gradedesk.core.cli.endpoint import (DryRun, endpoint_warnings, probe_first, provider_from_args,
                                             sampled_questions, say_spend)
    from gradedesk.core.cli.output import info, print_json, progress_bars
    from gradedesk.core.errors import UserError
    from gradedesk.core.providers.failures import judge_lines
    from gradedesk.core.grading.pairwise_judge import free_rubric_of, pairwise_plan, pairwise_run
    from gradedesk.core.grading.pairwise_rubric import PAIRWISE, REPLY_SHAPE
    from gradedesk.core.grading.pairwise_verdicts import PairJudge, pair_verdicts
    from gradedesk.core.grading.rubric_lookup import BUILTIN, resolve_of_kind
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.cli.kept_replies import take_in_kept
    from gradedesk.core.store.run_records import resolve_run

    if args.model is None and args.base_url is None:
        raise UserError("--pairwise: the pairwise judge is an LLM: give the judge --model (and --base-url)")
    if args.repeats < 1:
        raise UserError(f"--repeats: must be at least 1, got {args.repeats}")
    budgets = parse_budgets(args.budgets)
    provider = provider_from_args(args)
    with open_store(args.store, create=False) as store:
        run_id = resolve_run(store, args.run)
        if not args.dry_run:  # before the plan: what was kept is done, not asked again
            take_in_kept(store)
        rubric = resolve_of_kind(store, args.rubric, PAIRWISE)
        own_free = args.reference_free_rubric not in (None, BUILTIN)  # 'builtin': the built-in reference-free one
        free = free_rubric_of(resolve_of_kind(store, args.reference_free_rubric, PAIRWISE, "--reference-free-rubric")
                              if own_free else None)
        questions = sampled_questions(store, run_id, args, "pairwise")
        p = pairwise_plan(store, run_id, provider.model, budgets, args.repeats, rubric, free, questions, args.limit)
        if args.rubric not in (None, BUILTIN) and args.reference_free_rubric is None and p.free_pairs and not p.gold_pairs:
            raise UserError(f"--rubric: run {run_id} has no pair with a gold answer for {rubric.version} to judge "
                            f"(its {p.free_pairs} pairs go under the reference-free rubric {free.version}); to judge "
                            "them with yours, give it as --reference-free-rubric")
        plan = (f"gradedesk: pairwise judge {provider.model}: {p.calls} call{'' if p.calls == 1 else 's'} for "
                f"{p.pairs} pair{'' if p.pairs == 1 else 's'} (both orders, {args.repeats} repeat(s) each"
                + (f"; {p.reference_free} without a gold answer, reference-free under {free.version}"
                   if p.reference_free else "") + ")")
        if not p.calls:
            info(plan)
        elif not args.dry_run:
            probe_first(provider, store, run_id, REPLY_SHAPE)

        def before_calls(prompts: list[list[dict]]) -> None:
            print(plan) if args.dry_run else info(plan)
            say_spend(provider, prompts, args.max_tokens, "pairwise judge", args.dry_run, store, run_id)

        try:
            with store.transaction() if args.dry_run else nullcontext():  # a dry run's writes are rolled back
                with progress_bars() as bar:
                    report = pairwise_run(store, run_id, provider, budgets, args.repeats, progress=bar, rubric=rubric,
                                          free_rubric=free, max_tokens=args.max_tokens, questions=questions,
                                          limit=args.limit, before_calls=before_calls)
                if args.dry_run:
                    raise DryRun  # nothing to ask: the plan line above said so
        except DryRun:
            return 0
        verdicts = pair_verdicts(store, run_id, PairJudge(report.model, report.rubric_version, free.version))
        behaviour = judge_behaviour(verdicts, Settings())
    endpoint_warnings(provider)
    if args.json:
        print_json({"pairwise": asdict(report), "behaviour": behaviour.to_dict()})
    else:
        sides = report.sides
        compared = (f"{sides.get('raw', 'raw')} vs {sides.get('bundle', 'bundle')}" if sides else
                    f"budgets {', '.join(map(str, report.budgets)) or 'none'}")
        print(f"run {run_id}: pairwise judge {report.model} ({report.rubric_version}), {compared}, "
              f"{report.repeats} repeat(s) per order: {report.pairs} pairs"
              + (f" ({report.reference_free} without a gold answer, judged reference-free under "
                 f"{report.reference_free_version})" if report.reference_free else "")
              + f", {report.replies_done} usable replies now, {report.unusable} unusable replies, "
              f"{report.failed_calls} failed calls, {report.truncated} replies cut at --max-tokens {args.max_tokens}, "
              f"{report.skipped_no_gold} questions without a gold answer (not from traces) and "
              f"{report.skipped_unpaired} without both answers skipped")
        b = behaviour
        print(f"verdicts: {b.consistent} consistent (both orders agree), {b.inconsistent} inconsistent, "
              f"{b.undecided} undecided, of {b.pairs} pairs")
        print(f"position bias (replies choosing ANSWER 1, fair 0.5): {b.first_position_wins.text()}")
        print(f"tie rate: {b.tie_rate.text()}; inconsistency rate: {b.inconsistency_rate.text()}")
        print(f"stability across repeats: {b.stability.text()}; {b.unstable_pairs} unstable pair(s)")
    for line in judge_lines(report.failures, report.model):
        info(f"gradedesk: {line}")
    if report.truncated:
        info(f"gradedesk: {report.truncated} of the unusable replies were cut at --max-tokens {args.max_tokens}")
    if report.failed_calls:
        return 1
    if report.nothing_usable:
        info(f"gradedesk: no reply of {report.model} could be used: no pairwise verdict")
        return 1
    return 0
