"""The call graph's part of retrieval: who calls or imports what a question names, and what the top hits use.

relationship_graph: for relationship questions (core.text.question), the callers (and importers) and callees of the
matched symbols, from symbol_refs. used_definitions: for every question, the definitions that the top fused chunks use
(the classes they subclass, what they call, the names their file imports that they mention) when defined in another
file, one chunk per defining file. Both rank by how well each chunk matches the question itself (its BM25 score), best
first; core.retrieval.hybrid cuts and fuses them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np

from gradedesk.core.store.connection import Store
from gradedesk.core.store.index import called_names, calls_in_order, chunk_texts, imported_names, referring_chunks
from gradedesk.core.text.question import QuestionInfo

if TYPE_CHECKING:  # hybrid loads the index and imports this module
    from gradedesk.core.retrieval.hybrid import LoadedIndex

Ranked = list[tuple[int, float, str]]  # (doc, method score, what matched)
USED_FILES = 2  # a name defined in more files than this is too common to say which one is meant
_DOTTED = re.compile(r"[A-Za-z_][\w.]*")
# the words a graph hit's note opens with, each followed by the symbol it was reached from (`called by Store.open()`)
GRAPH_VERBS = ("calls", "imports", "called by", "subclassed by", "used by")
_REACHED_FROM = re.compile(rf"(?:{'|'.join(GRAPH_VERBS)}) ([\w.]+)")
_CLASS_BASES = re.compile(r"^[ \t]*class[ \t]+\w+[ \t]*\(([^)]*)\)[ \t]*:", re.M)


def relationship_graph(store: Store, index: LoadedIndex, info: QuestionInfo, targets: list[str], bm25: np.ndarray) -> Ranked:
    out: dict[int, tuple[float, str, str]] = {}
    want_imports, want_callers, want_callees = info.wants_imports, info.wants_callers, info.wants_callees
    for target in targets[:3]:
        name = target.rsplit(".", 1)[-1]
        defs = set(index.by_symbol.get(name.lower(), []))
        kinds = ("call", "import") if want_imports else ("call",)
        rows = referring_chunks(store, index.repo_id, name, kinds) if want_callers else []
        for cid, ref_kind in rows:
            d = index.by_chunk.get(cid)
            if d is None or d in defs:
                continue
            relation = "caller" if ref_kind == "call" else "importer"
            verb = "calls" if ref_kind == "call" else "imports"
            note = f"{verb} {name}" + ("()" if ref_kind == "call" else "")
            if d not in out:
                out[d] = (2.0 + float(bm25[d]) / 100.0, note, relation)
        # callees: what the definition calls that is defined in this repository
        for d in sorted(defs)[:3] if want_callees or not want_callers else []:
            for callee in called_names(store, index.docs[d].chunk_id):
                callee_defs = index.by_symbol.get(callee.lower(), [])
                if 0 < len(callee_defs) <= 3:
                    for cd in callee_defs:
                        if cd not in out and cd not in defs:
                            out[cd] = (1.0 + float(bm25[cd]) / 100.0,
                                       f"called by {index.docs[d].symbol_name}()", "callee")
    ranked = sorted(out, key=lambda d: (-out[d][0], d))
    return [(d, out[d][0], f"{out[d][1]}|{out[d][2]}") for d in ranked]


def reached_from(note: str) -> str | None:
    """The symbol a graph hit's note names as the one it was reached from; None for any other note."""
    found = _REACHED_FROM.match(note)
    return found.group(1) if found else None


def _bases(text: str) -> list[str]:
    """The base classes a class chunk's `class` line names (last dotted part; keyword arguments left out)."""
    found = _CLASS_BASES.search(text)
    if not found:
        return []
    names = (re.match(r"\s*([A-Za-z_][\w.]*)\s*(?:\[|$)", part) for part in found.group(1).split(",")
             if "=" not in part)
    return [m.group(1).rsplit(".", 1)[-1] for m in names if m]


def _imported_mentions(text: str, imported: set[str]) -> list[str]:
    """The names a chunk uses through its file's imports without calling them: `Name` (annotations, isinstance,
    attributes) and `module.Name` (the name under an imported module)."""
    out = []
    for ref in dict.fromkeys(_DOTTED.findall(text)):
        parts = ref.split(".")
        if parts[0] in imported:
            out.append(parts[min(1, len(parts) - 1)])
    return out


def used_definitions(store: Store, index: LoadedIndex, top: list[int], bm25: np.ndarray) -> Ranked:
    """The definitions the `top` chunks use (the classes they subclass, what they call, the imported names they mention),
    found in other files; ranked by how well they match the question themselves. The first user found names the use."""
    rows = [index.docs[d] for d in top]
    if not rows:
        return []
    texts = chunk_texts(store, [m.rowid for m in rows])
    calls: dict[str, list[str]] = defaultdict(list)
    for chunk_id, name in calls_in_order(store, [m.chunk_id for m in rows]):
        calls[chunk_id].append(name)
    files = sorted({m.file_path for m in rows})
    imported: dict[str, set[str]] = defaultdict(set)  # file → the names its import statements bind
    for path, name in imported_names(store, index.repo_id, files):
        imported[path].add(name)
    out: dict[int, tuple[float, str]] = {}
    for m in rows:
        user = m.symbol_name or m.file_path
        text = texts[m.rowid]
        uses = ([(b, "subclassed by") for b in _bases(text)] + [(c, "called by") for c in calls[m.chunk_id]]
                + [(name, "used by") for name in _imported_mentions(text, imported[m.file_path])])
        for name, verb in uses:
            defs = [d for d in index.by_symbol.get(name.lower(), []) if index.docs[d].file_path != m.file_path]
            if not defs or len({index.docs[d].file_path for d in defs}) > USED_FILES:
                continue
            best: dict[str, int] = {}  # a long class is several chunks: its best-matching one stands for it
            for d in defs:
                path = index.docs[d].file_path
                if path not in best or bm25[d] > bm25[best[path]]:
                    best[path] = d
            for d in best.values():
                if d not in out and d not in top:
                    out[d] = (1.0 + float(bm25[d]) / 100.0, f"{verb} {user}")
    ranked = sorted(out, key=lambda d: (-out[d][0], d))
    return [(d, out[d][0], f"{out[d][1]}|callee") for d in ranked]
