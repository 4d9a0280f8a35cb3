"""The pairwise judge: which of a question's two answers, raw or bundled, is better, asked in both orders.

`pairwise_run(store, run_id, provider, budgets, repeats)` takes every question of a run that has a gold answer, a raw
answer and a bundled answer at a chosen budget (default: each of the run's budgets), and shows the judge the question,
the gold answer, and both answers, each after its own evidence, as ANSWER 1 and ANSWER 2 under a pairwise rubric
(core/grading/pairwise_rubric.py). In a run read from an application's traces, whose questions have no gold answer,
the pairs without one are judged under the reference-free variant of the built-in pairwise rubric (or the one given
as `free_rubric`): question and each answer after its evidence, no GOLD ANSWER section; their replies record that
rubric's version, so the two rubrics' verdicts never mix (pairwise_verdicts.py keeps each pair under the rubric its
question calls for). Each pair is asked in both orders (raw first, bundle first), each order `repeats`
times. The reply must be JSON {"winner": "1" | "2" | "tie", "reasoning": "..."}; each is stored (core/store/pairwise.py)
with the winner mapped back to the answer it names. What the replies add up to (a verdict only when both orders agree)
is pairwise_verdicts.py's.

As for grades (core/grading/judge.py, whose call loop this reuses): a reply that is not valid JSON of that schema, or
one cut at max_tokens, is stored as an error with the reply kept, and is no verdict; a call that fails after the
provider's retries is stored with no reply and asked again the next time (resume); nothing already answered is asked
again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field

from gradedesk.core.config import VERDICT_MAX_TOKENS
from gradedesk.core.errors import UserError
from gradedesk.core.evidence.record import Evidence
from gradedesk.core.evidence.stored import answer_evidence
from gradedesk.core.grading.judge import JudgeOutcome, ask_each, cut, limited
from gradedesk.core.providers.failures import CALL_FAILED, UNUSABLE, reason_of
from gradedesk.core.grading.llm_io import (ReplyError, format_evidence, parse_json_reply, require,
                                           section)
from gradedesk.core.grading.pairwise_rubric import (PAIRWISE, REFERENCE_FREE_FILE, REPLY, PairwiseRubric,
                                                    builtin_pairwise_rubric)
from gradedesk.core.grading.rubric_lookup import store_rubric
from gradedesk.core.progress import Progress
from gradedesk.core.store import pairwise
from gradedesk.core.store.answers import answers_of_run
from gradedesk.core.store.connection import Store, utc_now
from gradedesk.core.store.kept_replies import Keeper
from gradedesk.core.store.run_records import run_row
from gradedesk.core.store.traces import side_labels

WINNERS = ("1", "2", "tie")
ORDERS = ("raw", "bundle")  # the answer shown first


def other(method: str) -> str:
    return "bundle" if method == "raw" else "raw"


def preferred_of(winner: str, first: str) -> str:
    """The answer a reply's winner names, given which answer was shown first: raw, bundle or tie."""
    return "tie" if winner == "tie" else first if winner == "1" else other(first)


@dataclass(frozen=True)
class AnswerPair:
    """A question's raw answer and its bundled answer at one budget (answer rows as answers_of_run gives them)."""

    question_pk: int
    budget: int
    raw: dict
    bundle: dict
    reference_free: bool = False  # no gold answer (a run read from traces): judged under the reference-free rubric


@dataclass(frozen=True)
class PairTask:
    pair: AnswerPair
    first: str  # raw | bundle: which answer is ANSWER 1
    repeat_index: int


