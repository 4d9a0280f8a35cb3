"""`Evidence`: one piece of evidence as read back, whoever produced it (a bundle snippet, a raw hit, an imported file).

The compiler writes the strict, contract-checked `EvidenceSnippet` (core/evidence/bundle.py); everything that reads
evidence back (graders, the desk, exports) gets `Evidence`, where every field but the text may be unknown, because a
run log made elsewhere may carry only some of the seed's field names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Evidence:
    file_path: str | None
    symbol_name: str | None = None
    chunk_id: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    text: str = ""
    position: int | None = None  # 1-based place in the bundle or hit list
    retrieval_method: str | None = None
    relevance_score: float | None = None
    retrieval_rank: int | None = None
    selection_reason: str | None = None
    evidence_role: str | None = None
    token_count: int | None = None
    content_hash: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)  # other fields the producer stored

    @property
    def key(self) -> str:
        """Identity for de-duplication: the chunk when known, else file, symbol and lines."""
        return self.chunk_id or f"{self.file_path}:{self.symbol_name}:{self.start_line}-{self.end_line}"

    @property
    def location(self) -> str:
        where = self.file_path or "(no file)"
        if self.start_line is not None and self.end_line is not None:
            where += f":{self.start_line}-{self.end_line}"
        return where
