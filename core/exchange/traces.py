"""An application's traces in: answers read from an observability tool (Phoenix: traces_phoenix.py; a Langfuse trace
export: traces_langfuse.py) stored as a run, with the trace and span each answer came from (table answer_traces).

Each trace gives a question (its input), an answer (its LLM span's output) and the evidence (its retriever spans'
documents as hits: id, score, content, and file path and lines when the document's metadata has them). One side (one
project): each trace is a question of its own. Two sides, either two projects (`--side-b-project`) or one project's
traces split by the value of a metadata attribute (`--side-by`, `split_by_attribute`): a trace of side A is stored as
method raw, of side B as bundle, paired into one question by a key (`pair_by`: "input", a hash of the input text, or
the name of a metadata attribute); a trace without a partner, or without the pairing attribute, is a question of its
own, graded alone. The desk titles each side's pane by its label: the project, or the attribute's value. Questions
have no gold answer.

The run is found again by what was read (source, server, projects, pairing): importing again adds only the traces the
run does not hold yet, and a trace whose pair key already has an answer of its side is skipped with one line. Every
problem is one line; what is stored is stored in one transaction.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field, replace
from typing import Any

from gradedesk.core.errors import InputError, UserError
from gradedesk.core.limits import too_long
from gradedesk.core.store.answers import NewAnswer, add_answer, answer_statuses
from gradedesk.core.store.connection import Store, utc_now
from gradedesk.core.store.questions import QuestionRow, add_question, question_pk
from gradedesk.core.store.run_records import NewRun, add_run, run_by_key
from gradedesk.core.store.grades import current_grades
from gradedesk.core.store.machine_grades import AutoGrade, add_machine_grade
from gradedesk.core.store.traces import AnswerTrace, add_answer_trace, run_trace_contents, run_trace_ids, side_labels

SIDE_METHODS = ("raw", "bundle")  # side A, side B: the answer methods the desk pairs
TRACE_CATEGORY = "trace"
PAIR_BY_INPUT = "input"


@dataclass(frozen=True)
class TraceDoc:
    """A document a retriever span returned."""

    id: str | None
    score: float | None
    content: str
    file_path: str | None = None
    start_line: int | None = None
    end_line: int | None = None


@dataclass(frozen=True)
class LogGrade:
    """A grade an eval tool's log carries (an Inspect scorer's score, a promptfoo assertion's result), as a machine
    grade named after what made it (`inspect:match`, `promptfoo:contains`)."""

    grader: str
    grade: str  # one of the four grades
    reasoning: str | None = None


@dataclass(frozen=True)
class TraceAnswer:
    """One trace's (or eval log sample's) question, answer and evidence, and where they came from."""

    trace_id: str
    span_id: str  # the span (observation) that holds the answer
    project: str
    question: str
    answer: str
    documents: tuple[TraceDoc, ...]
    time: str  # when the answer was made
    model: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)  # the trace's metadata attributes, for --pair-by ATTR
    gold: str | None = None  # an eval log's target; traces have none
    grades: tuple[LogGrade, ...] = ()
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None
    endpoint: str | None = None  # where this answer was read from when a side has its own (an eval log's path)

    @property
    def content(self) -> str:
        """A hash of what was read, to tell when a log changed under an answer already imported."""
        return hashlib.sha256(json.dumps([self.question, self.answer, self.gold]).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class TraceRead:
    """What a reader was asked for: where from, and how two sides pair."""

    source: str  # phoenix | langfuse
    endpoint: str | None  # the server's base URL; None for an export file
    projects: tuple[str, ...]  # side A's project, and side B's when two sides are imported
    pair_by: str | None = None  # "input" or a metadata attribute; None with one side
    side_by: str | None = None  # the attribute whose value names a trace's side, within one project
    labels: tuple[str, ...] = ()  # with side_by: its values that name side A and side B (split_by_attribute)
    ids: tuple[str, ...] = ()  # what else tells the source apart: an eval log's eval ids

    @property
    def key(self) -> str:
        # side_by and ids join the key only when given, so the runs of earlier imports are found again
        what = ["traces", self.source, self.endpoint, self.projects, self.pair_by, *([self.side_by] * bool(self.side_by)),
                *([list(self.ids)] * bool(self.ids))]
        return hashlib.sha256(json.dumps(what).encode()).hexdigest()[:16]

    @property
    def benchmark(self) -> str:
        return f"{self.source}:{'+'.join(self.projects)}" + (f" by {self.side_by}" if self.side_by else "")

    @property
    def sides(self) -> tuple[str, ...]:
        """The sides' labels, as the desk titles their panes: the projects, or the attribute's values."""
        return self.labels if self.side_by else self.projects

    @property
    def title(self) -> str:
        """What was read, for messages and the run's label: 'a vs b', or 'app by variant: a vs b'."""
        sides = " vs ".join(self.sides)
        return f"{self.projects[0]} by {self.side_by}: {sides}" if self.side_by else sides


