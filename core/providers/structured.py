"""Structured outputs: a reply's JSON schema sent in the strongest form an endpoint accepts.

Where a model must answer in a shape (a verdict, a pairwise winner, a score), the schema of that shape goes with the
request as `response_format`, so a server that decodes under a grammar can only write a reply of that shape. Servers
accept different forms, strongest first (FORMS):

- `json_schema`: OpenAI's `{"type": "json_schema", "json_schema": {"name", "schema", "strict": true}}` (OpenAI, vLLM,
  llama.cpp's own server, Ollama);
- `json_object_schema`: `{"type": "json_object", "schema": ...}` (llama-cpp-python's server, which rejects the form
  above);
- `json_object`: JSON mode without a schema (any JSON object; the prompt names the fields);
- `none`: no response_format at all (the prompt alone asks for the shape).

Which one an endpoint takes is found by one cheap probe (core/providers/probes.py): one call of one token per form,
strongest first, each carrying a real reply schema (so a server that cannot compile it says so then, not on every
call); the first form the server does not reject is used. A schema-valid reply can still be a wrong verdict, and the
parsers stay as strict as without a schema: a shape says nothing about the grade's truth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FORMS = ("json_schema", "json_object_schema", "json_object", "none")
SCHEMA_FORMS = ("json_schema", "json_object_schema")  # the forms that send the reply's schema
FORM_NAMES = {
    "json_schema": "json_schema (strict)",
    "json_object_schema": "json_object with its schema",
    "json_object": "json_object without a schema",
    "none": "no response_format (the prompt alone)",
}


@dataclass(frozen=True)
class Shape:
    """A reply's shape: a name (letters, digits, _ and -, as OpenAI wants it) and its JSON schema. Strict mode wants
    an object at the schema's root (no `anyOf` there) and takes no length bounds: `strict_schema` is the shape as
    such an object, when `schema` is not one (its alternatives flattened: the parser then tells the replies the
    alternatives would have ruled out); `strict` drops the bounds. The bounds (maxLength, maxItems) keep a small
    model that decodes under the schema's grammar from writing until --max-tokens cuts the reply."""

    name: str
    schema: dict[str, Any]
    strict_schema: dict[str, Any] | None = None

    @property
    def strict(self) -> dict[str, Any]:
        return _unbounded(self.strict_schema or self.schema)


_BOUNDS = ("maxLength", "minLength", "maxItems", "minItems")


def _unbounded(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _unbounded(v) for k, v in schema.items() if k not in _BOUNDS}
    if isinstance(schema, list):
        return [_unbounded(v) for v in schema]
    return schema


def response_format(form: str | None, shape: Shape | None) -> dict[str, Any] | None:
    """The request's `response_format` for `shape` in `form`; None when nothing is sent. Without a shape, only JSON
    mode can be asked for (json_object)."""
    if form is None or form == "none":
        return None
    if shape is None or form == "json_object":
        return {"type": "json_object"}
    if form == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": shape.name, "schema": shape.strict, "strict": True}}
    if form == "json_object_schema":
        return {"type": "json_object", "schema": shape.schema}
    raise ValueError(f"unknown structured output form {form!r}")


def text(most: int, least: int = 0) -> dict[str, Any]:
    """A string of at most `most` characters and, where the parser refuses an empty one, at least `least` (without
    it, a grammar lets a small model write `"reasoning": ""`, which the parser then rejects)."""
    return {"type": "string", "maxLength": most, **({"minLength": least} if least else {})}


def object_schema(properties: dict[str, Any]) -> dict[str, Any]:
    """An object with exactly these properties, all required, nothing else (what strict mode asks of a schema)."""
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}
