"""The offline extractive answerer: answers with no model, from the given context alone.

It answers with the context lines that best match the question, citing each by its evidence label (`[Evidence i]`) or
file (`File: path`). It is a pure function of (question, context), so a raw and a bundled answer differ exactly as their
evidence differs (the same opening words for both: they must not tell a person which is which). Runs record it as "offline-extractive".
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass

from gradedesk.core.providers.chat import ChatResult, messages_text, short
from gradedesk.core.text.codeterms import PROSE_STOPWORDS, identifier_parts
from gradedesk.core.text.matching import inline_code
from gradedesk.core.text.prompt_layout import cite, parse_question, parse_reason, read_block_start
from gradedesk.core.config import DEFAULT_ENCODING
from gradedesk.core.text.tokens import get_tokenizer

OFFLINE_MODEL = "extractive/2"  # 2: raw and bundled answers open alike (the opening told them apart)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class _Line:
    text: str
    cite: str
    block: int
    order: int
    terms: frozenset[str]


def _terms(text: str) -> set[str]:
    """Words of a text, with identifiers also split into their snake_case and CamelCase parts."""
    out: set[str] = set()
    for word in _WORD.findall(text):
        out.add(word.lower())
        out.update(identifier_parts(word))
    return {t for t in out if len(t) > 1 and t not in PROSE_STOPWORDS}


def _parse_context(text: str) -> tuple[str, list[_Line]]:
    """Question, and candidate lines with their citations."""
    question = ""
    lines: list[_Line] = []
    header, block, offset = None, 0, 0
    for raw in text.splitlines():
        if not question and (asked := parse_question(raw)) is not None:
            question = asked
            continue
        if (starts := read_block_start(raw)) is not None:
            header, block, offset = starts, block + 1, 0
            continue
        if header is None:
            continue
        if offset == 0 and parse_reason(raw) is not None:  # the bundle's selection reason, not a source line
            continue
        offset += 1
        stripped = raw.strip()
        if not stripped:
            continue
        base = header.start_line or 0
        label = cite(header.label, header.path, base + offset - 1 if base else None)
        lines.append(_Line(stripped, label, block, len(lines), frozenset(_terms(stripped))))
    return question, lines


class OfflineExtractiveProvider:
    """Answers from the given context alone: the lines that best match the question, each with its citation."""

    name = "offline-extractive"
    model = OFFLINE_MODEL
    max_lines = 6
    system_dropped = None  # no chat template here: it reads the messages as they are

    def __init__(self, tokenizer: str = DEFAULT_ENCODING):
        self.tokenizer_id = get_tokenizer(tokenizer).id

    async def aclose(self) -> None:
        return None

    async def complete(self, messages: list[dict], *, max_tokens: int | None = None,
                       json_mode: bool = False) -> ChatResult:
        started = time.perf_counter()
        user = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
        text = extractive_answer(user)
        tok = get_tokenizer(self.tokenizer_id)
        if max_tokens is not None:
            ids = tok.encode(text)
            text = tok.decode(ids[:max_tokens]) if len(ids) > max_tokens else text
        latency = (time.perf_counter() - started) * 1000
        return ChatResult(text, tok.count(messages_text(messages)), tok.count(text), True, latency, 0.0,
                          self.model, 1)


def extractive_answer(user_text: str, max_lines: int = OfflineExtractiveProvider.max_lines) -> str:
    """The deterministic answer to a user message holding `Question: ...` and a context of labelled blocks."""
    question, lines = _parse_context(user_text)
    q_terms = _terms(question)
    if not lines or not q_terms:
        return _insufficient()
    # inverse document frequency over lines: a word found everywhere says little about where the answer is
    df: dict[str, int] = {}
    for line in lines:
        for t in line.terms & q_terms:
            df[t] = df.get(t, 0) + 1
    n = len(lines)

    def score(line: _Line) -> float:
        hit = line.terms & q_terms
        s = sum(math.log(1 + n / df[t]) for t in hit)
        if hit and re.match(r"(async\s+)?(def|class)\s", line.text):
            s *= 1.5  # a definition line names what the question asks about
        return s

    scored = sorted(((score(line), line) for line in lines), key=lambda p: (-p[0], p[1].order))
    best = [line for s, line in scored[:max_lines] if s > 0]
    if not best:
        return _insufficient()
    best.sort(key=lambda line: line.order)
    body = "\n".join(f"- {inline_code(short(line.text, 160))} {line.cite}" for line in best)
    return f"From the context, the most relevant lines are:\n{body}"


def _insufficient() -> str:
    return "The context is insufficient to answer this question: no line in it matches the question."