@dataclass
class PairwiseReport:
    run_id: int
    model: str
    rubric_version: str         # the rubric of the pairs with a gold answer
    repeats: int
    budgets: list[int]
    reference_free_version: str | None = None  # the rubric of the pairs without one (a run read from traces)
    pairs: int = 0              # pairs of answers to compare
    reference_free: int = 0     # of them, pairs without a gold answer, judged under the reference-free rubric
    replies_done: int = 0       # usable replies this time
    unusable: int = 0           # replies that could not be used (no verdict; kept with the reply)
    failed_calls: int = 0       # calls that failed after retries (asked again next time)
    truncated: int = 0          # replies cut at max_tokens (each also counted as unusable)
    skipped_no_gold: int = 0    # questions without a gold answer in a run not read from traces (nothing to judge by)
    skipped_unpaired: int = 0   # (question, budget) without both a raw and a bundled answer
    failures: list[tuple[str, str]] = field(default_factory=list)  # (where, why) of each failed call / unusable reply
    sides: dict[str, str] = field(default_factory=dict)  # a run read from traces: its sides' labels (raw, bundle)

    @property
    def nothing_usable(self) -> bool:
        return self.unusable > 0 and self.replies_done == 0


def parse_pairwise_reply(text: str) -> tuple[str, str]:
    """(winner, reasoning) of a reply; ReplyError says what is wrong. A winner given as the number 1 or 2 is taken."""
    data = parse_json_reply(text)
    winner = require(data, "winner", (str, int), '"1", "2" or "tie"')
    winner = str(winner).strip().lower()
    if winner not in WINNERS:
        raise ReplyError(f"winner: {data['winner']!r} is not one of \"1\", \"2\", \"tie\"")
    return winner, REPLY.own(require(data, "reasoning", str, "text"), "reasoning")


def pairwise_messages(rubric: PairwiseRubric, question: str, gold: str | None, first: tuple[str, list[Evidence]],
                      second: tuple[str, list[Evidence]]) -> list[dict]:
    """The judge's messages: the rubric, then the question, the gold answer and each answer after its evidence;
    without a gold answer (reference-free) the GOLD ANSWER section is left out."""
    parts = [section("QUESTION", question), *([section("GOLD ANSWER", gold)] if gold is not None else [])]
    for n, (answer, evidence) in enumerate((first, second), start=1):
        parts += [section(f"EVIDENCE FOR ANSWER {n}", format_evidence(evidence)),
                  section(f"ANSWER {n}", answer or "(empty answer)")]
    return [{"role": "system", "content": rubric.prompt}, {"role": "user", "content": "\n\n".join(parts)}]


def answer_pairs(store: Store, run_id: int, budgets: list[int] | None,
                 check: bool = True) -> tuple[list[AnswerPair], list[int], int, int]:
    """(pairs, budgets, questions without gold left out, (question, budget) without both answers) of a run; `budgets`
    None: every budget of the run's bundled answers. A question without a gold answer gives reference-free pairs in a
    run read from traces and is left out of any other run (as the grade judge does: core/grading/judge.py). With
    `check`, a budget the run does not have is a UserError (the user asked for it); without, it has no pairs."""
    rows = answers_of_run(store, run_id, only_ok=False)
    run_budgets = sorted({a["budget"] for a in rows if a["method"] == "bundle"})
    if budgets is None:
        budgets = run_budgets
    for b in budgets if check else ():
        if b not in run_budgets:
            raise UserError(f"--budgets: {b} is not a budget of run {run_id} (its budgets: "
                            f"{', '.join(map(str, run_budgets)) or 'none'})")
    by_question: dict[int, dict[tuple[str, int], dict]] = defaultdict(dict)
    gold: dict[int, bool] = {}
    for a in rows:
        gold[a["question_pk"]] = bool((a["gold_answer"] or "").strip())
        if a["status"] == "ok":
            by_question[a["question_pk"]][(a["method"], a["budget"])] = a
    traces = "traces" in run_row(store, run_id).config
    pairs, unpaired = [], 0
    for pk in sorted(gold):
        if not (gold[pk] or traces):
            continue
        answers = by_question[pk]
        for b in budgets:
            raw, bundle = answers.get(("raw", 0)), answers.get(("bundle", b))
            if raw and bundle:
                pairs.append(AnswerPair(pk, b, raw, bundle, not gold[pk]))
            else:
                unpaired += 1
    return pairs, budgets, 0 if traces else sum(not g for g in gold.values()), unpaired


