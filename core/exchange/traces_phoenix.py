"""Traces from a Phoenix server, through Phoenix's own client (`arize-phoenix-client`, the extra `gradedesk[phoenix]`).

A trace with an LLM span (OpenInference `openinference.span.kind` LLM) gives a TraceAnswer (core/exchange/traces.py):
the question is the input of the trace's root span (`input.value`), else the LLM span's (its `input.value`, else its
last user message); the answer is the LLM span's `output.value` (else its first output message), the newest LLM span
when a trace has several; the evidence is the documents of the trace's retriever spans, in order
(`retrieval.documents.N.document.id|score|content`, and `metadata` file_path / start_line / end_line when given). The
span kept is the LLM span's: grades go back onto it. A trace that cannot be read (no answer, a document without
content, a score that is no number) is skipped with one line. A server that cannot be reached or answers an error is
one line (UserError), before anything is stored.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Collection, Iterator
from datetime import datetime
from typing import Any

from gradedesk.core.errors import UserError
from gradedesk.core.exchange.extras import need, server_errors
from gradedesk.core.exchange.traces import TraceAnswer, TraceDoc, doc_score
from gradedesk.core.jsonl import loads

MAX_SPANS = 1_000_000  # per request series: the client pages through them, 100 a request
TRACES_PER_REQUEST = 50
_DOC = re.compile(r"^retrieval\.documents\.(\d+)\.document\.(.+)$")
_MESSAGE = re.compile(r"^llm\.(input|output)_messages\.(\d+)\.message\.(role|content)$")
FILE_KEYS = ("file_path", "path", "file", "source")
START_KEYS = ("start_line", "line_start", "start", "line")
END_KEYS = ("end_line", "line_end", "end")


def flat(attributes: Any, prefix: str = "") -> dict[str, Any]:
    """OpenTelemetry attributes as dotted keys, whether the server sent them flat or nested."""
    if isinstance(attributes, dict):
        items: Iterator[tuple[Any, Any]] = iter(attributes.items())
    elif isinstance(attributes, list):
        items = iter(enumerate(attributes))
    else:
        return {prefix: attributes} if prefix else {}
    out: dict[str, Any] = {}
    for key, value in items:
        out.update(flat(value, f"{prefix}{key}.") if isinstance(value, dict | list) else {f"{prefix}{key}": value})
    return {k.rstrip("."): v for k, v in out.items()}


def _first(values: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((values[k] for k in keys if values.get(k) not in (None, "")), None)


def _line(value: Any) -> int | None:
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None


def documents(attrs: dict[str, Any], where: str) -> list[TraceDoc]:
    """A retriever span's documents; ValueError says what is wrong with one."""
    docs: dict[int, dict[str, Any]] = defaultdict(dict)
    for key, value in attrs.items():
        if m := _DOC.match(key):
            docs[int(m.group(1))][m.group(2)] = value
    out = []
    for n in sorted(docs):
        d = docs[n]
        meta = d.get("metadata")
        if isinstance(meta, str):
            try:
                meta = loads(meta)
            except json.JSONDecodeError:
                meta = None
        meta = {**(meta if isinstance(meta, dict) else {}),
                **{k.removeprefix("metadata."): v for k, v in d.items() if k.startswith("metadata.")}}
        content = d.get("content")
        if not isinstance(content, str) or not content.strip():
            raise ValueError(f"{where}: document {n}: no content")
        score = doc_score(d.get("score"), f"{where}: document {n}")
        path = _first(meta, FILE_KEYS)
        out.append(TraceDoc(None if d.get("id") is None else str(d["id"]), score,
                            content, path if isinstance(path, str) else None, _line(_first(meta, START_KEYS)),
                            _line(_first(meta, END_KEYS))))
    return out


