"""The LLM judge: a versioned rubric, validated JSON verdicts, repeats, resume, and the LLM faithfulness/relevance scores.

`judge_run(store, run_id, provider, repeat=1)` grades every answered answer of a run that has a gold answer, `repeat`
times (and, in a run imported from an application's traces, whose questions have none, every answer without one under
the reference-free variant of the built-in rubric, judged on question, evidence and answer alone) (repeat_index 0..N-1), through any OpenAI-compatible provider (core.providers), with the built-in rubric or the
one it is given (core/grading/rubric_format.py). Each grade records the rubric version, the judge model and the time;
what is done is kept per rubric version, so grades under two rubrics sit side by side. A reply that is not valid JSON of
the rubric's schema becomes grade `unsupported` with failure label `grading_error` and the raw reply kept; a call that
fails after the provider's retries is recorded the same way with no raw reply, and is retried the next time judge_run
runs (resume). Both are counted in summaries. A reply the store will not take is kept beside it until a later command
stores it (core/store/kept_replies.py). Nothing already graded is graded again, unless the question's gold answer or
labels changed since (the grade is stale: core/store/gold.py). Every call asks for JSON mode; an endpoint that
rejects it (HTTP 400) is asked again without it for the rest of the run, since the rubric itself demands a JSON reply.

Every call is bounded by `max_tokens`; a reply cut there (finish_reason "length") is a grading_error that says so, since
half a verdict is not one. Unusable verdicts and scores are counted apart from failed calls, so a judge model that
does not follow the rubric shows as such instead of as "0 failed".
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Generic, TypeVar

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.evidence.stored import answer_evidence
from gradedesk.core.progress import Progress
from gradedesk.core.grading.retrieval_evals import method_label
from gradedesk.core.grading.vocabulary import FAILURE_LABELS, GRADES, GRADING_ERROR, PASS_GRADE
from gradedesk.core.grading.llm_io import (ReplyError, format_evidence, parse_json_reply, require,
                                           section)
from gradedesk.core.providers import ChatResult, ProviderError, run_bounded
from gradedesk.core.grading.reply_format import ReplyFormat, schema_sent, with_format
from gradedesk.core.grading.rubric_format import REFERENCE_FREE_FILE, REPLY, Rubric, builtin_rubric
from gradedesk.core.providers.failures import CALL_FAILED, UNUSABLE, reason_of
from gradedesk.core.grading.rubric_lookup import store_rubric
from gradedesk.core.grading.scorers import FORMATS, PARSERS, SCORE_METRICS, llm_method, score_messages
from gradedesk.core.errors import UserError
from gradedesk.core.config import VERDICT_MAX_TOKENS
from gradedesk.core.store import machine_grades
from gradedesk.core.store.answers import answers_of_run
from gradedesk.core.store.connection import Store, utc_now
from gradedesk.core.store.kept_replies import Keeper
from gradedesk.core.store.run_records import run_row
from gradedesk.core.store.machine_grades import AutoGrade, Score, store_scores

# the built-in rubric (core/grading/judge-rubric.rubric): its version and the system message it gives the judge
RUBRIC_VERSION = builtin_rubric().version
RUBRIC = builtin_rubric().prompt


@dataclass
class Verdict:
    grade: str
    failure_label: str | None
    confidence: float | None
    reasoning: str


def judge_messages(rubric: Rubric, question: str, gold: str | None, answer: str,
                   evidence: list[Evidence]) -> list[dict]:
    """The judge's messages; without a gold answer (reference-free) the GOLD ANSWER section is left out."""
    parts = [section("QUESTION", question), *([section("GOLD ANSWER", gold)] if gold is not None else []),
             section("EVIDENCE", format_evidence(evidence)), section("ANSWER", answer)]
    user = "\n\n".join(parts)
    return [{"role": "system", "content": rubric.prompt}, {"role": "user", "content": user}]


