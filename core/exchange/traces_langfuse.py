"""Traces from a Langfuse trace export: the public API's traces with their observations (GET /api/public/traces/{id}),
as a JSON list, `{"data": [...]}`, one trace, or one trace a line.

A trace with a GENERATION observation gives a TraceAnswer (core/exchange/traces.py): the question is the trace's input
(text, or its question / query / input field, or its last user message), else the generation's; the answer is the
newest generation's output (text, its content, or its first choice's message); the evidence is the output of the
trace's RETRIEVER observations (a list of documents, or `documents` of one: id, score, content / page_content / text,
and metadata with file_path, start_line, end_line). traceId and the generation's observationId are kept, so
`export-scores --format langfuse` writes its scores onto them. The trace's metadata are its attributes (`--pair-by`,
`--side-by`). A trace that cannot be read is skipped with one line.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.exchange.traces import TraceAnswer, TraceDoc, TraceRead, doc_score
from gradedesk.core.exchange.traces_phoenix import END_KEYS, FILE_KEYS, START_KEYS, parse_since
from gradedesk.core.jsonl import loads

QUESTION_KEYS = ("question", "query", "input")
CONTENT_KEYS = ("content", "page_content", "text")


def _traces(path: Path) -> list[Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        data = loads(text)
    except json.JSONDecodeError:
        records, lines = [], text.split("\n")
        for lineno, line in enumerate(lines, start=1):
            try:
                records += [loads(line)] if line.strip() else []
            except json.JSONDecodeError as exc:
                raise UserError(f"{path}:{lineno}: not JSON ({exc.msg})") from None
        return records
    if isinstance(data, dict):
        data = data["data"] if isinstance(data.get("data"), list) else [data]
    if not isinstance(data, list):
        raise UserError(f"{path}: not a list of traces")
    return data


def _said(value: Any, keys: tuple[str, ...], role: str | None = None) -> str | None:
    """Text from an input or output as SDKs record it: a string, a dict with one of `keys`, or a message list."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, dict):
        if isinstance(value.get("choices"), list) and value["choices"]:
            return _said(value["choices"][0].get("message"), keys)
        if isinstance(value.get("messages"), list):
            return _said(value["messages"], keys, role)
        return next((_said(value[k], keys) for k in keys if k in value and _said(value[k], keys)), None)
    if isinstance(value, list):
        said = [_said(m, ("content",)) for m in value
                if isinstance(m, dict) and (role is None or m.get("role") == role)]
        said = [s for s in said if s]
        return (said[-1] if role else said[0]) if said else None
    return None


def _docs(output: Any, where: str) -> list[TraceDoc]:
    items = output.get("documents") if isinstance(output, dict) else output
    if not isinstance(items, list):
        raise ValueError(f"{where}: output is not a list of documents")
    out = []
    for n, d in enumerate(items):
        d = d if isinstance(d, dict) else {"content": d}
        content = next((d[k] for k in CONTENT_KEYS if isinstance(d.get(k), str) and d[k].strip()), None)
        if content is None:
            raise ValueError(f"{where}: document {n}: no content")
        score = doc_score(d.get("score"), f"{where}: document {n}")
        meta: dict[str, Any] = d["metadata"] if isinstance(d.get("metadata"), dict) else {}
        path = next((meta[k] for k in FILE_KEYS if isinstance(meta.get(k), str)), None)
        lines = [next((meta[k] for k in keys if isinstance(meta.get(k), int)), None) for keys in (START_KEYS, END_KEYS)]
        out.append(TraceDoc(None if d.get("id") is None else str(d["id"]), score, content, path, *lines))
    return out


def trace_answer(trace: Any, project: str) -> TraceAnswer:
    if not isinstance(trace, dict) or not isinstance(trace.get("id"), str):
        raise ValueError("langfuse trace without an id")
    tid = trace["id"]
    observations = sorted((o for o in trace.get("observations") or [] if isinstance(o, dict)),
                          key=lambda o: str(o.get("startTime") or ""))
    generations = [o for o in observations if o.get("type") == "GENERATION"]
    if not generations:
        raise ValueError(f"langfuse trace {tid}: no GENERATION observation")
    gen = max(generations, key=lambda o: str(o.get("endTime") or o.get("startTime") or ""))
    where = f"langfuse trace {tid} observation {gen.get('id')}"
    answer = _said(gen.get("output"), CONTENT_KEYS)
    if answer is None or not isinstance(gen.get("id"), str):
        raise ValueError(f"{where}: the generation has no output")
    question = _said(trace.get("input"), QUESTION_KEYS, "user") or _said(gen.get("input"), QUESTION_KEYS, "user")
    if question is None:
        raise ValueError(f"{where}: no input on the trace or the generation")
    docs = [d for o in observations if o.get("type") == "RETRIEVER"
            for d in _docs(o.get("output"), f"langfuse trace {tid} observation {o.get('id')}")]
    meta: dict[str, Any] = trace["metadata"] if isinstance(trace.get("metadata"), dict) else {}
    model = gen.get("model")
    return TraceAnswer(tid, gen["id"], project, question, answer, tuple(docs),
                       str(gen.get("endTime") or trace.get("timestamp") or ""), model if isinstance(model, str) else None,
                       meta)


def _utc(when: datetime) -> datetime:
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def read_langfuse_export(file: str, *, since: str | None = None, pair_by: str | None = None,
                         side_by: str | None = None) -> tuple[TraceRead, list[list[TraceAnswer]], list[str]]:
    """The export's traces (from `since`, oldest first) as one side, to be split by `side_by` (the traces' metadata
    attribute; core/exchange/traces.py) and paired by `pair_by`, and one line per trace skipped."""
    path = Path(file)
    after = parse_since(since)
    traces = _traces(path)
    project = next((t["projectId"] for t in traces if isinstance(t, dict) and isinstance(t.get("projectId"), str)),
                   path.stem)
    answers, skipped = [], []
    for n, trace in enumerate(traces, start=1):
        try:
            answers.append(trace_answer(trace, project))
        except ValueError as exc:
            skipped.append(f"{path}: trace {n}: {exc}; skipped")
    if after is not None:
        answers = [a for a in answers if a.time and _utc(datetime.fromisoformat(a.time.replace("Z", "+00:00")))
                   >= _utc(after)]
    answers.sort(key=lambda a: a.time)
    return TraceRead("langfuse", None, (project,), pair_by, side_by), [answers], skipped