def _message(attrs: dict[str, Any], kind: str, role: str | None, last: bool) -> str | None:
    messages: dict[int, dict[str, Any]] = defaultdict(dict)
    for key, value in attrs.items():
        if (m := _MESSAGE.match(key)) and m.group(1) == kind:
            messages[int(m.group(2))][m.group(3)] = value
    texts = [m["content"] for _, m in sorted(messages.items())
             if isinstance(m.get("content"), str) and (role is None or m.get("role") == role)]
    return (texts[-1] if last else texts[0]) if texts else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def trace_answer(trace_id: str, spans: list[dict], project: str) -> TraceAnswer:
    """One trace's spans as a TraceAnswer; ValueError names the span that cannot be read and why."""
    by_time = sorted(spans, key=lambda s: s.get("start_time") or "")
    llms = [s for s in by_time if s.get("span_kind") == "LLM"]
    if not llms:
        raise ValueError(f"phoenix trace {trace_id}: no LLM span")
    llm = max(llms, key=lambda s: s.get("end_time") or "")
    span_id = llm["context"]["span_id"]
    where = f"phoenix trace {trace_id} span {span_id}"
    attrs = flat(llm.get("attributes") or {})
    answer = _text(attrs.get("output.value")) or _message(attrs, "output", None, last=False)
    if answer is None:
        raise ValueError(f"{where}: the LLM span has no output.value")
    roots = [s for s in by_time if not s.get("parent_id")]
    root = flat(roots[0].get("attributes") or {}) if roots else {}
    question = (_text(root.get("input.value")) or _message(attrs, "input", "user", last=True)
                or _text(attrs.get("input.value")))
    if question is None:
        raise ValueError(f"{where}: no input.value on the root or LLM span")
    docs = [d for s in by_time if s.get("span_kind") == "RETRIEVER"
            for d in documents(flat(s.get("attributes") or {}), f"phoenix trace {trace_id} span "
                                                                  f"{s['context']['span_id']}")]
    model = attrs.get("llm.model_name")
    metadata = {k.removeprefix("metadata."): v for s in (root, attrs) for k, v in s.items()}
    return TraceAnswer(trace_id, span_id, project, question, answer, tuple(docs), llm.get("end_time") or "",
                       model if isinstance(model, str) else None, metadata)


def parse_since(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise UserError(f"--since: {text!r} is not an ISO time (e.g. 2026-11-24 or 2026-11-24T10:00:00+00:00)") from None


def read_phoenix(url: str, project: str, *, since: datetime | None = None, limit: int | None = None,
                 known: Collection[str] = (), timeout: float = 30.0) -> tuple[list[TraceAnswer], list[str]]:
    """The traces of `project` with an LLM span (from `since`, oldest first, at most `limit`, leaving out `known`
    trace ids), and one line per trace skipped."""
    client_mod = need("phoenix.client", "phoenix", "reading traces from Phoenix")
    client = client_mod.Client(base_url=url)
    with server_errors(url, "Phoenix", f"for project {project!r}"):
        llm_spans = client.spans.get_spans(project_identifier=project, start_time=since, span_kind="LLM",
                                           limit=MAX_SPANS, timeout=timeout)
    order: dict[str, str] = {}
    for s in llm_spans:
        tid = s["context"]["trace_id"]
        order[tid] = min(order.get(tid, s.get("start_time") or ""), s.get("start_time") or "")
    wanted = [t for t in sorted(order, key=lambda t: (order[t], t)) if t not in known][:limit]
    spans: dict[str, list[dict]] = defaultdict(list)
    for i in range(0, len(wanted), TRACES_PER_REQUEST):
        with server_errors(url, "Phoenix", f"for project {project!r}"):
            batch = client.spans.get_spans(project_identifier=project, trace_ids=wanted[i:i + TRACES_PER_REQUEST],
                                           limit=MAX_SPANS, timeout=timeout)
        for s in batch:
            spans[s["context"]["trace_id"]].append(s)
    answers, skipped = [], []
    for tid in wanted:
        try:
            answers.append(trace_answer(tid, spans[tid], project))
        except (ValueError, KeyError, TypeError) as exc:
            skipped.append(f"{exc}; skipped")
    return answers, skipped