def parse_verdict(text: str) -> Verdict:
    """A judge reply validated against the rubric's schema; ReplyError says what is wrong."""
    data = parse_json_reply(text)
    grade = require(data, "grade", str, "one of " + ", ".join(GRADES))
    if grade not in GRADES:
        raise ReplyError(f"grade: {grade!r} is not one of {', '.join(GRADES)}")
    label = data.get("failure_label")
    if grade == PASS_GRADE:
        if label not in (None, "", "none"):
            raise ReplyError(f"failure_label: must be null for {PASS_GRADE}, got {label!r}")
        label = None
    elif label not in FAILURE_LABELS:
        raise ReplyError(f"failure_label: {label!r} is not one of {', '.join(FAILURE_LABELS)}")
    confidence = require(data, "confidence", (int, float), "a number from 0 to 1")
    if not 0 <= confidence <= 1:
        raise ReplyError(f"confidence: {confidence} is outside 0..1")
    reasoning = REPLY.own(require(data, "reasoning", str, "text"), "reasoning")
    return Verdict(grade, label, float(confidence), reasoning)


# running the judge over a run -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class JudgeTask:
    answer: dict
    kind: str  # "grade" or a metric of core.scorers
    repeat_index: int = 0
    reference_free: bool = False  # no gold answer: graded under the reference-free rubric


T = TypeVar("T")


@dataclass
class JudgeOutcome(Generic[T]):
    task: T  # what was asked (a JudgeTask; a pairwise task: core/grading/pairwise_judge.py)
    text: str | None = None  # the raw reply; None when the call failed
    error: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None
    finish_reason: str | None = None
    cut_at: int | None = None  # the max_tokens the reply was cut at, when it was
    error_kind: str | None = None  # how the call failed (core/providers/chat.py ProviderError.kind)


@dataclass
class JudgeReport:
    run_id: int
    model: str
    rubric_version: str
    repeat: int
    grades_done: int = 0
    grading_errors: int = 0   # verdict replies that could not be used
    failed_calls: int = 0     # calls that failed after retries (retried next time)
    scores_done: int = 0
    unusable_scores: int = 0  # faithfulness/relevance replies that could not be used
    truncated: int = 0        # replies cut at max_tokens (each also counted as unusable)
    stale_regraded: int = 0   # grades made against an older gold answer, graded again
    skipped_no_gold: int = 0
    reference_free: int = 0   # answers without a gold answer graded under the reference-free rubric (traces)
    reference_free_version: str | None = None
    failures: list[tuple[str, str]] = field(default_factory=list)  # (where, why) of each failed call / unusable reply

    @property
    def unusable(self) -> int:
        return self.grading_errors + self.unusable_scores

    @property
    def nothing_usable(self) -> bool:
        """Every reply this time was unusable: the judge model does not follow the rubric (or is cut every time)."""
        return self.unusable > 0 and self.grades_done + self.scores_done == 0


def _pending(store: Store, answers: list[dict], model: str, rubric_version: str, repeat: int,
             scores: bool) -> list[JudgeTask]:
    """What is not graded yet, plus what failed as a call last time in a way a retry may fix (retried); a call that
    failed for good (a prompt over the model's context) stays as it is."""
    ids = [a["id"] for a in answers]
    done_grades = machine_grades.fresh_judge_grades(store, ids, model, rubric_version) | {
        key for key, why in machine_grades.failed_judge_calls(store, ids, model, rubric_version).items()
        if not reason_of(why).retryable}
    done_scores = set()
    for answer_id, metric, detail in machine_grades.score_details(store, ids, llm_method(model)):
        stored = json.loads(detail or "{}")
        if stored.get("error") != "call_failed" or not reason_of(stored.get("why")).retryable:
            done_scores.add((answer_id, metric))
    tasks = [JudgeTask(a, "grade", r) for a in answers for r in range(repeat) if (a["id"], r) not in done_grades]
    if scores:
        tasks += [JudgeTask(a, m) for a in answers for m in SCORE_METRICS if (a["id"], m) not in done_scores]
    return tasks


JUDGED = "judge"  # what a kept verdict or LLM score is (core/store/kept_replies.py)