def pending_tasks(store: Store, run_id: int, pairs: list[AnswerPair], model: str, versions: tuple[str, str],
                  repeats: int) -> list[PairTask]:
    """What is not asked yet (or failed as a call last time, in a way a retry may fix): a pair with a gold answer under `versions[0]`, one
    without under `versions[1]` (the reference-free rubric)."""
    done = {v: {key for key, error in pairwise.done_replies(store, run_id, model, v).items()
                if error is None or not reason_of(error).retryable}  # a failure no retry can fix stays as it is
            for v in set(versions)}
    return [PairTask(p, first, r) for p in pairs for r in range(repeats) for first in ORDERS
            if (p.bundle["id"], p.raw["id"], first, r) not in done[versions[p.reference_free]]]


def free_rubric_of(free_rubric: PairwiseRubric | None) -> PairwiseRubric:
    """The rubric of the pairs without a gold answer: the one given, else the built-in reference-free rubric."""
    return free_rubric or builtin_pairwise_rubric(REFERENCE_FREE_FILE)


@dataclass(frozen=True)
class PairwisePlan:
    """What `pairwise_run` with the same arguments would ask (nothing is stored), before it asks anything."""

    calls: int
    pairs: int          # pairs with a call to make
    reference_free: int  # of them, pairs without a gold answer (the reference-free rubric)
    gold_pairs: int     # the run's pairs with a gold answer at the chosen budgets, asked or not
    free_pairs: int     # the run's pairs without one, asked or not


def pairwise_plan(store: Store, run_id: int, model: str, budgets: list[int] | None, repeats: int,
                  rubric: PairwiseRubric | None = None, free_rubric: PairwiseRubric | None = None,
                  questions: Collection[int] | None = None, limit: int | None = None) -> PairwisePlan:
    """What `pairwise_run` with the same arguments would ask."""
    pairs = answer_pairs(store, run_id, budgets)[0]
    versions = ((rubric or builtin_pairwise_rubric()).version, free_rubric_of(free_rubric).version)
    tasks = pending_tasks(store, run_id, pairs, model, versions, repeats)
    tasks = limited([t for t in tasks if questions is None or t.pair.question_pk in questions], limit)
    asked = {(t.pair.question_pk, t.pair.budget): t.pair.reference_free for t in tasks}
    free = sum(p.reference_free for p in pairs)
    return PairwisePlan(len(tasks), len(asked), sum(asked.values()), len(pairs) - free, free)


PAIRWISE_REPLY = "pairwise"  # what a kept pairwise reply is (core/store/kept_replies.py)


def _replied(outcome: JudgeOutcome[PairTask], model: str, report: PairwiseReport) -> dict:
    """One outcome as the store takes it, counted in `report`: the record `store_pairwise_reply` writes, and what is
    kept beside the store when the store cannot take it."""
    task, pair = outcome.task, outcome.task.pair
    side = report.sides.get
    where = (f"{pair.raw['question_id']} {side('raw', 'raw')} vs {side('bundle', f'bundle@{pair.budget}')} "
             f"({side(task.first, task.first)} first, repeat {task.repeat_index})")
    winner = preferred = reasoning = error = None
    if outcome.error:
        report.failed_calls += 1
        error = f"{CALL_FAILED}: {outcome.error}"
    else:
        try:
            cut(outcome)
            winner, reasoning = parse_pairwise_reply(outcome.text or "")
            preferred = preferred_of(winner, task.first)
            report.replies_done += 1
        except ReplyError as exc:
            report.unusable += 1
            error = f"{UNUSABLE}: {exc}"
    report.truncated += outcome.cut_at is not None
    if error:
        report.failures.append((where, error))
    version = report.reference_free_version if pair.reference_free else report.rubric_version
    assert version is not None  # pairwise_run stores the reference-free rubric when the run has such pairs
    return asdict(pairwise.PairwiseReply(
        pair.question_pk, pair.budget, pair.bundle["id"], pair.raw["id"], model, version, task.first,
        task.repeat_index, winner, preferred, reasoning, outcome.text, error, utc_now(), outcome.finish_reason,
        outcome.tokens_in, outcome.tokens_out, outcome.cost_usd, outcome.latency_ms))


