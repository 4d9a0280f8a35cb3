"""Benchmark runs: answer every question twice (raw top-k vs evidence bundles, one bundle per token budget).

A run is identified by its configuration (benchmark, repository and its commit, provider, model, endpoint host, budgets,
tokenizer, compiler and prompt versions, label, max_tokens): running the same command again finds the same run and answers only
what is not answered yet, so an interrupted or partly failed run resumes. Every answer row is created `pending` up front;
each call's outcome is written in its own transaction as it arrives (`ok` with text, tokens, latency and cost, or
`error` with the provider's message and the attempt count). Failed answers are retried on the next resume, never
dropped; a reply the store will not take is kept beside it until a later command stores it
(core/store/kept_replies.py). Ctrl-C cancels the calls in flight; everything written so far stays consistent.

Every model call is bounded by `max_tokens` (a base model never stops by itself, and a paid one bills runaway replies);
each answer records its finish_reason ("length": truncated at the limit) and, for a reasoning model, its reasoning apart
from the answer text. The offline answerer is bounded by its own line count and takes no max_tokens.

The bundled answer of each budget keeps its bundle (tables `bundles`, `bundle_snippets`); a raw answer keeps its hits
(answers.evidence). `runs.primary_budget`, the bundle the desk shows beside raw, is the largest budget.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gradedesk.core.config import ANSWER_MAX_TOKENS, DEFAULT_BUDGETS, RAW_K
from gradedesk.core.runs.prompts import bundle_messages, evidence_json, raw_messages, store_prompts, unique_files
from gradedesk.core.evidence.bundle import COMPILER_VERSION, EvidenceBundle
from gradedesk.core.evidence.stored import save_bundle
from gradedesk.core.errors import UserError
from gradedesk.core.providers import ChatResult, ProviderError, endpoint_host, run_bounded
from gradedesk.core.runs.questions import Question, benchmark_name, load_questions, store_questions
from gradedesk.core.progress import Progress  # stages: retrieve, answer
from gradedesk.core.grading.evidence_grades import grade_evidence
from gradedesk.core.runs.failures import stuck
from gradedesk.core.store.kept_replies import Keeper
from gradedesk.core.store.answers import (AnswerWrite, Slot, add_pending_answers, answer_statuses, record_answer,
                                          run_answers)
from gradedesk.core.store.connection import Store, utc_now
from gradedesk.core.store.index import RepoRecord
from gradedesk.core.store.run_records import NewRun, add_run, delete_run, run_by_key
from gradedesk.core.stats.weighted import sample_items
from gradedesk.core.text.tokens import get_tokenizer



def parse_budgets(text: str | list[int] | tuple[int, ...]) -> list[int]:
    """"1000,2000,4000" → [1000, 2000, 4000] (sorted, unique); bad values are a one-line error."""
    parts = text if isinstance(text, (list, tuple)) else [p for p in str(text).split(",") if p.strip()]
    budgets = set()
    for part in parts:
        try:
            value = int(str(part).strip())
        except ValueError:
            raise UserError(f"--budgets: {str(part).strip()!r} is not a whole number of tokens") from None
        if value <= 0:
            raise UserError(f"--budgets: {value} must be a positive number of tokens")
        budgets.add(value)
    if not budgets:
        raise UserError("--budgets: give at least one token budget, e.g. 1000,2000,4000")
    return sorted(budgets)


@dataclass
class RunSpec:
    """Everything that decides the answers of a run; the same spec is the same run."""

    benchmark: str
    repo_id: int
    repo_name: str
    repo_commit: str | None
    provider: str
    model: str | None
    endpoint_host: str | None
    budgets: list[int]
    tokenizer: str
    raw_k: int = RAW_K
    candidates_k: int = 40  # hits handed to the compiler (run_spec takes core.compile's); raw sees the top raw_k
    compiler_version: str = COMPILER_VERSION
    prompt_versions: dict[str, str] = field(default_factory=dict)
    label: str | None = None
    excluded_files: list[str] = field(default_factory=list)  # never evidence: the questions file, if indexed
    max_tokens: int | None = None  # None: the offline answerer, which takes no limit
    embeddings_model: str | None = None  # vector search joins retrieval with this model's stored chunk vectors
    system_role: str | None = None  # "user": the instructions went in the user message (--system-role user)
    sample: dict | None = None  # run --sample: {size, population, seed, inclusion_probability}; None: every question

    @property
    def fetch_k(self) -> int:
        return max(self.candidates_k, self.raw_k) + len(self.excluded_files) * 5

    def key(self) -> str:
        fields = asdict(self)
        if fields["max_tokens"] is None:  # keeps the keys of offline runs (and of runs made before the limit) as they were
            del fields["max_tokens"]
        for name in ("embeddings_model", "system_role", "sample"):  # unset: a run keeps the key it had before the setting
            if fields[name] is None:
                del fields[name]
        return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]


def find_or_create_run(store: Store, spec: RunSpec, extra_config: dict | None = None) -> tuple[int, bool]:
    """(run id, created): the run with this spec's key, or a new one."""
    key = spec.key()
    with store.transaction():
        existing = run_by_key(store, "run", key)
        if existing is not None:
            return existing, False
        config = {"key": key, "repo": spec.repo_name, "candidates_k": spec.candidates_k,
                  "excluded_files": spec.excluded_files, **(extra_config or {})}
        run_id = add_run(store, NewRun(
            source="run", created_at=utc_now(), label=spec.label, provider=spec.provider, model=spec.model,
            benchmark=spec.benchmark, budgets=spec.budgets, primary_budget=max(spec.budgets),
            order_seed=random.randrange(2**31), config=config, endpoint_host=spec.endpoint_host,
            repo_id=spec.repo_id, repo_commit=spec.repo_commit, raw_k=spec.raw_k, tokenizer=spec.tokenizer,
            compiler_version=spec.compiler_version, prompt_versions=spec.prompt_versions))
    return run_id, True