def _judged(outcome: JudgeOutcome[JudgeTask], model: str, report: JudgeReport) -> dict:
    """One outcome as the store takes it (a grade, or a score), counted in `report`: the record `store_judged`
    writes, and what is kept beside the store when the store cannot take it."""
    task, a = outcome.task, outcome.task.answer
    usage = {"tokens_in": outcome.tokens_in, "tokens_out": outcome.tokens_out, "cost_usd": outcome.cost_usd,
             "latency_ms": outcome.latency_ms}
    where = f"{a['question_id']} {method_label(a['method'], a['budget'])}"
    if outcome.error:
        report.failed_calls += 1
        report.failures.append((f"{where} {task.kind}", f"{CALL_FAILED}: {outcome.error}"))
    report.truncated += outcome.cut_at is not None
    if task.kind != "grade":
        score = _parse_score(task.kind, outcome)
        score.detail.update({k: v for k, v in usage.items() if v is not None})
        if outcome.finish_reason:
            score.detail["finish_reason"] = outcome.finish_reason
        if outcome.error is None and score.detail.get("error") is None:
            report.scores_done += 1
        elif outcome.error is None:
            report.unusable_scores += 1
            report.failures.append((f"{where} {task.kind}", f"{UNUSABLE}: {score.detail['why']}"))
        return {"score": {"answer_id": a["id"], "method": llm_method(model), "created_at": utc_now(),
                          **asdict(score)}}
    if outcome.error:
        verdict = Verdict("unsupported", GRADING_ERROR, None, f"{CALL_FAILED}: {outcome.error}")
    else:
        try:
            verdict = _parse_verdict_of(outcome)
            report.grades_done += 1
        except ReplyError as exc:
            report.grading_errors += 1
            report.failures.append((f"{where} grade", f"{UNUSABLE}: {exc}"))
            verdict = Verdict("unsupported", GRADING_ERROR, None, f"{UNUSABLE}: {exc}")
    version = report.reference_free_version if task.reference_free else report.rubric_version
    return {"grade": asdict(AutoGrade(
        a["id"], "judge", model, version, task.repeat_index, verdict.grade, verdict.failure_label,
        verdict.confidence, verdict.reasoning, outcome.text, utc_now(), outcome.finish_reason, outcome.tokens_in,
        outcome.tokens_out, outcome.cost_usd, outcome.latency_ms))}


def store_judged(store: Store, record: dict) -> None:
    """Store one judged outcome (`_judged`) in its own transaction (an interrupted run keeps everything finished so
    far)."""
    with store.transaction():
        if "grade" in record:
            machine_grades.replace_auto_grade(store, AutoGrade(**record["grade"]))
        else:
            s = record["score"]
            store_scores(store, s["answer_id"], [Score(s["metric"], s["value"], s["detail"])], s["method"],
                         s["created_at"])


def cut(outcome: JudgeOutcome) -> None:
    """A reply cut at max_tokens is not used, even when a JSON object can be read from it: half a verdict is not one."""
    if outcome.cut_at is not None:
        raise ReplyError(f"reply cut at --max-tokens {outcome.cut_at} (finish_reason length); raise --max-tokens")


def _parse_verdict_of(outcome: JudgeOutcome) -> Verdict:
    cut(outcome)
    return parse_verdict(outcome.text or "")


def _parse_score(metric: str, outcome: JudgeOutcome) -> Score:
    if outcome.error:
        return Score(metric, None, {"error": "call_failed", "why": outcome.error})
    try:
        cut(outcome)
        return PARSERS[metric](outcome.text or "")
    except ReplyError as exc:
        return Score(metric, None, {"error": GRADING_ERROR, "why": str(exc), "raw_response": (outcome.text or "")[:2000]})


@dataclass(frozen=True, slots=True)
class JudgePlan:
    """The calls a judge run will make, by kind, before it makes any (resumed work left out)."""
    answers: int        # answers with a gold answer still to judge or score
    verdicts: int
    faithfulness: int
    relevance: int

    @property
    def calls(self) -> int:
        return self.verdicts + self.faithfulness + self.relevance


def _gold_answers(store: Store, run_id: int,
                  answer_ids: Collection[int] | None) -> tuple[list[dict], list[dict], int]:
    """The run's answers a judge can grade: those with a gold answer, those it grades reference-free (no gold, in a
    run read from traces), and how many were left out for lack of a gold answer."""
    answers = answers_of_run(store, run_id)
    if answer_ids is not None:
        answers = [a for a in answers if a["id"] in answer_ids]
    gold = [a for a in answers if (a["gold_answer"] or "").strip()]
    rest = [a for a in answers if not (a["gold_answer"] or "").strip()]
    free = rest if "traces" in run_row(store, run_id).config else []
    return gold, free, len(rest) - len(free)


