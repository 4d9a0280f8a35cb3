"""Retrieval evals: did the evidence an answer was given contain what the question needed?

Each answer (raw or bundled) is scored against its question's labels (expected_files, expected_symbols):

- file_precision  = |distinct evidence files ∩ expected files| / |distinct evidence files|
- file_recall     = |distinct evidence files ∩ expected files| / |expected files|
- symbol_recall   = |expected symbols found among the evidence's symbols| / |expected symbols| (from the evidence's
  symbol names, never from the answer text)
- context_precision = RAGAS's AP@k over the ranked evidence with ID-based relevance:
  sum_k(precision@k * rel_k) / (number of relevant items in the top K); 0 when nothing relevant came back
- context_recall  = ID-based: |reference ids retrieved| / |reference ids|, where the reference ids are the expected
  files and the expected symbols together (so it rewards finding the right symbols, not only the right files)

An evidence item is relevant (rel_k = 1) when its file is an expected file or its symbol is an expected symbol. A chunk
that appears twice in the ranked evidence counts once, at its first rank: repeating evidence adds nothing to retrieve.

Undefined is not zero: a question without labels gets value NULL with detail {"unlabelled": true}; empty evidence makes
the precisions NULL ("no evidence") while the recalls are 0 (labels exist and nothing was found). Every score is stored
in answer_scores with method "id-based".
"""

from __future__ import annotations

import json
from collections.abc import Callable

from gradedesk.core.evidence.record import Evidence
from gradedesk.core.evidence.stored import answer_evidence
from gradedesk.core.progress import Progress
from gradedesk.core.store.answers import answers_of_run
from gradedesk.core.store.connection import Store
from gradedesk.core.store.machine_grades import Score, store_scores

METHOD = "id-based"
METRICS = ("file_precision", "file_recall", "symbol_recall", "context_precision", "context_recall")


def symbol_matches(found: str | None, expected: str) -> bool:
    """`Store.transaction` is found by that exact symbol; a bare `transaction` label also matches `Store.transaction`."""
    if not found:
        return False
    return found == expected or found.endswith("." + expected)


MethodLabel = Callable[[str, int], str]  # (answer method, budget) -> its name in a table


def method_label(method: str, budget: int) -> str:
    """How an answer's method is named in every table: raw, or bundle@<token budget>."""
    return "raw" if method == "raw" else f"bundle@{budget}"


def norm_path(path: str) -> str:
    return path.replace("\\", "/").removeprefix("./")


def _dedupe(items: list[Evidence]) -> list[Evidence]:
    seen: set[str] = set()
    out = []
    for item in items:
        if item.key not in seen:
            seen.add(item.key)
            out.append(item)
    return out


def _distinct_files(items: list[Evidence]) -> list[str]:
    return list(dict.fromkeys(norm_path(i.file_path) for i in items if i.file_path))


def average_precision(relevance: list[bool]) -> float | None:
    """RAGAS context precision: sum_k(precision@k * rel_k) / (relevant items in the top K); None for no items."""
    if not relevance:
        return None
    hits, total = 0, 0.0
    for k, rel in enumerate(relevance, start=1):
        if rel:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


def retrieval_scores(items: list[Evidence], expected_files: list[str] | None,
                     expected_symbols: list[str] | None) -> list[Score]:
    """All retrieval metrics of one ranked evidence list against one question's labels (pure; no store)."""
    ranked = _dedupe(items)
    files = _distinct_files(ranked)
    exp_files = None if expected_files is None else list(dict.fromkeys(norm_path(f) for f in expected_files))
    exp_symbols = None if expected_symbols is None else list(dict.fromkeys(expected_symbols))
    symbols = [i.symbol_name for i in ranked if i.symbol_name]
    no_evidence = {"reason": "no evidence"} if not ranked else {}

    def unlabelled(metric: str, what: str) -> Score:
        return Score(metric, None, {"unlabelled": True, "reason": f"question has no {what} labels"})

    def ratio(metric: str, num: int, den: int, detail: dict, why_empty: str) -> Score:
        if den == 0:
            return Score(metric, None, {**detail, "reason": why_empty})
        return Score(metric, num / den, detail)

    out: list[Score] = []
    if exp_files is None:
        out += [unlabelled("file_precision", "expected_files"), unlabelled("file_recall", "expected_files")]
    else:
        found = [f for f in files if f in exp_files]
        detail = {"found_files": found, "missing_files": [f for f in exp_files if f not in files],
                  "extra_files": [f for f in files if f not in exp_files]}
        out.append(ratio("file_precision", len(found), len(files), detail, "no evidence"))
        out.append(ratio("file_recall", len(found), len(exp_files), detail, "no files expected"))
    if exp_symbols is None:
        out.append(unlabelled("symbol_recall", "expected_symbols"))
    else:
        found_s = [s for s in exp_symbols if any(symbol_matches(f, s) for f in symbols)]
        out.append(ratio("symbol_recall", len(found_s), len(exp_symbols),
                         {"found_symbols": found_s, "missing_symbols": [s for s in exp_symbols if s not in found_s]},
                         "no symbols expected"))
    if exp_files is None and exp_symbols is None:
        out += [unlabelled("context_precision", "expected_files or expected_symbols"),
                unlabelled("context_recall", "expected_files or expected_symbols")]
        return out
    ref_files, ref_symbols = exp_files or [], exp_symbols or []
    relevance = [(i.file_path is not None and norm_path(i.file_path) in ref_files) or any(symbol_matches(i.symbol_name, s) for s in ref_symbols)
                 for i in ranked]
    ap = average_precision(relevance)
    out.append(Score("context_precision", ap, {"relevance": [int(r) for r in relevance], **no_evidence}))
    refs = [f"file:{f}" for f in ref_files] + [f"symbol:{s}" for s in ref_symbols]
    got = [f"file:{f}" for f in ref_files if f in files] + \
          [f"symbol:{s}" for s in ref_symbols if any(symbol_matches(x, s) for x in symbols)]
    out.append(ratio("context_recall", len(got), len(refs),
                     {"retrieved_ids": got, "missing_ids": [r for r in refs if r not in got]}, "no reference ids"))
    return out


def labels(raw: str | None) -> list[str] | None:
    return None if raw is None else json.loads(raw)


def grade_retrieval(store: Store, run_id: int, progress: Progress | None = None) -> int:
    """Score the retrieval of every answered answer of a run; returns how many answers were scored.

    Cheap and deterministic, so it always recomputes (labels may have been fixed since): idempotent by upsert.
    """
    answers = answers_of_run(store, run_id)
    with store.transaction():
        for n, a in enumerate(answers, start=1):
            scores = retrieval_scores(answer_evidence(store, a), labels(a["expected_files"]),
                                      labels(a["expected_symbols"]))
            store_scores(store, a["id"], scores, METHOD)
            if progress:
                progress("retrieval", n, len(answers), 0)
    return len(answers)