# one benchmark run -----------------------------------------------------------------------------------------------------
@dataclass
class AnswerTask:
    """One answer to ask for: a question's raw answer or its bundled answer at one budget, with the messages to send."""

    question_pk: int
    question: Question
    method: str  # raw | bundle
    budget: int  # 0 for raw
    messages: list[dict] = field(default_factory=list)
    evidence: str | None = None
    evidence_files: str = "[]"
    bundle: EvidenceBundle | None = None
    prompt_version: str = ""


@dataclass
class AnswerOutcome:
    """What the call of an AnswerTask gave: a result, or the provider's error."""

    task: AnswerTask
    result: ChatResult | None
    error: ProviderError | None


@dataclass
class RunSummary:
    run_id: int
    created: bool
    questions: int
    answers_total: int     # answers the run has (raw + one per budget, per question)
    already_done: int      # answered in an earlier invocation
    answered_now: int
    failed_now: int
    pending: int           # left unanswered (interrupted)
    interrupted: bool = False
    truncated_now: int = 0  # answered now but cut at max_tokens (finish_reason "length")
    kept: int = 0           # replies the store would not take, kept beside it for the next run (store/kept_replies)
    not_retried: int = 0    # failed before in a way no retry can fix (a prompt over the model's context): left as is

    def to_dict(self) -> dict:
        return asdict(self)


def _pending_rows(store: Store, run_id: int, qpks: dict[str, int], budgets: list[int]) -> dict[Slot, str]:
    """Create the run's answer rows (pending) where missing; return {(question_pk, method, budget): status}."""
    slots: list[Slot] = [(pk, "raw", 0) for pk in qpks.values()] + [(pk, "bundle", b) for pk in qpks.values()
                                                                    for b in budgets]
    add_pending_answers(store, run_id, slots, utc_now())
    status = answer_statuses(store, run_id)
    return {slot: status[slot] for slot in slots}