def _tasks(store: Store, gold: list[dict], free: list[dict], model: str, versions: tuple[str, str | None],
           repeat: int, scores: bool) -> list[JudgeTask]:
    """What is pending of the answers with a gold answer (under the rubric) and of those graded reference-free."""
    tasks = _pending(store, gold, model, versions[0], repeat, scores) if gold else []
    if free and versions[1] is not None:
        tasks += [replace(t, reference_free=True) for t in _pending(store, free, model, versions[1], repeat, scores)]
    return tasks


def judge_plan(store: Store, run_id: int, model: str, repeat: int = 1, *, scores: bool = True,
               rubric: Rubric | None = None, questions: Collection[int] | None = None,
               limit: int | None = None) -> JudgePlan:
    """What `judge_run` with the same arguments would call the model for (nothing is stored)."""
    gold, free, _ = _gold_answers(store, run_id, None)
    versions = ((rubric or builtin_rubric()).version, builtin_rubric(REFERENCE_FREE_FILE).version)
    tasks = _tasks(store, gold, free, model, versions, repeat, scores)
    tasks = limited([t for t in tasks if questions is None or t.answer["question_pk"] in questions], limit)
    kinds = [t.kind for t in tasks]
    return JudgePlan(len({t.answer["id"] for t in tasks}), kinds.count("grade"), kinds.count("faithfulness"),
                     kinds.count("answer_relevance"))


def reply_format(task: JudgeTask) -> ReplyFormat:
    """A task's reply format and schema: a verdict (every rubric shares gradedesk's reply format and vocabulary), or a
    score."""
    return REPLY if task.kind == "grade" else FORMATS[task.kind]


def judge_run(store: Store, run_id: int, provider, repeat: int = 1, *, scores: bool = True,
              progress: Progress | None = None, rubric: Rubric | None = None,
              answer_ids: Collection[int] | None = None, max_tokens: int = VERDICT_MAX_TOKENS,
              questions: Collection[int] | None = None, limit: int | None = None,
              before_calls: Callable[[list[list[dict]]], None] | None = None) -> JudgeReport:
    """Judge (and, with scores, LLM-score) every answered answer of a run that has a gold answer; resume-safe.

    `rubric` defaults to the built-in one; `answer_ids` limits the work to those answers of the run (align judges
    its train and test items apart), `questions` to the answers of those questions (question pks: judge --sample);
    `limit` to the first that many calls of what is left. `before_calls` hears of every prompt before the first call
    (core/grading/judge.py ask_each)."""
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    if max_tokens < 1:
        raise UserError(f"--max-tokens: must be at least 1, got {max_tokens}")
    if getattr(provider, "name", "") == "offline-extractive":
        raise UserError("the offline extractive answerer cannot judge: give a judge --model (and --base-url), "
                        "or grade offline with the rule grader (gradedesk grade-offline)")
    model = provider.model
    rubric = rubric or builtin_rubric()
    report = JudgeReport(run_id, model, store_rubric(store, rubric), repeat)
    gold, free, report.skipped_no_gold = _gold_answers(store, run_id, answer_ids)
    free_rubric = builtin_rubric(REFERENCE_FREE_FILE)
    if free:
        report.reference_free_version = store_rubric(store, free_rubric)
    tasks = _tasks(store, gold, free, model, (report.rubric_version, report.reference_free_version), repeat, scores)
    tasks = limited([t for t in tasks if questions is None or t.answer["question_pk"] in questions], limit)
    report.reference_free = len({t.answer["id"] for t in tasks if t.reference_free})
    report.stale_regraded = machine_grades.stale_judge_grades(store, run_id, model)
    evidence = {t.answer["id"]: answer_evidence(store, t.answer) for t in tasks}

    def messages(task: JudgeTask) -> list[dict]:
        a = task.answer
        if task.kind == "grade" and task.reference_free:
            return judge_messages(free_rubric, a["question"], None, a["text"] or "", evidence[a["id"]])
        if task.kind == "grade":
            return judge_messages(rubric, a["question"], a["gold_answer"], a["text"] or "", evidence[a["id"]])
        return score_messages(task.kind, a["question"], a["text"] or "", evidence[a["id"]])

    keeper = Keeper(store, JUDGED, store_judged, "judge")
    ask_each(provider, tasks, messages,
             lambda _, outcome: keeper.put(_judged(outcome, model, report), received=outcome.error is None),
             max_tokens, progress, lambda: (report.failed_calls, report.unusable), reply_format, before_calls)
    keeper.finish()
    return report


