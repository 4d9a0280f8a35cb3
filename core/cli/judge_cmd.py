"""gradedesk judge RUN --model M [--base-url URL] [--repeat N]: grade a run with an LLM judge (and the offline graders).
With --pairwise [--budgets B1,B2] [--repeats N]: which answer is better instead (core/cli/judge_pairwise.py).

Without --model and --base-url there is no judge endpoint: the run is graded offline only (retrieval evals, the rule
grader, offline scores), and the command says so; a rule grade is never presented as a judge grade.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from gradedesk.core.cli.endpoint import add_endpoint_arguments, add_spend_arguments
from gradedesk.core.config import VERDICT_MAX_TOKENS
from gradedesk.core.cli.output import input_file

if TYPE_CHECKING:
    from gradedesk.core.grading.judge import JudgePlan

ORDER = 41


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "judge", parents=[common], help="grade a run with an LLM judge at any OpenAI-compatible endpoint",
        description="Grade every answer of a run with an LLM judge (versioned rubric, JSON verdicts validated; "
                    "unusable replies are recorded as grading_error) plus LLM faithfulness and relevance, after the "
                    "offline graders. Running it again grades only what is missing and retries failed calls. "
                    "Without --model/--base-url only the offline graders run (same as grade-offline). With "
                    "--pairwise the judge compares each question's raw and bundled answers instead, in both orders.")
    p.add_argument("run", nargs="?", default="latest", metavar="RUN", help="run id or 'latest' (default)")
    add_endpoint_arguments(p, "judge model (use a different model from the one that answered)",
                           max_tokens=VERDICT_MAX_TOKENS, max_tokens_what="a verdict or score reply")
    add_spend_arguments(p, "judge")
    p.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="grade each answer N times and report the judge's consistency (default 1)")
    p.add_argument("--no-scores", action="store_true", help="skip LLM faithfulness and relevance (fewer calls)")
    input_file(p, "--rubric", default=None, metavar="FILE",
                   help="grade with this rubric: a file (see `gradedesk rubric show`), a stored version, or "
                        "'builtin' (default); with --pairwise a pairwise rubric (`gradedesk rubric show --pairwise`) "
                        "for the pairs with a gold answer")
    input_file(p, "--reference-free-rubric", default=None, metavar="FILE",
                   help="with --pairwise: the pairwise rubric for pairs without a gold answer (a run read from "
                        "traces): a file, a stored version or 'builtin' (default: the built-in reference-free "
                        "pairwise rubric, which compares the answers on the question and each one's evidence)")
    p.add_argument("--pairwise", action="store_true",
                   help="instead of grading each answer, ask which answer of each question is better, raw or "
                        "bundled, in both orders (a verdict counts only when both orders agree)")
    p.add_argument("--budgets", default=None, metavar="B1,B2",
                   help="with --pairwise: the bundled answers' budgets to compare with raw (default: all of the run's)")
    p.add_argument("--repeats", type=int, default=1, metavar="N",
                   help="with --pairwise: ask each order N times and report the judge's stability (default 1)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from gradedesk.core.errors import UserError

    if args.pairwise:
        from gradedesk.core.cli.judge_pairwise import run_pairwise

        if args.repeat != 1 or args.no_scores:
            raise UserError("--pairwise: --repeat and --no-scores are for grades; the pairwise judge takes --repeats")
        return _one_judge_per_run(args, run_pairwise)
    if args.budgets is not None or args.repeats != 1 or args.reference_free_rubric is not None:
        raise UserError("--budgets, --repeats and --reference-free-rubric are for --pairwise (grades repeat with "
                        "--repeat)")
    return _one_judge_per_run(args, run_grades)


def _one_judge_per_run(args: argparse.Namespace, judge: Callable[[argparse.Namespace], int]) -> int:
    """A judge that makes calls holds its run (core/store/run_lock.py): a second judge on it is refused, told which
    process holds it, rather than making every call again. A dry run and offline grading make none."""
    if (args.model is None and args.base_url is None) or args.dry_run:
        return judge(args)
    from gradedesk.core.errors import UserError
    from gradedesk.core.store.connection import open_store
    from gradedesk.core.store.run_lock import judging
    from gradedesk.core.store.run_records import resolve_run

    try:
        with open_store(args.store, create=False) as store:
            run_id = resolve_run(store, args.run)
    except UserError:  # no store or no such run: the judge says so, after its own checks of the flags
        return judge(args)
    with judging(args.store, run_id):
        return judge(argparse.Namespace(**{**vars(args), "run": str(run_id)}))  # the run held, whatever is newest now


def run_grades(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from gradedesk.core.store.run_records import resolve_run, run_row
    from gradedesk.core.errors import UserError
    from gradedesk.core.grading.retrieval_evals import method_label
    from gradedesk.core.grading.offline_grading import grade_offline
    from gradedesk.core.grading.judge import judge_plan, judge_run
    from gradedesk.core.grading.judge_consistency import judge_consistency
    from gradedesk.core.grading.rubric_lookup import resolve_rubric
    from gradedesk.core.store.connection import open_store
    from contextlib import nullcontext

    from gradedesk.core.cli.endpoint import (DryRun, endpoint_warnings, probe_first, provider_from_args,
                                             sampled_questions, say_spend)
    from gradedesk.core.grading.rubric_format import REPLY_SHAPE
    from gradedesk.core.cli.grade_offline_cmd import offline_line
    from gradedesk.core.cli.kept_replies import take_in_kept
    from gradedesk.core.cli.output import info, print_json, progress_bars
    from gradedesk.core.providers.failures import judge_lines

    if args.repeat < 1:
        raise UserError("--repeat: must be at least 1")
    endpoint = args.model is not None or args.base_url is not None
    if args.rubric is not None and not endpoint:
        raise UserError("--rubric: only an LLM judge reads a rubric; give the judge --model (and --base-url)")
    if not endpoint and (args.limit is not None or args.sample is not None or args.dry_run):
        raise UserError("--limit, --sample and --dry-run bound a judge's calls: give the judge --model (and --base-url)")
    provider = provider_from_args(args) if endpoint else None
    with open_store(args.store, create=False) as store:
        run_id = resolve_run(store, args.run)
        if not args.dry_run:  # before the plan: what was kept is done, not asked again
            take_in_kept(store)
        rubric = resolve_rubric(store, args.rubric) if provider else None
        answer_model = run_row(store, run_id).model
        questions = sampled_questions(store, run_id, args, "judge") if provider else None
        plan = judge_plan(store, run_id, provider.model, args.repeat, scores=not args.no_scores, rubric=rubric,
                          questions=questions, limit=args.limit) if provider else None
        if provider and plan and not plan.calls:
            info(plan_line(plan, provider.model, args.no_scores))
        elif provider and plan and not args.dry_run:
            probe_first(provider, store, run_id, REPLY_SHAPE)

        def before_calls(prompts: list[list[dict]]) -> None:
            assert provider is not None and plan is not None
            line = plan_line(plan, provider.model, args.no_scores)
            print(line) if args.dry_run else info(line)
            say_spend(provider, prompts, args.max_tokens, "judge", args.dry_run, store, run_id)

        try:
            with store.transaction() if args.dry_run else nullcontext():  # a dry run's writes are rolled back
                with progress_bars() as bar:
                    offline = grade_offline(store, run_id, bar)
                    report = judge_run(store, run_id, provider, args.repeat, scores=not args.no_scores,
                                       progress=bar, rubric=rubric, max_tokens=args.max_tokens,
                                       questions=questions, limit=args.limit,
                                       before_calls=before_calls) if provider and plan else None
                if args.dry_run:
                    raise DryRun  # nothing to ask: the plan line above said so
        except DryRun:
            return 0
        # the repeats under the rubric and, for answers without a gold answer, under its reference-free variant
        consistency = judge_consistency(store, run_id, report.model, rubric_versions=[
            v for v in (report.rubric_version, report.reference_free_version) if v]) if report else None
    endpoint_warnings(provider)
    if provider is None:
        info("gradedesk: no judge endpoint given (--model/--base-url): graded offline only, "
             f"with the rule grader {offline.rule_grader} (not an LLM judge)")
    elif provider.model == answer_model:
        info(f"gradedesk: warning: the judge model {provider.model} also wrote the answers (self-evaluation bias); "
             "prefer a different judge model")
    if args.json:
        print_json({"offline": asdict(offline), "judge": asdict(report) if report else None,
                    "consistency": consistency.to_dict() if consistency else None})
    else:
        print(offline_line(offline))
        if report:
            print(f"run {run_id}: judge {report.model} ({report.rubric_version}), repeat {report.repeat}: "
                  f"{report.grades_done} graded now, {report.grading_errors} unusable replies (grading_error), "
                  f"{report.failed_calls} failed calls, {report.scores_done} LLM scores, "
                  f"{report.unusable_scores} unusable LLM score replies, {report.truncated} replies cut at "
                  f"--max-tokens {args.max_tokens}, {report.stale_regraded} stale grades (gold changed) regraded, "
                  f"{report.skipped_no_gold} answers without a gold answer skipped"
                  + (f", {report.reference_free} without one graded reference-free ({report.reference_free_version})"
                     if report.reference_free else ""))
        if consistency and consistency.answers_repeated:
            share = consistency.share_identical
            print(f"judge consistency: {consistency.identical}/{consistency.answers_repeated} answers graded "
                  f"identically across repeats ({share:.1%})")
            for c in consistency.changed:
                print(f"  changed: {c.question_id} {method_label(c.method, c.budget)}: "
                      f"{' -> '.join(c.grades)}")
        if consistency and consistency.all_errors:
            print(f"judge consistency: {consistency.all_errors} answer(s) got only grading errors in every "
                  f"repeat and are not counted")
    for line in judge_lines(report.failures, report.model) if report else []:
        info(f"gradedesk: {line}")
    if report and report.truncated:
        info(f"gradedesk: {report.truncated} of the unusable replies were cut at --max-tokens {args.max_tokens}")
    if report and report.failed_calls:
        return 1
    if report and report.nothing_usable:
        info(f"gradedesk: no reply of {report.model} could be used: every grade of this run is a grading_error")
        return 1
    return 0


def plan_line(plan: JudgePlan, model: str, no_scores: bool) -> str:
    """'judge m: 6 calls for 2 answers (2 verdicts, 2 faithfulness, 2 relevance); --no-scores skips the 4 scorer
    calls': what the command is about to spend, before it spends it."""
    if not plan.calls:  # a resume with everything done: no counts of nothing, no option that would skip nothing
        asked = "verdicts" if no_scores else "verdicts and scores"
        return f"gradedesk: judge {model}: 0 calls for 0 answers: every answer already has its {asked}"
    kinds = f"{plan.verdicts} verdict{'' if plan.verdicts == 1 else 's'}"
    if no_scores:
        tail = "LLM faithfulness and relevance skipped (--no-scores)"
    else:
        kinds += f", {plan.faithfulness} faithfulness, {plan.relevance} relevance"
        tail = f"--no-scores skips the {plan.faithfulness + plan.relevance} scorer calls"
    return (f"gradedesk: judge {model}: {plan.calls} call{'' if plan.calls == 1 else 's'} for {plan.answers} "
            f"answer{'' if plan.answers == 1 else 's'} ({kinds}); {tail}")
