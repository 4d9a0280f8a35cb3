"""Content hashing: what "the same content" means, for chunks, snippets and dedup across index, compile and import."""

from __future__ import annotations

import hashlib


def normalize_text(text: str) -> str:
    """What "the same content" means: line endings and trailing spaces do not count, nor blank edges."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def content_hash(text: str) -> str:
    return hashlib.sha256(normalize_text(text).encode("utf-8")).hexdigest()
