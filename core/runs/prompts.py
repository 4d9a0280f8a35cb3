"""The two ways of answering a question: from raw top-k retrieval, or from an evidence bundle.

Both use a versioned system prompt (stored in the `prompts` table, so a run records exactly what the model was told) and
the same user message layout: the question on a line starting `Question:`, then the context. Raw context is the top
RAW_K hits as `File: path (lines a-b)` blocks in rank order; bundled context is `EvidenceBundle.to_prompt_context()`,
whose blocks start `[Evidence i]`. The layout is written and read in core/text/prompt_layout.py (the offline extractive
provider reads it there); the system prompts below describe it in words.
A prompt's text must not change under the same version: bump the version, and old runs keep pointing at the old text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gradedesk.core.config import RAW_K
from gradedesk.core.evidence.bundle import EvidenceBundle
from gradedesk.core.errors import UserError
from gradedesk.core.text.prompt_layout import SNIPPET_SEPARATOR, Header, block, file_header, user_message
from gradedesk.core.store.connection import Store, utc_now
from gradedesk.core.store.run_records import add_prompt, prompt_text



@dataclass(frozen=True)
class Prompt:
    name: str
    version: str
    text: str


RAW_SYSTEM = Prompt("raw_system", "1", """\
You are a code assistant answering questions about a software repository.
Answer the question from the retrieved context below: source files of the repository, each block starting with
"File: <path> (lines a-b)".
Cite the files you rely on by path (for example "File: core/store.py"). Be specific: name the functions, classes and
files involved. If the context does not contain the answer, say so rather than guessing.""")

BUNDLE_SYSTEM = Prompt("bundle_system", "2", """\
You are a code assistant answering questions about a software repository.
Answer ONLY from the evidence below. Each piece of evidence starts with a label such as "[Evidence 2]", followed by its
file and line range ("core/store.py:10-20"), its symbol when the text does not show it, and in brackets why it was
included.
Cite every claim by its evidence label, for example "[Evidence 2]". Do not use knowledge that is not in the evidence.
If the evidence is insufficient to answer, say that it is insufficient and what is missing.""")

PROMPTS = {"raw": RAW_SYSTEM, "bundle": BUNDLE_SYSTEM}


def prompt_versions() -> dict[str, str]:
    return {p.name: p.version for p in PROMPTS.values()}


def store_prompts(store: Store) -> dict[str, str]:
    """Record the prompts (idempotent); a changed text under an existing version is a bug, reported as such."""
    with store.transaction():
        for p in PROMPTS.values():
            existing = prompt_text(store, p.name, p.version)
            if existing is None:
                add_prompt(store, p.name, p.version, p.text, utc_now())
            elif existing != p.text:
                raise UserError(f"prompt {p.name} version {p.version} differs from the stored text; "
                                f"bump its version in core/runs/prompts.py")
    return prompt_versions()


def raw_block(hit: Any) -> str:
    return block(file_header(Header(None, hit.file_path, hit.start_line, hit.end_line)), hit.text)


def raw_context(hits: list[Any]) -> str:
    """The top RAW_K hits, in rank order, as `File: path` blocks."""
    return SNIPPET_SEPARATOR.join(raw_block(h) for h in hits[:RAW_K])


def raw_messages(question: str, hits: list[Any]) -> list[dict]:
    return [{"role": "system", "content": RAW_SYSTEM.text},
            {"role": "user", "content": user_message(question, raw_context(hits))}]


def bundle_messages(question: str, bundle: EvidenceBundle) -> list[dict]:
    return [{"role": "system", "content": BUNDLE_SYSTEM.text},
            {"role": "user", "content": user_message(question, bundle.to_prompt_context())}]


def hit_record(hit: Any) -> dict:
    """What an answer row keeps about each raw hit shown to the model (JSON, seed field names)."""
    return {"chunk_id": hit.chunk_id, "file_path": hit.file_path, "start_line": hit.start_line,
            "end_line": hit.end_line, "symbol_name": hit.symbol_name, "retrieval_method": hit.method,
            "relevance_score": hit.score, "retrieval_rank": hit.rank, "text": hit.text}


def unique_files(paths: list[str]) -> list[str]:
    return list(dict.fromkeys(paths))


def evidence_json(hits: list[Any]) -> tuple[str, str]:
    """(evidence, evidence_files) columns of a raw answer."""
    shown = hits[:RAW_K]
    return (json.dumps([hit_record(h) for h in shown], ensure_ascii=False),
            json.dumps(unique_files([h.file_path for h in shown])))