def _prepare(store: Store, spec: RunSpec, repo: RepoRecord, question: Question, qpk: int,
             todo: list[tuple[str, int]], embedder: Any = None) -> list[AnswerTask]:
    """Retrieve once per question; build the raw context and one bundle per budget still to answer."""
    from gradedesk.core.evidence.compile import build_bundle, compile_context
    from gradedesk.core.retrieval.hybrid import retrieve, unindexed_files
    from gradedesk.core.retrieval.vectors import embed_question
    from gradedesk.core.text.question import analyse_question

    info = analyse_question(question.question)
    vector = embed_question(store, repo, embedder, info.text) if embedder else None
    hits = [h for h in retrieve(store, info, repo=repo, k=spec.fetch_k, query_vector=vector)
            if h.file_path not in spec.excluded_files][:max(spec.candidates_k, spec.raw_k)]
    absent = unindexed_files(store, repo, info.files)
    tasks = []
    for method, budget in todo:
        task = AnswerTask(qpk, question, method, budget)
        if method == "raw":
            task.messages = raw_messages(question.question, hits)
            task.evidence, task.evidence_files = evidence_json(hits)
            task.prompt_version = spec.prompt_versions["raw_system"]
        else:
            bundle = build_bundle(compile_context(info, hits, budget, spec.tokenizer, absent))
            task.bundle = bundle
            task.messages = bundle_messages(question.question, bundle)
            task.evidence_files = json.dumps(unique_files([s.file_path for s in bundle.snippets]))
            task.prompt_version = spec.prompt_versions["bundle_system"]
        tasks.append(task)
    return tasks


ANSWER = "answer"  # what a kept reply of a run is (core/store/kept_replies.py)


def _answer_record(run_id: int, t: AnswerTask, outcome: AnswerOutcome) -> dict[str, Any]:
    """One call's outcome as the store takes it, and as it is kept beside the store when the store cannot (a reply;
    a failed call is retried next time instead)."""
    r, e = outcome.result, outcome.error
    return {"run_id": run_id, "question_pk": t.question_pk, "method": t.method, "budget": t.budget,
            "evidence": t.evidence, "evidence_files": t.evidence_files, "prompt_version": t.prompt_version,
            "bundle": t.bundle.to_dict() if t.bundle is not None else None,
            "result": asdict(r) if r is not None else None, "error": None if e is None else str(e),
            "attempts": e.attempts if e is not None else 0, "created_at": utc_now()}


def store_answer(store: Store, record: dict[str, Any]) -> None:
    """Write one call's outcome (and its bundle) in one transaction; a replaced bundle of an earlier try is removed."""
    r = ChatResult(**record["result"]) if record["result"] is not None else None
    with store.transaction():
        bundle = EvidenceBundle.from_dict(record["bundle"]) if record["bundle"] is not None else None
        bundle_id = save_bundle(store, bundle) if bundle is not None else None
        if r is None:
            write = AnswerWrite("error", record["evidence"], record["evidence_files"], bundle_id,
                                record["prompt_version"], record["created_at"], record["attempts"],
                                error=record["error"])
        else:
            write = AnswerWrite("ok", record["evidence"], record["evidence_files"], bundle_id,
                                record["prompt_version"], record["created_at"], r.attempts, text=r.text,
                                tokens_in=r.tokens_in, tokens_out=r.tokens_out, tokens_counted=int(r.tokens_counted),
                                latency_ms=r.latency_ms, cost_usd=r.cost_usd, finish_reason=r.finish_reason,
                                reasoning=r.reasoning)
        record_answer(store, record["run_id"], (record["question_pk"], record["method"], record["budget"]), write)


def _paths_inside(path: str, root: str) -> list[str]:
    """`path` relative to `root` ('/'-separated) when it lies inside it: as named and, for a symlink, its target."""
    root_path = Path(root).resolve()
    found = []
    for candidate in (Path(path).absolute(), Path(path).resolve()):
        try:
            relative = candidate.relative_to(root_path).as_posix()
        except ValueError:
            continue
        if relative not in found:
            found.append(relative)
    return found