@dataclass
class TraceImport:
    run_id: int
    created: bool  # a new run (else traces were added to the run of an earlier import)
    traces: int = 0  # traces read that the run did not hold yet
    answers: int = 0
    questions: int = 0  # new questions
    paired: int = 0  # questions that now have both sides
    already: int = 0  # traces the run held already
    changed: int = 0  # of those, how many the source now holds otherwise (an eval log rewritten since)
    changed_graded: int = 0  # of those, how many a person graded
    grades: int = 0  # machine grades the source carried (eval logs' scores)
    skipped: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return self.__dict__.copy()


def doc_score(value: Any, where: str) -> float | None:
    """A document's score as a number (or none); ValueError when it is something else."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise ValueError(f"{where}: score {value!r} is not a number")
    return None if value is None else float(value)


def attribute(t: TraceAnswer, name: str) -> str | None:
    """A trace's metadata attribute as text; None when it does not carry it (or it is empty)."""
    value = t.attributes.get(name)
    return None if value is None or value == "" else str(value)


def _pair_key(read: TraceRead, t: TraceAnswer) -> str:
    """The question id a trace is stored under: its pair key with two sides, else (or without one) its trace id."""
    if read.pair_by is None:
        return t.trace_id
    if read.pair_by == PAIR_BY_INPUT:
        return "input:" + hashlib.sha256(t.question.strip().encode()).hexdigest()[:16]
    value = attribute(t, read.pair_by)
    return t.trace_id if value is None else f"{read.pair_by}={value}"


def split_by_attribute(store: Store, read: TraceRead, traces: list[TraceAnswer],
                       limit: int | None = None) -> tuple[TraceRead, list[list[TraceAnswer]]]:
    """One project's new traces as two sides by the value of the attribute `read.side_by`, at most `limit` a side,
    and the read with the values as its labels: side A and B keep the values an earlier import of the run gave them,
    new values follow in sorted order. Refused (UserError, before anything is stored) when a trace does not carry the
    attribute, since it belongs to neither side, or when there are more than two values."""
    name = str(read.side_by)
    missing = [t for t in traces if attribute(t, name) is None]
    if missing:
        raise UserError(f"--side-by {name}: {len(missing)} of {len(traces)} new trace(s) do not carry it (the first: "
                        f"{read.source} trace {missing[0].trace_id}); nothing imported (--since leaves older traces out)")
    run_id = run_by_key(store, "import", read.key)
    before = side_labels(store, run_id) if run_id is not None else {}
    labels = [before[m] for m in SIDE_METHODS if m in before]
    labels += sorted({v for t in traces if (v := attribute(t, name)) is not None} - set(labels))
    if len(labels) > 2:
        raise UserError(f"--side-by {name}: {len(labels)} values ({', '.join(labels)}), two sides take two; "
                        "nothing imported")
    return replace(read, labels=tuple(labels)), [[t for t in traces if attribute(t, name) == label][:limit]
                                                 for label in labels]


def _hits(docs: tuple[TraceDoc, ...]) -> list[dict[str, Any]]:
    """The documents as stored raw hits (core/evidence/stored.py reads the seed's field names)."""
    hits = []
    for rank, d in enumerate(docs, start=1):
        hit: dict[str, Any] = {"chunk_id": d.id, "file_path": d.file_path, "start_line": d.start_line,
                               "end_line": d.end_line, "retrieval_method": "retriever", "relevance_score": d.score,
                               "retrieval_rank": rank, "text": d.content}
        hits.append({k: v for k, v in hit.items() if v is not None})
    return hits


def _problem(read: TraceRead, t: TraceAnswer) -> str | None:
    where = f"{read.source} trace {t.trace_id} span {t.span_id}"
    for kind, text in (("question", t.question), ("answer", t.answer),
                       *(("snippet", d.content) for d in t.documents)):
        if (why := too_long(text, kind)) is not None:
            return f"{where}: {kind}: {why}; skipped"
    return None


