"""What a grader model is told about its reply's shape: the one place that words it, for every kind of reply.

Every LLM grader (the grade judge, the pairwise judge, faithfulness with its claim list, relevance) ends its system
message with the reply format, added per call by core/grading/judge.py `ask_each`, which knows whether the reply's JSON
schema goes with the call (core/providers/structured.py):

- with a schema (json_schema, or json_object with its schema) the server decodes under the schema's grammar, so the
  shape needs no showing: the format names each field and says in words what goes in it, and shows no value at all.
  A small model copies what it is shown into the strings the grammar opens: SmolLM2-135M wrote `"reasoning": "..."`
  in 3 of 5 verdicts and `"claim": "<short claim>"` in 4 of 5 faithfulness replies when the format showed those;
- without one (JSON mode alone, or no response_format) the same words, then one filled reply marked as an example
  about another answer; its texts start "Example only".

The parsers take a text field the model must write through `ReplyFormat.own`, which refuses a copy of the example
and a copy of the field's own words, so a copy is never counted as a usable verdict.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gradedesk.core.grading.llm_io import ReplyError, own_text
from gradedesk.core.providers.structured import SCHEMA_FORMS, Shape

EXAMPLE_MARK = "Example only"  # how every example's own text starts: plainly not this reply's
FORMAT_HEAD = "Reply with one JSON object and nothing else, with these fields:"  # how every format starts
COPIED_PREFIX = 24  # characters of a field's words a text must start with to count as a copy of them


@dataclass(frozen=True)
class ReplyFormat:
    """A reply's shape (its JSON schema), its fields in words (key, what the model writes there; a key indented by
    two spaces is a field of the field before) and a filled example for a model that gets no schema."""

    shape: Shape
    fields: tuple[tuple[str, str], ...]
    example: dict[str, Any]

    def instruction(self, schema_sent: bool) -> str:
        """The format's lines: the fields in words; the example too when no schema goes with the call."""
        words = "\n".join(f"{key[:len(key) - len(key.lstrip())]}- {key.strip()}: {what}" for key, what in self.fields)
        lines = f"{FORMAT_HEAD}\n{words}"
        if schema_sent:
            return lines
        return (f"{lines}\nThe shape, filled in for another answer (write your own values, not these):\n"
                f"{json.dumps(self.example)}")

    def own(self, value: str, field: str, where: str | None = None, shown: str | None = None) -> str:
        """`value` of the text field `field` as the model's own text (llm_io.own_text: not empty, not only dots, not
        `shown`), and not a copy of the example (it starts with EXAMPLE_MARK) or of the field's words; ReplyError
        naming `where` (default: the field) otherwise."""
        where = where or field
        text = own_text(value, where, shown)
        if text.startswith(EXAMPLE_MARK):
            raise ReplyError(f"{where}: a copy of the reply format's example, not the model's own text")
        words = next(what for key, what in self.fields if key.strip() == field)
        if text.lower().startswith(words.lower()[:COPIED_PREFIX]):
            raise ReplyError(f"{where}: a copy of the reply format's words for it, not the model's own text")
        return text


def schema_sent(provider: Any, json_mode: bool) -> bool:
    """Whether a shaped call to `provider` carries its schema: the form its probe found sends one (an unprobed
    provider is asked for JSON mode only, core/providers/openai_compat.py)."""
    return json_mode and getattr(provider, "structured_form", None) in SCHEMA_FORMS


def with_format(messages: list[dict], reply: ReplyFormat | None, schema: bool) -> list[dict]:
    """`messages` with the reply format after the system message's text (`schema`: whether the call carries the
    reply's schema); unchanged without a format."""
    if reply is None:
        return messages
    first, *rest = messages
    if first["role"] != "system":
        raise ValueError("a grader's messages start with its system message")
    return [{**first, "content": f"{first['content']}\n\n{reply.instruction(schema)}"}, *rest]