def run_spec(store: Store, benchmark: str, provider: Any, budgets: list[int], repo: RepoRecord,
             tokenizer: str | None = None, label: str | None = None, questions_path: str | None = None,
             max_tokens: int | None = ANSWER_MAX_TOKENS, embeddings_model: str | None = None) -> RunSpec:
    """The run's spec for the repository `repo`; budgets are counted with `tokenizer`, by default the one the
    repository was indexed with.

    A questions file inside the indexed repository holds the gold answers: it is excluded from the evidence, or the
    benchmark would retrieve its own answer key.
    """
    from gradedesk.core.evidence.compile import CANDIDATE_HITS

    model_run = provider.name == "openai-compatible"
    endpoint = endpoint_host(provider.base_url) if model_run else None
    return RunSpec(
        benchmark=benchmark, repo_id=repo.id, repo_name=repo.name, repo_commit=repo.git_commit,
        provider=provider.name, model=provider.model,
        endpoint_host=endpoint, budgets=parse_budgets(budgets),
        tokenizer=get_tokenizer(tokenizer or repo.tokenizer).id,
        candidates_k=CANDIDATE_HITS, prompt_versions=store_prompts(store), label=label,
        excluded_files=_paths_inside(questions_path, repo.root) if questions_path else [],
        max_tokens=max_tokens if model_run else None,
        embeddings_model=embeddings_model,
        system_role="user" if model_run and provider.system_role == "user" else None,
    )


