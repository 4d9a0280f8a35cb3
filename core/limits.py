"""How long an input text may be: questions, gold answers, answers and evidence snippets.

Longer ones are refused where they are loaded (`file:line: field: too long (N chars; limit M)`), so no later step
(fuzzy matching, the desk, a prompt) meets a 50 MB text. The limits are generous for real use: a gold answer is a
paragraph, a snippet a function or a file section, an answer a page. (How many tokens a model may write is a flag:
core/config.py.)
"""

from __future__ import annotations

MAX_CHARS = {
    "question": 10_000,
    "gold_answer": 50_000,
    "answer": 200_000,
    "snippet": 400_000,  # a whole source file of the indexer's 1 MB limit rarely fits a prompt; 400k chars ~ 100k tokens
}


def too_long(text: object, kind: str) -> str | None:
    """"too long (N chars; limit M)" when `text` is a string over the limit of its kind (a key of MAX_CHARS)."""
    limit = MAX_CHARS[kind]
    if isinstance(text, str) and len(text) > limit:
        return f"too long ({len(text)} chars; limit {limit})"
    return None