def import_traces(store: Store, read: TraceRead, sides: list[list[TraceAnswer]],
                  skipped: list[str] | None = None) -> TraceImport:
    """Store the traces of each side (side A, then side B) that the run of `read` does not hold yet, in one
    transaction; `skipped` are the reader's lines about bad spans, kept in the report."""
    now = utc_now()
    existing = run_by_key(store, "import", read.key)
    with store.transaction():
        if existing is None:
            run_id = add_run(store, NewRun(
                source="import", created_at=now, label=read.title, provider=read.source,
                model=next((t.model for side in sides for t in side if t.model), None), benchmark=read.benchmark,
                budgets=[], primary_budget=0, order_seed=random.randrange(2**31),
                config={"key": read.key, "traces": {"source": read.source, "endpoint": read.endpoint,
                                                    "projects": list(read.projects), "pair_by": read.pair_by,
                                                    **({"side_by": read.side_by} if read.side_by else {})}}))
        else:
            run_id = existing
        report = TraceImport(run_id, existing is None, skipped=list(skipped or []))
        known = run_trace_contents(store, run_id)
        graded = {answer_id for answer_id, _ in current_grades(store, run_id)}
        slots = {(pk, method): status for (pk, method, _), status in answer_statuses(store, run_id).items()}
        for side, (method, traces) in enumerate(zip(SIDE_METHODS, sides)):
            for t in traces:
                if t.trace_id in known:
                    report.already += 1
                    answer_id, content = known[t.trace_id]
                    if content is not None and content != t.content:
                        report.changed += 1
                        report.changed_graded += answer_id in graded
                    continue
                if (problem := _problem(read, t)) is not None:
                    report.skipped.append(problem)
                    continue
                qid = _pair_key(read, t)
                pk = question_pk(store, read.benchmark, qid)
                if pk is None:
                    pk = add_question(store, QuestionRow(read.benchmark, qid, t.question, TRACE_CATEGORY, t.gold), now)
                    report.questions += 1
                elif (pk, method) in slots:
                    report.skipped.append(f"{read.source} trace {t.trace_id}: {read.sides[side]} already has an "
                                          f"answer for {qid}; skipped")
                    continue
                hits = _hits(t.documents)
                files = list(dict.fromkeys(d.file_path for d in t.documents if d.file_path))
                answer_id = add_answer(store, NewAnswer(
                    run_id=run_id, question_pk=pk, method=method, budget=0, text=t.answer,
                    evidence=json.dumps(hits, ensure_ascii=False), evidence_files=json.dumps(files), bundle_id=None,
                    created_at=now, answered_at=t.time or now, tokens_in=t.tokens_in, tokens_out=t.tokens_out,
                    cost_usd=t.cost_usd, latency_ms=t.latency_ms))
                add_answer_trace(store, AnswerTrace(answer_id, read.source, t.endpoint or read.endpoint, t.project,
                                                    read.sides[side], t.trace_id, t.span_id,
                                                    t.content))
                for g in t.grades:
                    add_machine_grade(store, AutoGrade(
                        answer_id=answer_id, grader_kind="imported", grader_model=g.grader, rubric_version=None,
                        repeat_index=0, grade=g.grade, failure_label=None, confidence=None, reasoning=g.reasoning,
                        raw_response=None, created_at=now))
                    report.grades += 1
                known[t.trace_id] = (answer_id, None)
                slots[(pk, method)] = "ok"
                report.paired += all((pk, m) in slots for m in SIDE_METHODS)
                report.traces += 1
                report.answers += 1
        if existing is None and not report.answers:  # no empty run left behind
            nothing = f"{read.source} {read.title}: no trace with an answer to import"
            if report.skipped:  # each trace's reason, then why nothing was stored (printed as an input's problems)
                raise InputError([*report.skipped, f"{nothing}: every trace was skipped"])
            raise UserError(nothing)
    return report


def known_traces(store: Store, read: TraceRead) -> set[str]:
    """The trace ids the run of `read` holds already (none before its first import)."""
    run_id = run_by_key(store, "import", read.key)
    return set() if run_id is None else run_trace_ids(store, run_id)


def trace_url(origin: AnswerTrace) -> str | None:
    """Where a person opens the trace an answer came from: Phoenix's trace redirect, Langfuse's trace page; None when
    the server is not known (a Langfuse export read from a file)."""
    if origin.endpoint is None or origin.source not in ("phoenix", "langfuse"):  # an eval log is a file
        return None
    if origin.source == "phoenix":
        return f"{origin.endpoint}/redirects/traces/{origin.trace_id}"
    return f"{origin.endpoint}/trace/{origin.trace_id}"