def run_benchmark(store: Store, questions_path: str, provider: Any, *,
                  budgets: list[int] | tuple[int, ...] | str = DEFAULT_BUDGETS,
                  repo: str | None = None, tokenizer: str | None = None, label: str | None = None,
                  concurrency: int = 4, progress: Progress | None = None,
                  max_tokens: int = ANSWER_MAX_TOKENS, embedder: Any = None,
                  before_calls: Callable[[int, list[AnswerTask]], None] | None = None,
                  sample: tuple[int, int] | None = None, limit: int | None = None) -> RunSummary:
    """Answer every question raw and bundled (per budget), resuming the run with the same configuration; with an
    embedder (core.providers.embeddings), retrieval fuses vector search with the repository's stored chunk vectors.
    `before_calls(run_id, tasks)` hears of the calls about to be made, once they are prepared and before the first
    (the commands probe the endpoint and say what the calls will cost there).

    `sample` (n, seed): the run asks a seeded simple random sample of n of the benchmark's questions, and records
    each one's inclusion probability n / N on the run (config "sample"), which the desk's draws multiply with theirs
    (core/review/sampler.py), so weighted estimates stay honest; a sampled run is a run of its own. `limit`: at most
    that many calls now, the first of those not yet done (a resume takes the next ones). Replies an earlier command
    kept beside the store are the command's to take in first (core/cli/kept_replies.py)."""
    from gradedesk.core.index.indexer import resolve_repo

    if max_tokens < 1:
        raise UserError(f"--max-tokens: must be at least 1, got {max_tokens}")
    if limit is not None and limit < 1:
        raise UserError(f"--limit: must be at least 1, got {limit}")
    questions = load_questions(questions_path)
    benchmark = benchmark_name(questions_path)
    sampled = None
    if sample is not None:
        chosen, pi = sample_items(range(len(questions)), sample[0], sample[1], "--sample",
                                  f"{questions_path} has {{N}} questions")
        sampled = {"size": sample[0], "population": len(questions), "seed": sample[1], "inclusion_probability": pi}
        questions = [questions[i] for i in chosen]
    record = resolve_repo(store, repo)  # once: every layer of the run is handed this record
    spec = run_spec(store, benchmark, provider, parse_budgets(budgets), record, tokenizer, label,
                    str(questions_path), max_tokens, embedder.model if embedder else None)
    spec.sample = sampled
    if embedder:
        from gradedesk.core.retrieval.vectors import embedding_settings

        embedding_settings(store, record, embedder.model)  # no vectors: say so before any call
    qpks = store_questions(store, benchmark, questions)
    extra = {"questions_file": str(questions_path), "concurrency": concurrency,
             "counting_tokenizer": getattr(provider, "tokenizer_id", None), "max_tokens": spec.max_tokens}
    if embedder:
        extra["embeddings_model"] = embedder.model
    if sampled:
        extra["sample"] = sampled
    run_id, created = find_or_create_run(store, spec, extra)
    status = _pending_rows(store, run_id, qpks, spec.budgets)
    already = sum(1 for s in status.values() if s == "ok")
    left = stuck(run_answers(store, run_id))  # a retry cannot fix them: not asked again
    todo: dict[int, list[tuple[str, int]]] = {}
    for (pk, method, budget), s in sorted(status.items(), key=lambda kv: (kv[0][0], kv[0][1] != "raw", kv[0][2])):
        if s != "ok" and (pk, method, budget) not in left and (limit is None or limit > 0):  # a question's in order
            todo.setdefault(pk, []).append((method, budget))
            limit = None if limit is None else limit - 1
    summary = RunSummary(run_id, created, len(questions), len(status), already, 0, 0,
                         len(status) - already - len(left & status.keys()), not_retried=len(left & status.keys()))
    if not todo:
        return summary
    report = progress or (lambda phase, done, total, failed: None)
    tasks: list[AnswerTask] = []
    by_pk = {qpks[q.id]: q for q in questions}
    try:
        for i, (pk, slots) in enumerate(todo.items(), start=1):
            tasks.extend(_prepare(store, spec, record, by_pk[pk], pk, slots, embedder))
            report("retrieve", i, len(todo), 0)
        if before_calls is not None:
            before_calls(run_id, tasks)
        report("answer", 0, len(tasks), 0)

        keeper = Keeper(store, ANSWER, store_answer, "run")

        def done(task: AnswerTask, outcome: AnswerOutcome) -> None:
            # a reply is never thrown away: retried while the store refuses it, then kept beside the store
            keeper.put(_answer_record(run_id, task, outcome), received=outcome.result is not None)
            summary.kept = keeper.kept
            summary.answered_now += outcome.result is not None
            summary.truncated_now += outcome.result is not None and outcome.result.truncated
            summary.failed_now += outcome.error is not None
            summary.pending -= 1
            report("answer", summary.answered_now + summary.failed_now, len(tasks), summary.failed_now)

        asyncio.run(_answer_all(provider, tasks, concurrency, done, spec.max_tokens))
        keeper.finish()
        summary.kept = keeper.kept
        if summary.answered_now:  # retrieval and code coverage need no model: there as soon as the answers are
            grade_evidence(store, run_id)
    except KeyboardInterrupt:
        summary.interrupted = True
    except UserError:
        if created and not summary.answered_now:
            # e.g. a mistyped --base-url or a server that never answers: a run with no answer in it (at most failed
            # calls) would become `latest` and hide the real one
            delete_run(store, run_id)
        raise
    return summary


async def _answer_all(provider: Any, tasks: list[AnswerTask], concurrency: int,
                      done: Callable[[AnswerTask, AnswerOutcome], None], max_tokens: int | None) -> None:
    async def one(task: AnswerTask) -> AnswerOutcome:
        try:
            return AnswerOutcome(task, await provider.complete(task.messages, max_tokens=max_tokens), None)
        except ProviderError as exc:  # recorded as the answer's error; retried when the run is resumed
            return AnswerOutcome(task, None, exc)

    try:
        await run_bounded(tasks, one, concurrency, done)
    except* UserError as group:  # e.g. the endpoint is unreachable: one line, not a group traceback
        raise group.exceptions[0] from None
    finally:
        await provider.aclose()