def limited(tasks: list[T], limit: int | None) -> list[T]:
    """The first `limit` tasks (all of them for None): --limit, the next N calls not yet made."""
    if limit is not None and limit < 1:
        raise UserError(f"--limit: must be at least 1, got {limit}")
    return tasks if limit is None else tasks[:limit]


def ask_each(provider, tasks: Sequence[T], messages: Callable[[T], list[dict]],
             done: Callable[[T, JudgeOutcome[T]], None], max_tokens: int, progress: Progress | None = None,
             failed: Callable[[], tuple[int, int]] = lambda: (0, 0),
             reply: Callable[[T], ReplyFormat | None] = lambda _: None,
             before_calls: Callable[[list[list[dict]]], None] | None = None) -> None:
    """Ask the judge model about each task (at the provider's concurrency; `done` gets each outcome as it comes, in
    the calling thread's event loop, and `progress` hears of it as phase "judge", with `failed()`: (failed calls,
    unusable replies) so far), then close the provider (nothing is asked, and nothing closed, when there are no
    tasks). Each call sends the task's `reply` schema in the form the endpoint's probe found
    (core/providers/structured.py), or asks for JSON mode when there was no probe; an endpoint that rejects it (HTTP
    400) is asked again without it for the rest of the run. The system message ends with the reply's format, worded
    for whether the schema goes with the call (core/grading/reply_format.py). A call that
    fails after the provider's retries is an outcome with an error, not an exception; an unreachable endpoint
    (UserError) ends the run with one line. `before_calls` hears of every prompt before the first is sent (the
    commands print the plan and its estimated tokens)."""
    if not tasks:
        return
    json_mode = True  # asked for; dropped for good if the endpoint rejects response_format (HTTP 400)
    bare = [messages(task) for task in tasks]

    def prompt(index: int) -> list[dict]:
        return with_format(bare[index], reply(tasks[index]), schema_sent(provider, json_mode))

    if before_calls is not None:
        before_calls([prompt(index) for index in range(len(tasks))])
    finished = 0
    if progress:
        progress("judge", 0, len(tasks), 0, unusable=0)

    def finish(index: int, outcome: JudgeOutcome[T]) -> None:
        nonlocal finished
        done(tasks[index], outcome)
        finished += 1
        if progress:
            calls, unusable = failed()
            progress("judge", finished, len(tasks), calls, unusable=unusable)

    async def call(index: int) -> JudgeOutcome[T]:
        nonlocal json_mode
        task, wanted = tasks[index], reply(tasks[index])
        try:
            try:
                r = await provider.complete(prompt(index), json_mode=json_mode, max_tokens=max_tokens,
                                            shape=wanted.shape if json_mode and wanted else None)
            except ProviderError as exc:
                if not (json_mode and exc.status == 400 and exc.kind == "status"):
                    raise
                json_mode = False  # some servers (older llama.cpp, some proxies) reject JSON mode: the rubric asks anyway
                r = await provider.complete(prompt(index), json_mode=False, max_tokens=max_tokens)
        except ProviderError as exc:
            return JudgeOutcome(task, error=f"{exc} (after {exc.attempts} attempt{'' if exc.attempts == 1 else 's'})",
                                error_kind=exc.kind)
        return _outcome(task, r, max_tokens)

    async def main() -> None:
        try:
            await run_bounded(range(len(tasks)), call, getattr(provider, "concurrency", 4), finish)
        except* UserError as group:  # e.g. the endpoint is unreachable: one line, not a group traceback
            raise group.exceptions[0] from None
        finally:
            await provider.aclose()

    asyncio.run(main())


def _outcome(task: T, r: ChatResult, max_tokens: int) -> JudgeOutcome[T]:
    return JudgeOutcome(task, r.text, None, r.tokens_in, r.tokens_out, r.cost_usd, r.latency_ms, r.finish_reason,
                   max_tokens if r.truncated else None)
