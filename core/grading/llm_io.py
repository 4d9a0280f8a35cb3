"""What the LLM graders (judge, LLM faithfulness, LLM relevance) send and get back.

Everything shown to the model that came from outside (question, gold, answer, evidence) sits between explicit
BEGIN/END markers, so the model can tell the material it grades from the instructions. Replies must be one JSON object;
`parse_json_reply` accepts it bare, fenced in ```json, or with prose around it, with raw line breaks inside its
strings (llama-cpp-python's JSON grammar lets them through: its strings exclude only quote and backslash; SmolLM2
wrote them in a pairwise reasoning), and raises ReplyError (never returns half a result) when there is no usable
object.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.text.prompt_layout import Header, grader_evidence
from gradedesk.core.jsonl import loads


class ReplyError(ValueError):
    """The model's reply could not be used (not JSON, or not the schema asked for)."""


_FENCE_RE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def parse_json_reply(text: str) -> dict:
    """The JSON object in a model reply; ReplyError when there is none."""
    candidates = [text.strip()] + [m.group(1).strip() for m in _FENCE_RE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start:end + 1])
    for candidate in candidates:
        try:
            data = loads(candidate, strict=False)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            return data
        raise ReplyError(f"reply is JSON but not an object ({type(data).__name__})")
    raise ReplyError("reply is not JSON")


def section(name: str, text: str) -> str:
    return f"BEGIN {name}\n{text.strip()}\nEND {name}"


def format_evidence(items: list[Evidence]) -> str:
    """Numbered evidence blocks with their provenance, as the grader model sees them."""
    return grader_evidence([(Header(n, e.file_path or "", e.start_line, e.end_line, e.symbol_name), e.text)
                            for n, e in enumerate(items, start=1)])


def require(data: dict, key: str, kind: type | tuple[type, ...], what: str) -> Any:
    """A field of a reply, of the right type (`kind`, checked here), or ReplyError naming it (bool is not accepted as
    a number)."""
    if key not in data:
        raise ReplyError(f"{key}: missing")
    value = data[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
        raise ReplyError(f"{key}: must be {what}, got {type(value).__name__}")
    return value


def own_text(value: str, key: str, shown: str | None = None) -> str:
    """A text field the model must write itself (a reasoning, a claim), stripped; ReplyError when it is empty, only
    dots, or `shown`, a placeholder an older reply format showed, copied. Under a JSON schema a small model fills the
    string with what it was shown: SmolLM2-135M wrote "reasoning": "..." in 3 of 5 verdicts and "claim": "<short
    claim>" in 4 of 5 faithfulness replies (benchmarks/real_server_bench.py), which is why the formats now show no
    value when a schema is sent (core/grading/reply_format.py, which also refuses copies of what they show now);
    replies stored under the old formats stay unusable when re-read. A bracketed placeholder is copied when the text
    starts with it, whole or cut ("<short claim", "<short claim_12")."""
    text = value.strip()
    if not text:
        raise ReplyError(f"{key}: empty")
    if not text.strip(".\u2026 "):
        raise ReplyError(f"{key}: only dots, the reply format's placeholder")
    if shown is not None and text.startswith(shown.rstrip(">")):
        raise ReplyError(f"{key}: the reply format's placeholder {shown!r}, not the model's own text")
    return text


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)