def store_pairwise_reply(store: Store, record: dict) -> None:
    with store.transaction():
        pairwise.replace_reply(store, pairwise.PairwiseReply(**record))


def pairwise_run(store: Store, run_id: int, provider, budgets: list[int] | None = None, repeats: int = 1, *,
                 progress: Progress | None = None, rubric: PairwiseRubric | None = None,
                 free_rubric: PairwiseRubric | None = None, max_tokens: int = VERDICT_MAX_TOKENS,
                 questions: Collection[int] | None = None, limit: int | None = None,
                 before_calls: Callable[[list[list[dict]]], None] | None = None) -> PairwiseReport:
    """Ask the judge which answer is better for every pair of the run, in both orders, `repeats` times; resume-safe.
    Pairs with a gold answer go under `rubric` (default: the built-in one), pairs without (a run read from traces)
    under `free_rubric` (default: the built-in reference-free one). `questions` (question pks: judge --sample) and
    `limit` (the first that many calls of what is left) bound the work; `before_calls` hears of every prompt first."""
    if repeats < 1:
        raise UserError(f"--repeats: must be at least 1, got {repeats}")
    if max_tokens < 1:
        raise UserError(f"--max-tokens: must be at least 1, got {max_tokens}")
    if getattr(provider, "name", "") == "offline-extractive":
        raise UserError("the offline extractive answerer cannot judge: give a judge --model (and --base-url)")
    rubric = rubric or builtin_pairwise_rubric()
    free = free_rubric_of(free_rubric)
    model = provider.model
    pairs, chosen, no_gold, unpaired = answer_pairs(store, run_id, budgets)
    free_pairs = sum(p.reference_free for p in pairs)
    report = PairwiseReport(run_id, model, store_rubric(store, rubric, PAIRWISE.name), repeats, chosen,
                            store_rubric(store, free, PAIRWISE.name) if free_pairs else None, len(pairs), free_pairs,
                            skipped_no_gold=no_gold, skipped_unpaired=unpaired, sides=side_labels(store, run_id))
    tasks = pending_tasks(store, run_id, pairs, model, (report.rubric_version, free.version), repeats)
    tasks = limited([t for t in tasks if questions is None or t.pair.question_pk in questions], limit)
    evidence: dict[int, list[Evidence]] = {}
    for t in tasks:
        for a in (t.pair.raw, t.pair.bundle):
            if a["id"] not in evidence:
                evidence[a["id"]] = answer_evidence(store, a)

    def messages(task: PairTask) -> list[dict]:
        p = task.pair
        first, second = (p.raw, p.bundle) if task.first == "raw" else (p.bundle, p.raw)
        return pairwise_messages(free if p.reference_free else rubric, p.raw["question"],
                                 None if p.reference_free else p.raw["gold_answer"],
                                 (first["text"] or "", evidence[first["id"]]),
                                 (second["text"] or "", evidence[second["id"]]))

    keeper = Keeper(store, PAIRWISE_REPLY, store_pairwise_reply, "judge --pairwise")
    ask_each(provider, tasks, messages,
             lambda _, outcome: keeper.put(_replied(outcome, model, report), received=outcome.error is None),
             max_tokens, progress, lambda: (report.failed_calls, report.unusable), lambda _: REPLY, before_calls)
    keeper.finish()
    return report
